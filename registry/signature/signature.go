// Package signature owns the checking of extensions' signatures: a Sigstore bundle
// (application/vnd.dev.sigstore.bundle.v0.x+json, as `cosign sign-blob --bundle` writes it, or
// a GitHub artifact attestation: a DSSE envelope of an in-toto statement naming the
// artifact's sha256) over an archive's bytes, verified offline against a trusted root and
// then against an identity policy (the certificate's OIDC issuer and subject, exactly or by
// pattern).
//
// What a signature must carry follows from the trusted root, which the user or an
// administrator chooses, never the extension: certificate transparency proofs (SCTs) when the
// root names CT logs, a transparency log entry when it names Rekor logs, and always at least
// one observed time (the log's or a timestamp authority's) inside the certificate's validity.
// Sigstore's public-good root names both; GitHub's own (private repositories) names neither
// and relies on its timestamp authority.
//
// This package is the engine's alone: its dependencies (sigstore-go) stay out of the light
// front (cmd/gem), whose start-up does not change.
package signature

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// GitHubActionsIssuer is the OIDC issuer of GitHub Actions workflows' certificates.
const GitHubActionsIssuer = "https://token.actions.githubusercontent.com"

// Signer is who signed: the certificate's OIDC issuer and its subject (the SAN: a workflow
// URI, an e-mail address).
type Signer struct {
	Issuer   string `json:"issuer"`
	Identity string `json:"identity"`
}

func (s Signer) String() string { return s.Identity + " (issuer " + s.Issuer + ")" }

// Policy is who may have signed. Issuer is matched exactly; the identity exactly (Identity)
// or by a regular expression (IdentityRegexp, matched as written: anchor it). Origin says
// where the policy comes from (a flag, a settings file, gem.lock, the receipt), for errors
// and consent.
type Policy struct {
	Issuer         string `json:"issuer"`
	Identity       string `json:"identity,omitempty"`
	IdentityRegexp string `json:"identityRegexp,omitempty"`
	Origin         string `json:"origin,omitempty"`
}

func (p Policy) String() string {
	id := p.Identity
	if p.IdentityRegexp != "" {
		id = "an identity matching " + p.IdentityRegexp
	}
	return id + " (issuer " + p.Issuer + ")"
}

// Exactly is the policy that s, and only s, signed.
func Exactly(s Signer, origin string) Policy {
	return Policy{Issuer: s.Issuer, Identity: s.Identity, Origin: origin}
}

// GitHubRepository is the policy that a workflow of the repository owner/repo signed, through
// GitHub Actions (what `gh attestation verify --repo` checks; the subject is the workflow's
// URI, https://github.com/owner/repo/.github/workflows/release.yml@refs/tags/v1).
func GitHubRepository(owner, repo string) Policy {
	return Policy{
		Issuer:         GitHubActionsIssuer,
		IdentityRegexp: "^https://github\\.com/" + regexp.QuoteMeta(owner) + "/" + regexp.QuoteMeta(repo) + "/",
		Origin:         "the repository's own GitHub Actions workflows",
	}
}

// Check validates p: an issuer, and an identity or a valid pattern.
func (p Policy) Check() error {
	if p.Issuer == "" {
		return &PolicyError{Policy: p, Reason: "no issuer (the OIDC issuer of the signer's certificate, e.g. " + GitHubActionsIssuer + ")"}
	}
	if (p.Identity == "") == (p.IdentityRegexp == "") {
		return &PolicyError{Policy: p, Reason: "give the identity exactly or as a pattern, one of the two"}
	}
	if p.IdentityRegexp != "" {
		if _, err := regexp.Compile(p.IdentityRegexp); err != nil {
			return &PolicyError{Policy: p, Reason: fmt.Sprintf("the identity pattern %q: %v", p.IdentityRegexp, err)}
		}
	}
	return nil
}

func (p Policy) identity() (verify.CertificateIdentity, error) {
	if err := p.Check(); err != nil {
		return verify.CertificateIdentity{}, err
	}
	return verify.NewShortCertificateIdentity(p.Issuer, "", p.Identity, p.IdentityRegexp)
}

// Verified is a signature that verified.
type Verified struct {
	Signer
	// Kind is "signature" (a signature over the artifact's bytes) or "attestation" (an
	// in-toto statement naming its digest; PredicateType says what it attests).
	Kind          string `json:"kind"`
	PredicateType string `json:"predicateType,omitempty"`
	// Repository is the source repository the certificate names (GitHub Actions), if any.
	Repository string `json:"repository,omitempty"`
	// SignedAt is the earliest verified time it was observed (the log's, a timestamp's).
	SignedAt time.Time `json:"signedAt"`
	// Policy is the policy it matched (nil: none was asked).
	Policy *Policy `json:"policy,omitempty"`
}

// Verifier checks bundles against one trusted root.
type Verifier struct {
	v *verify.Verifier
}

// NewVerifier is a verifier trusting the root trustedRootJSON (a trusted_root.json, Sigstore's
// application/vnd.dev.sigstore.trustedroot+json).
func NewVerifier(trustedRootJSON []byte) (*Verifier, error) {
	tr, err := root.NewTrustedRootFromJSON(trustedRootJSON)
	if err != nil {
		return nil, &RootError{Err: err}
	}
	return NewVerifierFor(tr)
}

// NewVerifierFor is a verifier trusting tm. What a signature must carry follows from tm (the
// package doc).
func NewVerifierFor(tm root.TrustedMaterial) (*Verifier, error) {
	opts := []verify.VerifierOption{verify.WithObserverTimestamps(1)}
	if len(tm.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	if len(tm.RekorLogs()) > 0 {
		opts = append(opts, verify.WithTransparencyLog(1))
	}
	v, err := verify.NewVerifier(tm, opts...)
	if err != nil {
		return nil, &RootError{Err: err}
	}
	return &Verifier{v: v}, nil
}

// Verify checks that bundleJSON signs (or attests) the artifact whose sha256 is digest, under
// the trusted root, then that its signer matches one of policies (none given: any signer,
// returned for the user to see). A bundle that does not parse or verify is a *BundleError; a
// valid signature by someone else an *IdentityError.
func (v *Verifier) Verify(bundleJSON, digest []byte, policies ...Policy) (*Verified, error) {
	if len(digest) != sha256.Size {
		return nil, fmt.Errorf("the artifact's digest must be a sha256, got %d bytes", len(digest))
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return nil, &BundleError{Reason: "not a Sigstore bundle", Err: err}
	}
	res, err := v.v.Verify(&b, verify.NewPolicy(verify.WithArtifactDigest("sha256", digest), verify.WithoutIdentitiesUnsafe()))
	if err != nil {
		return nil, &BundleError{Reason: "it does not verify", Err: err}
	}
	if res.Signature == nil || res.Signature.Certificate == nil {
		return nil, &BundleError{Reason: "it is signed by a key, not a certificate with an identity"}
	}
	cert := res.Signature.Certificate
	out := &Verified{
		Signer:     Signer{Issuer: cert.Issuer, Identity: cert.SubjectAlternativeName},
		Kind:       "signature",
		Repository: cert.SourceRepositoryURI,
	}
	if res.Statement != nil {
		out.Kind, out.PredicateType = "attestation", res.Statement.PredicateType
	}
	for _, t := range res.VerifiedTimestamps {
		if out.SignedAt.IsZero() || t.Timestamp.Before(out.SignedAt) {
			out.SignedAt = t.Timestamp
		}
	}
	if len(policies) == 0 {
		return out, nil
	}
	for i := range policies {
		ci, err := policies[i].identity()
		if err != nil {
			return nil, err
		}
		if ci.Verify(*cert) == nil {
			out.Policy = &policies[i]
			return out, nil
		}
	}
	return out, &IdentityError{Got: out.Signer, Want: policies}
}

// BundleError is a signature that cannot be trusted: the bundle does not parse, is not over
// this artifact (tampered with, or another file's), or its certificate or times are not
// those of the trusted root.
type BundleError struct {
	Reason string
	Err    error
}

func (e *BundleError) Error() string {
	if e.Err == nil {
		return "the signature is not valid: " + e.Reason
	}
	return fmt.Sprintf("the signature is not valid: %s: %v", e.Reason, e.Err)
}

func (e *BundleError) Unwrap() error { return e.Err }

// IdentityError is a valid signature by a signer no policy allows.
type IdentityError struct {
	Got  Signer
	Want []Policy
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("signed by %s, not by %s", e.Got, Either(e.Want))
}

// Either says who policies allow, with where each comes from: "a (issuer i) from o, or …".
func Either(policies []Policy) string {
	var want []string
	for _, p := range policies {
		w := p.String()
		if p.Origin != "" {
			w += " from " + p.Origin
		}
		want = append(want, w)
	}
	return strings.Join(want, ", or ")
}

// PolicyError is an identity policy that cannot be used.
type PolicyError struct {
	Policy Policy
	Reason string
}

func (e *PolicyError) Error() string {
	from := ""
	if e.Policy.Origin != "" {
		from = " (" + e.Policy.Origin + ")"
	}
	return "the signer policy" + from + " is not usable: " + e.Reason
}

// RootError is a trusted root that cannot be used.
type RootError struct{ Err error }

func (e *RootError) Error() string {
	return "the Sigstore trusted root is not usable: " + e.Err.Error()
}
func (e *RootError) Unwrap() error { return e.Err }

// IsSignatureError reports whether err is a signature that failed (not a bug or an I/O
// failure): the CLI's hint keys on it.
func IsSignatureError(err error) bool {
	var b *BundleError
	var i *IdentityError
	return errors.As(err, &b) || errors.As(err, &i)
}
