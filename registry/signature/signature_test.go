package signature_test

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/sigtest"
	"github.com/gemhost/gem/registry/signature"
)

const (
	workflow = "https://github.com/acme/tools/.github/workflows/release.yml@refs/tags/v1.0.0"
	other    = "https://github.com/mallory/tools/.github/workflows/release.yml@refs/tags/v1.0.0"
)

func TestVerify(t *testing.T) {
	auth, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, err := auth.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.NewVerifier(rootJSON)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, _ := sigtest.New() // another Sigstore: not trusted
	artifact := []byte("the extension's archive")
	digest := sha256.Sum256(artifact)
	tampered := sha256.Sum256([]byte("the extension's archive, changed"))

	must := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	blob := must(auth.SignBlob(workflow, signature.GitHubActionsIssuer, artifact))
	attest := must(auth.Attest(workflow, signature.GitHubActionsIssuer, "ext.tar.gz", artifact, "https://slsa.dev/provenance/v1"))
	byOther := must(auth.SignBlob(other, signature.GitHubActionsIssuer, artifact))
	byEmail := must(auth.SignBlob("dev@acme.example", "https://accounts.google.com", artifact))
	untrusted := must(elsewhere.SignBlob(workflow, signature.GitHubActionsIssuer, artifact))
	repo := signature.GitHubRepository("acme", "tools")

	for _, tc := range []struct {
		name     string
		bundle   []byte
		digest   [32]byte
		policies []signature.Policy
		kind     string
		wantErr  string // "" : verified
		identity bool   // the error is an *IdentityError
	}{
		{name: "sign-blob bundle, repository policy", bundle: blob, digest: digest, policies: []signature.Policy{repo}, kind: "signature"},
		{name: "attestation, repository policy", bundle: attest, digest: digest, policies: []signature.Policy{repo}, kind: "attestation"},
		{name: "no policy: the signer is returned", bundle: byEmail, digest: digest, kind: "signature"},
		{name: "exact identity", bundle: byEmail, digest: digest, policies: []signature.Policy{{Issuer: "https://accounts.google.com", Identity: "dev@acme.example"}}, kind: "signature"},
		{name: "one of two policies", bundle: byEmail, digest: digest, policies: []signature.Policy{repo, {Issuer: "https://accounts.google.com", Identity: "dev@acme.example"}}, kind: "signature"},
		{name: "another repository's workflow", bundle: byOther, digest: digest, policies: []signature.Policy{repo}, wantErr: "signed by " + other, identity: true},
		{name: "same identity, other issuer", bundle: byEmail, digest: digest, policies: []signature.Policy{{Issuer: signature.GitHubActionsIssuer, Identity: "dev@acme.example"}}, wantErr: "not by dev@acme.example", identity: true},
		{name: "tampered artifact (blob)", bundle: blob, digest: tampered, policies: []signature.Policy{repo}, wantErr: "does not verify"},
		{name: "tampered artifact (attestation)", bundle: attest, digest: tampered, policies: []signature.Policy{repo}, wantErr: "does not verify"},
		{name: "another Sigstore's certificate", bundle: untrusted, digest: digest, policies: []signature.Policy{repo}, wantErr: "does not verify"},
		{name: "not a bundle", bundle: []byte(`{"mediaType": "text/plain"}`), digest: digest, wantErr: "not a Sigstore bundle"},
		{name: "bad policy", bundle: blob, digest: digest, policies: []signature.Policy{{Issuer: "x", IdentityRegexp: "("}}, wantErr: "not usable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := v.Verify(tc.bundle, tc.digest[:], tc.policies...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				var ie *signature.IdentityError
				if errors.As(err, &ie) != tc.identity {
					t.Fatalf("IdentityError: %v, want %v", errors.As(err, &ie), tc.identity)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != tc.kind || got.SignedAt.IsZero() || got.Identity == "" {
				t.Fatalf("verified = %+v", got)
			}
			if len(tc.policies) > 0 && got.Policy == nil {
				t.Fatalf("no policy recorded: %+v", got)
			}
		})
	}
}

func TestPolicyCheck(t *testing.T) {
	for _, tc := range []struct {
		p    signature.Policy
		want string
	}{
		{signature.Policy{Issuer: "i", Identity: "s"}, ""},
		{signature.Policy{Issuer: "i", IdentityRegexp: "^s"}, ""},
		{signature.Policy{Identity: "s"}, "no issuer"},
		{signature.Policy{Issuer: "i"}, "one of the two"},
		{signature.Policy{Issuer: "i", Identity: "s", IdentityRegexp: "s"}, "one of the two"},
		{signature.Policy{Issuer: "i", IdentityRegexp: "[", Origin: "settings"}, "(settings)"},
	} {
		err := tc.p.Check()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
}

func TestBadRoot(t *testing.T) {
	if _, err := signature.NewVerifier([]byte(`{}`)); err == nil {
		t.Fatal("an empty trusted root was accepted")
	}
}

// BenchmarkVerify is the verification of one extension's signature (a cosign bundle and a
// GitHub attestation), the root parsed once, as an install does.
func BenchmarkVerify(b *testing.B) {
	auth, err := sigtest.New()
	if err != nil {
		b.Fatal(err)
	}
	rootJSON, err := auth.TrustedRoot()
	if err != nil {
		b.Fatal(err)
	}
	v, err := signature.NewVerifier(rootJSON)
	if err != nil {
		b.Fatal(err)
	}
	artifact := []byte("an archive")
	digest := sha256.Sum256(artifact)
	blob, err := auth.SignBlob(workflow, signature.GitHubActionsIssuer, artifact)
	if err != nil {
		b.Fatal(err)
	}
	attest, err := auth.Attest(workflow, signature.GitHubActionsIssuer, "a.tar.gz", artifact, "https://slsa.dev/provenance/v1")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		bundle []byte
	}{{"sign-blob", blob}, {"attestation", attest}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := v.Verify(bc.bundle, digest[:], signature.GitHubRepository("acme", "tools")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
