package install

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/sigtest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/registrytest"
	"github.com/gemhost/gem/registry/signature"
)

const (
	dev    = "dev@acme.example"
	ops    = "ops@acme.example"
	google = "https://accounts.google.com"
)

// signedArchive writes an extension archive and its bundle signed as identity (none: "").
func signedArchive(t testing.TB, auth *sigtest.Authority, dir, identity string) string {
	t.Helper()
	archive := filepath.Join(dir, "ext.tar.gz")
	if err := os.WriteFile(archive, tarGz(t, map[string]string{"ext/gemini-extension.json": `{"name": "ext", "version": "1.0.0"}`}), 0o644); err != nil {
		t.Fatal(err)
	}
	if identity == "" {
		return archive
	}
	data, _ := os.ReadFile(archive)
	b, err := auth.SignBlob(identity, google, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archive+".sigstore.json", b, 0o644); err != nil {
		t.Fatal(err)
	}
	return archive
}

func signatures(t testing.TB, auth *sigtest.Authority) *Signatures {
	root, err := auth.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	return &Signatures{Load: func() (*signature.Verifier, error) { return signature.NewVerifier(root) }}
}

// TestCheckSignature: which policy applies (the flag, the lock, the settings' signers, the
// installed version's signer), whether a signature is required, and what consent shows.
func TestCheckSignature(t *testing.T) {
	auth, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	exact := func(id string) *signature.Policy {
		return &signature.Policy{Issuer: google, Identity: id, Origin: "the command line"}
	}
	for _, tc := range []struct {
		name     string
		signedBy string // "": unsigned
		opt      Options
		require  bool
		signers  []TrustedSigner
		previous *lockfile.Signer
		wantErr  string
		wantLine string
		pinned   string
		noRoot   bool // the trusted root cannot be loaded
	}{
		{name: "unsigned, nothing asked", wantLine: ""},
		{name: "unsigned, required by the settings", require: true, wantErr: "has no signature, and security.requireSignatures is set in /etc/system.json"},
		{name: "unsigned, a signer named", opt: Options{Signer: exact(dev)}, wantErr: "a signature by dev@acme.example (issuer https://accounts.google.com) from the command line is expected"},
		{name: "unsigned, was signed", previous: &lockfile.Signer{Issuer: google, Identity: dev}, wantLine: "NOT signed (the installed version was signed by dev@acme.example"},
		{name: "signed, no policy: shown", signedBy: dev, wantLine: "no policy names this source's signer", pinned: dev},
		{name: "signed, the flag's signer", signedBy: dev, opt: Options{Signer: exact(dev)}, wantLine: "as the command line requires", pinned: dev},
		{name: "signed, not the flag's signer", signedBy: ops, opt: Options{Signer: exact(dev)}, wantErr: "signed by ops@acme.example (issuer https://accounts.google.com), not by dev@acme.example"},
		{name: "signed, the lock's signer", signedBy: dev, opt: Options{Locked: &lockfile.Entry{Signer: &lockfile.Signer{Issuer: google, Identity: dev}}}, wantLine: "as gem.lock requires", pinned: dev},
		{name: "signed, not the lock's signer", signedBy: ops, opt: Options{Locked: &lockfile.Entry{Signer: &lockfile.Signer{Issuer: google, Identity: dev}}}, wantErr: "from gem.lock"},
		{name: "the settings' signer for the source", signedBy: dev, signers: []TrustedSigner{{Source: "ext\\.tar\\.gz$", Policy: signature.Policy{Issuer: google, IdentityRegexp: "@acme\\.example$", Origin: "settings"}}}, wantLine: "as settings requires", pinned: dev},
		{name: "the settings' signer of another source does not apply", signedBy: ops, signers: []TrustedSigner{{Source: "^https://other/", Policy: signature.Policy{Issuer: google, Identity: dev}}}, wantLine: "no policy names", pinned: ops},
		{name: "the same signer as the installed version", signedBy: dev, previous: &lockfile.Signer{Issuer: google, Identity: dev}, wantLine: "as the signer of the installed version requires", pinned: dev},
		{name: "another signer than the installed version: shown to agree to", signedBy: ops, previous: &lockfile.Signer{Issuer: google, Identity: dev}, wantLine: "NOT by dev@acme.example (issuer https://accounts.google.com) who signed the installed version", pinned: ops},
		{name: "a lock cannot widen the settings' signers (a hostile project's gem.lock)", signedBy: ops,
			opt:     Options{Locked: &lockfile.Entry{Signer: &lockfile.Signer{Issuer: google, Identity: ops}}},
			signers: []TrustedSigner{{Policy: signature.Policy{Issuer: google, Identity: dev, Origin: "security.trustedSigners"}}},
			wantErr: "not by dev@acme.example (issuer https://accounts.google.com) from security.trustedSigners"},
		{name: "nor can the command line", signedBy: ops, opt: Options{Signer: exact(ops)},
			signers: []TrustedSigner{{Policy: signature.Policy{Issuer: google, Identity: dev, Origin: "security.trustedSigners"}}},
			wantErr: "from security.trustedSigners"},
		{name: "a lock narrows them", signedBy: ops,
			opt:     Options{Locked: &lockfile.Entry{Signer: &lockfile.Signer{Issuer: google, Identity: dev}}},
			signers: []TrustedSigner{{Policy: signature.Policy{Issuer: google, IdentityRegexp: "@acme\\.example$", Origin: "security.trustedSigners"}}},
			wantErr: "from gem.lock"},
		{name: "the root out of reach, nothing requires a signature: said, not refused", signedBy: dev, noRoot: true, wantLine: "its signature was NOT checked: the Sigstore trusted root is not usable"},
		{name: "the root out of reach, a signer named: refused", signedBy: dev, noRoot: true, opt: Options{Signer: exact(dev)}, wantErr: "the Sigstore trusted root is not usable"},
		{name: "another signer than the installed version, signatures required", signedBy: ops, require: true, signers: []TrustedSigner{{Policy: signature.Policy{Issuer: google, Identity: dev}}}, previous: &lockfile.Signer{Issuer: google, Identity: dev}, wantErr: "not by dev@acme.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			archive := signedArchive(t, auth, t.TempDir(), tc.signedBy)
			f := &Fetcher{}
			fetched, err := (&archiveSource{f: f, src: archive}).Fetch(context.Background(), t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sigs := signatures(t, auth)
			sigs.Require, sigs.RequireOrigin, sigs.Signers = tc.require, "/etc/system.json", tc.signers
			if tc.noRoot {
				sigs.Load = func() (*signature.Verifier, error) {
					return nil, &signature.RootError{Err: errors.New("fetching: no route to host")}
				}
			}
			in := &Installer{Signatures: sigs}
			pin := &lockfile.Entry{}
			s, err := in.signed(fetched, tc.opt, tc.previous, pin)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(s.line, tc.wantLine) {
				t.Fatalf("line %q, want %q", s.line, tc.wantLine)
			}
			if got := ""; pin.Signer != nil {
				got = pin.Signer.Identity
				if got != tc.pinned {
					t.Fatalf("pinned %q, want %q", got, tc.pinned)
				}
			} else if tc.pinned != "" {
				t.Fatalf("nothing pinned, want %q", tc.pinned)
			}
		})
	}
}

// TestInstallTamperedChangesNothing: a tampered archive fails before consent and leaves
// nothing installed; the untampered one installs with its signer in the receipt.
func TestInstallTamperedChangesNothing(t *testing.T) {
	auth, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive := signedArchive(t, auth, dir, dev)
	good, _ := os.ReadFile(archive)
	env := registrytest.Env(t, nil)
	in := &Installer{Env: env, Sources: &Fetcher{}, Out: io.Discard, Prompt: yes{}, Signatures: signatures(t, auth)}
	os.WriteFile(archive, tarGz(t, map[string]string{"ext/gemini-extension.json": `{"name": "ext", "version": "6.6.6"}`}), 0o644)
	_, err = in.Install(context.Background(), archive, Options{})
	var se *SignatureError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a SignatureError", err)
	}
	if _, err := os.Stat(filepath.Join(env.GeminiExtensionsDir(), "ext")); !os.IsNotExist(err) {
		t.Fatalf("a tampered extension was installed: %v", err)
	}
	os.WriteFile(archive, good, 0o644)
	res, err := in.Install(context.Background(), archive, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := registry.ReadReceipt(env, res.Path)
	if err != nil || rec.Pin == nil || rec.Pin.Signer == nil || rec.Pin.Signer.Identity != dev {
		t.Fatalf("receipt %+v, %v", rec, err)
	}
	if !strings.Contains(rec.ConsentText, "  * signed by dev@acme.example (issuer https://accounts.google.com)\n") {
		t.Fatalf("consent text: %s", rec.ConsentText)
	}
}

// BenchmarkInstallSigned installs the same archive, unsigned and with its signature checked:
// scripts/bench.sh reports what verification adds to an install.
func BenchmarkInstallSigned(b *testing.B) {
	auth, err := sigtest.New()
	if err != nil {
		b.Fatal(err)
	}
	for _, signed := range []bool{false, true} {
		name := map[bool]string{false: "unsigned", true: "signed"}[signed]
		b.Run(name, func(b *testing.B) {
			id := ""
			if signed {
				id = dev
			}
			archive := signedArchive(b, auth, b.TempDir(), id)
			sigs := signatures(b, auth)
			if _, err := sigs.verifier(); err != nil { // the root is read once per gem run
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				env := registrytest.Env(b, nil)
				in := &Installer{Env: env, Sources: &Fetcher{}, Out: io.Discard, Prompt: yes{}, Signatures: sigs}
				b.StartTimer()
				res, err := in.Install(context.Background(), archive, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if signed != (res.Pin.Signer != nil) {
					b.Fatalf("signer %+v", res.Pin.Signer)
				}
			}
		})
	}
}

func TestMirrorServes(t *testing.T) {
	for _, tc := range []struct {
		m      Mirror
		source string
		want   bool
	}{
		{Mirror{}, "https://github.com/acme/tool", true},
		{Mirror{Include: []string{"https://github.com/acme/**"}}, "https://github.com/acme/tool", true},
		{Mirror{Include: []string{"https://github.com/acme/**"}}, "https://github.com/other/tool", false},
		{Mirror{Exclude: []string{"https://github.com/**"}}, "https://github.com/acme/tool", false},
		{Mirror{Exclude: []string{"https://github.com/**"}}, "oci://registry.local/acme/tool", true},
		{Mirror{Include: []string{"oci://*/acme/*"}, Exclude: []string{"oci://*/acme/secret"}}, "oci://r.example/acme/secret", false},
	} {
		if got := tc.m.serves(tc.source); got != tc.want {
			t.Errorf("%+v serves %s: %v, want %v", tc.m, tc.source, got, tc.want)
		}
	}
}
