// Package sigtest is a Sigstore of its own for tests (sigstore-go's VirtualSigstore: a
// certificate authority, a transparency log and a timestamp authority with keys made on the
// spot): it writes the trusted root a verifier is given and signs artifacts into the bundles
// `cosign sign-blob --bundle` and GitHub's artifact attestations write. Tests only.
package sigtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// Authority is one virtual Sigstore.
type Authority struct{ vs *ca.VirtualSigstore }

// New makes an authority (its certificates are valid for the next hour).
func New() (*Authority, error) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		return nil, err
	}
	return &Authority{vs: vs}, nil
}

// TrustedRoot is the authority's trusted_root.json: its CA, transparency log and timestamp
// authority. It names no CT log: the virtual CA embeds no SCTs in what it issues (as GitHub's
// own Sigstore instance does not).
func (a *Authority) TrustedRoot() ([]byte, error) {
	// The virtual log's ID is its key ID in hex, where a trusted root holds the raw bytes.
	logs := map[string]*root.TransparencyLog{}
	for id, l := range a.vs.RekorLogs() {
		raw, err := hex.DecodeString(id)
		if err != nil {
			return nil, err
		}
		c := *l
		c.ID = raw
		logs[id] = &c
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, a.vs.FulcioCertificateAuthorities(), nil, a.vs.TimestampingAuthorities(), logs)
	if err != nil {
		return nil, err
	}
	return tr.MarshalJSON()
}

// SignBlob signs artifact as identity (the certificate's SAN) of issuer: a bundle with a
// message signature over its bytes, as `cosign sign-blob --bundle` writes.
func (a *Authority) SignBlob(identity, issuer string, artifact []byte) ([]byte, error) {
	e, err := a.vs.Sign(identity, issuer, artifact)
	if err != nil {
		return nil, err
	}
	sc, err := e.SignatureContent()
	if err != nil {
		return nil, err
	}
	ms := sc.MessageSignatureContent()
	digest := sha256.Sum256(artifact)
	content := &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
		MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: digest[:]},
		Signature:     ms.Signature(),
	}}
	// The virtual log gives no inclusion proof for these: a v0.1 bundle, which carries the
	// log's promise (its signed entry timestamp) instead.
	return a.bundle(e, "application/vnd.dev.sigstore.bundle+json;version=0.1", "hashedrekord", content)
}

// Attest signs an in-toto statement naming artifact (by name and sha256) with predicateType,
// as GitHub's artifact attestations do: a v0.3 bundle with a DSSE envelope.
func (a *Authority) Attest(identity, issuer, name string, artifact []byte, predicateType string) ([]byte, error) {
	digest := sha256.Sum256(artifact)
	statement, err := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": name, "digest": map[string]string{"sha256": hex.EncodeToString(digest[:])}}},
		"predicateType": predicateType,
		"predicate":     map[string]any{},
	})
	if err != nil {
		return nil, err
	}
	e, err := a.vs.AttestAtTime(identity, issuer, statement, time.Now().Add(5*time.Minute), true)
	if err != nil {
		return nil, err
	}
	sc, err := e.SignatureContent()
	if err != nil {
		return nil, err
	}
	env := sc.EnvelopeContent().RawEnvelope()
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		return nil, err
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, err
	}
	content := &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
		Payload: payload, PayloadType: env.PayloadType,
		Signatures: []*protodsse.Signature{{Sig: sig, Keyid: env.Signatures[0].KeyID}},
	}}
	return a.bundle(e, "application/vnd.dev.sigstore.bundle.v0.3+json", "dsse", content)
}

// bundle writes e as a bundle of mediaType holding content.
func (a *Authority) bundle(e *ca.TestEntity, mediaType, kind string, content any) ([]byte, error) {
	vc, err := e.VerificationContent()
	if err != nil {
		return nil, err
	}
	entries, err := e.TlogEntries()
	if err != nil {
		return nil, err
	}
	stamps, err := e.Timestamps()
	if err != nil {
		return nil, err
	}
	vm := &protobundle.VerificationMaterial{TimestampVerificationData: &protobundle.TimestampVerificationData{}}
	if mediaType == "application/vnd.dev.sigstore.bundle.v0.3+json" {
		vm.Content = &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}}
	} else {
		vm.Content = &protobundle.VerificationMaterial_X509CertificateChain{X509CertificateChain: &protocommon.X509CertificateChain{
			Certificates: []*protocommon.X509Certificate{{RawBytes: vc.Certificate().Raw}},
		}}
	}
	for _, s := range stamps {
		vm.TimestampVerificationData.Rfc3161Timestamps = append(vm.TimestampVerificationData.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: s})
	}
	for _, en := range entries {
		tle, err := a.withPromise(en, kind)
		if err != nil {
			return nil, err
		}
		vm.TlogEntries = append(vm.TlogEntries, tle)
	}
	b := &protobundle.Bundle{MediaType: mediaType, VerificationMaterial: vm}
	switch c := content.(type) {
	case *protobundle.Bundle_MessageSignature:
		b.Content = c
	case *protobundle.Bundle_DsseEnvelope:
		b.Content = c
	default:
		return nil, fmt.Errorf("sigstore test bundle: unknown content %T", content)
	}
	return protojson.Marshal(b)
}

// withPromise is en's log entry with what its proto form leaves out: the kind and the log's
// signed entry timestamp (signed again: the same payload, the same log key).
func (a *Authority) withPromise(en *tlog.Entry, kind string) (*protorekor.TransparencyLogEntry, error) {
	tle := en.TransparencyLogEntry()
	tle.KindVersion = &protorekor.KindVersion{Kind: kind, Version: "0.0.1"}
	set, err := a.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		return nil, err
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	return tle, nil
}

var _ verify.SignedEntity = (*ca.TestEntity)(nil)
