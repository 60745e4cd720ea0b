package install

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/filehash"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/signature"
)

// Signatures is how installs check signatures: the settings' security.requireSignatures and
// security.trustedSigners, and the verifier (its trusted root), loaded the first time a
// signature is checked. Nil: signatures found are still verified (a bad one always fails)
// against the source's default policy, none is required.
type Signatures struct {
	Require       bool
	RequireOrigin string // the settings file that requires them (for the error)
	Signers       []TrustedSigner
	Load          func() (*signature.Verifier, error)

	once sync.Once
	v    *signature.Verifier
	err  error
}

// TrustedSigner is a signer policy for the sources matching Source (a regular expression;
// empty: every source).
type TrustedSigner struct {
	Source string
	signature.Policy
}

func (s *Signatures) verifier() (*signature.Verifier, error) {
	if s == nil || s.Load == nil {
		return nil, &signature.RootError{Err: errors.New("no trusted root is configured")}
	}
	s.once.Do(func() { s.v, s.err = s.Load() })
	return s.v, s.err
}

// bundleNames are the names a Sigstore bundle is published under beside what it signs:
// cosign's and sigstore-python's conventions.
var bundleNames = []string{".sigstore.json", ".sigstore", ".bundle"}

// maxBundle bounds a bundle's size (a real one is a few KiB).
const maxBundle = 1 << 20

// UnsignedError is an extension with no signature where one is needed: the settings require
// signatures, or a signer is expected (Want: a flag, the lock, the settings' signers).
type UnsignedError struct {
	Source  string
	Setting string // security.requireSignatures, when that is why
	Origin  string // the file that set it
	Want    []signature.Policy
	// NotArchive: the source is a folder or a git repository, which carries no signature
	// gem can check (only archives and release assets are signed).
	NotArchive bool
}

func (e *UnsignedError) Error() string {
	why := ""
	switch {
	case len(e.Want) > 0:
		why = "a signature by " + signature.Either(e.Want) + " is expected"
	default:
		why = e.Setting + " is set in " + e.Origin
	}
	what := "has no signature"
	if e.NotArchive {
		what = "is not an archive or a release asset, so it carries no signature gem can check"
	}
	return fmt.Sprintf("%s %s, and %s", e.Source, what, why)
}

// signing is what the signature check of a fetched extension found: what pins it, and the
// line the consent shows.
type signing struct {
	signer *lockfile.Signer
	line   string
}

// policies are the signer policies that apply to a source, in groups a signer must each
// satisfy: the flags', the lock's signer and the settings' signers for the source all apply
// together, so a cloned project's gem.lock (or a bundle's) can narrow whom the administrator's
// security.trustedSigners allow, never widen it. When none of these applies: the signer of the
// version installed (an update; onlyPrevious), else a GitHub release's own repository's
// workflows. required says whether a missing signature fails.
func (in *Installer) policies(f *Fetched, opt Options, previous *lockfile.Signer) (groups [][]signature.Policy, required, onlyPrevious bool) {
	if opt.Signer != nil {
		groups = append(groups, []signature.Policy{*opt.Signer})
	}
	if opt.Locked != nil && opt.Locked.Signer != nil {
		groups = append(groups, []signature.Policy{signature.Exactly(signature.Signer(*opt.Locked.Signer), "gem.lock")})
	}
	if in.Signatures != nil {
		var admin []signature.Policy
		for _, t := range in.Signatures.Signers {
			if t.Source == "" {
				admin = append(admin, t.Policy)
			} else if re, err := regexp.Compile(t.Source); err == nil && re.MatchString(f.Meta.Source) {
				admin = append(admin, t.Policy)
			}
		}
		if len(admin) > 0 {
			groups = append(groups, admin)
		}
	}
	switch {
	case len(groups) > 0:
		return groups, true, false
	case previous != nil:
		return [][]signature.Policy{{signature.Exactly(signature.Signer(*previous), "the signer of the installed version")}}, false, true
	case f.Meta.Type == "github-release":
		if owner, repo, ok := ownerRepo(f.Meta.Source); ok {
			return [][]signature.Policy{{signature.GitHubRepository(owner, repo)}}, false, false
		}
	}
	return nil, false, false
}

// verifyAll verifies bundle against each group of policies (one Verify a group; no group:
// any signer), returning the first group's result.
func verifyAll(v *signature.Verifier, bundle, digest []byte, groups [][]signature.Policy) (*signature.Verified, error) {
	if len(groups) == 0 {
		return v.Verify(bundle, digest)
	}
	var first *signature.Verified
	for i, g := range groups {
		res, err := v.Verify(bundle, digest, g...)
		if i == 0 {
			first = res
		}
		if err != nil {
			if first == nil {
				first = res
			}
			return first, err
		}
	}
	return first, nil
}

// checkSignature verifies what f's bundles say against the policies that apply, and returns
// the signer to pin and the consent line; an unsigned extension where a signature is needed,
// a signature that does not verify, or a signer no policy allows fail (a signer that differs
// from the installed version's only is shown, for the user to agree to).
func (in *Installer) checkSignature(f *Fetched, opt Options, previous *lockfile.Signer) (*signing, error) {
	groups, required, onlyPrevious := in.policies(f, opt, previous)
	var policies []signature.Policy
	for _, g := range groups {
		policies = append(policies, g...)
	}
	if in.Signatures != nil && in.Signatures.Require {
		required = true
	}
	if len(f.Bundles) == 0 {
		if required {
			e := &UnsignedError{Source: f.Meta.Source, Want: policies, NotArchive: f.Archive == ""}
			if (len(policies) == 0 || onlyPrevious) && in.Signatures != nil {
				e.Want, e.Setting, e.Origin = nil, "security.requireSignatures", in.Signatures.RequireOrigin
			}
			return nil, e
		}
		if previous != nil {
			return &signing{line: "NOT signed (the installed version was signed by " + signature.Signer(*previous).String() + ")"}, nil
		}
		return &signing{}, nil
	}
	if f.Archive == "" {
		return nil, fmt.Errorf("a signature was given for %s, which is not an archive: only an archive's bytes are signed", f.Meta.Source)
	}
	digest, err := f.sha256()
	if err != nil {
		return nil, err
	}
	v, err := in.Signatures.verifier()
	if err != nil {
		if required {
			return nil, err
		}
		// Nothing asks for a signature here: one that cannot be checked (Sigstore's root out
		// of reach behind a firewall) does not stop the install; the consent says so.
		return &signing{line: "its signature was NOT checked: " + err.Error()}, nil
	}
	var verified *signature.Verified
	var first error
	bundleFrom := ""
	for _, b := range f.Bundles {
		res, err := verifyAll(v, b.Data, digest, groups)
		if err == nil {
			verified, bundleFrom = res, b.From
			break
		}
		var ie *signature.IdentityError
		if errors.As(err, &ie) && onlyPrevious && !required {
			// Signed by someone else than the installed version: shown, for the user to agree.
			s := lockfile.Signer(res.Signer)
			return &signing{signer: &s, line: fmt.Sprintf("signed by %s, NOT by %s who signed the installed version (%s)", res.Signer, signature.Signer(*previous), b.From)}, nil
		}
		if first == nil {
			first = fmt.Errorf("%s: %w", b.From, err)
		}
	}
	if verified == nil {
		return nil, &SignatureError{Source: f.Meta.Source, Err: first}
	}
	s := lockfile.Signer(verified.Signer)
	// The consent's line names the signer only (an update compares it with the line agreed
	// to); how it was verified follows on a line of its own.
	how := "    (" + verified.Kind
	if verified.PredicateType != "" {
		how += " " + verified.PredicateType
	}
	how += " from " + bundleFrom
	if verified.Policy != nil && verified.Policy.Origin != "" {
		how += ", as " + verified.Policy.Origin + " requires)"
	} else if verified.Policy == nil {
		how += "; no policy names this source's signer: check it is who you expect)"
	} else {
		how += ")"
	}
	line := "signed by " + verified.Signer.String() + "\n" + how
	return &signing{signer: &s, line: line}, nil
}

// SignatureError is an extension whose signature failed: it does not verify, or its signer
// is not one a policy allows.
type SignatureError struct {
	Source string
	Err    error
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("the signature of %s: %v", e.Source, e.Err)
}

func (e *SignatureError) Unwrap() error { return e.Err }

// signed checks f's signature (the bundle file opt.Bundle names, else the ones found beside
// it) and pins its signer.
func (in *Installer) signed(f *Fetched, opt Options, previous *lockfile.Signer, pin *lockfile.Entry) (*signing, error) {
	if opt.Bundle != "" {
		data, err := readSmall(opt.Bundle)
		if err != nil {
			return nil, fmt.Errorf("--bundle: %w", err)
		}
		f.Bundles = []Bundle{{Data: data, From: opt.Bundle}}
	}
	s, err := in.checkSignature(f, opt, previous)
	if err != nil {
		return nil, err
	}
	pin.Signer = s.signer
	return s, nil
}

// withSigning adds the signature line to a consent text, after its first line.
func withSigning(text string, s *signing) string {
	if s == nil || s.line == "" {
		return text
	}
	head, rest, _ := strings.Cut(text, "\n")
	return head + "\n  * " + s.line + "\n" + rest
}

// withPayloads adds under each MCP server's consent line the package its launcher is pinned
// to (a line of its own: shown, not compared by an update, whose packages move).
func withPayloads(text string, payloads []lockfile.Payload) string {
	if len(payloads) == 0 {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		for _, p := range payloads {
			if strings.HasPrefix(l, "  * MCP server "+strconv.Quote(p.Server)+" (stdio)") {
				fmt.Fprintf(&b, "    (fetches %s %s@%s when it starts, pinned)\n", p.Type, p.Name, p.Version)
			}
		}
	}
	return b.String()
}

// Bundle is a Sigstore bundle found for what was fetched, and where it was found.
type Bundle struct {
	Data []byte
	From string
}

// sha256 is the digest of the archive fetched (computed once).
func (f *Fetched) sha256() ([]byte, error) {
	if f.digest == nil {
		sum, err := filehash.SHA256(f.Archive)
		if err != nil {
			return nil, err
		}
		if f.digest, err = hex.DecodeString(sum); err != nil {
			return nil, err
		}
	}
	return f.digest, nil
}

// bundlesBeside finds the bundle published beside an archive: a file next to a local one, or
// a URL next to a downloaded one (cosign's and sigstore-python's names).
func (f *Fetcher) bundlesBeside(ctx context.Context, archive string) []Bundle {
	if !strings.Contains(archive, "://") {
		if path, ok := BundleBeside(archive); ok {
			if data, err := readSmall(path); err == nil {
				return []Bundle{{Data: data, From: path}}
			}
		}
		return nil
	}
	for _, ext := range bundleNames {
		u, err := url.Parse(archive)
		if err != nil {
			return nil
		}
		u.Path += ext
		if data, err := f.getSmall(ctx, u.String()); err == nil && data != nil {
			return []Bundle{{Data: data, From: WithoutPassword(u.String())}}
		}
	}
	return nil
}

// BundleBeside is the Sigstore bundle file published beside a local archive, if there is one
// (cosign's and sigstore-python's names).
func BundleBeside(archive string) (string, bool) {
	for _, ext := range bundleNames {
		if fi, err := os.Stat(archive + ext); err == nil && fi.Mode().IsRegular() {
			return archive + ext, true
		}
	}
	return "", false
}

func readSmall(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, maxBundle))
}

// getSmall fetches a small file: nil when there is none (404).
func (f *Fetcher) getSmall(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	f.authorize(req)
	resp, err := f.client().Do(req)
	if err != nil {
		return nil, unreachable(req.URL, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return io.ReadAll(io.LimitReader(resp.Body, maxBundle))
	case http.StatusNotFound, http.StatusForbidden, http.StatusUnauthorized:
		return nil, nil
	}
	return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
}

// releaseBundles are the signatures of a release asset: a bundle published as an asset of
// the release beside it, else the attestations GitHub keeps for its digest
// (GET /repos/{owner}/{repo}/attestations/sha256:{digest}, what `gh attestation verify` reads).
func (f *Fetcher) releaseBundles(ctx context.Context, owner, repo string, rel *release, asset string, fetched *Fetched) []Bundle {
	for _, ext := range bundleNames {
		for _, a := range rel.Assets {
			if a.Name == asset+ext {
				if data, err := f.getSmall(ctx, a.URL); err == nil && data != nil {
					return []Bundle{{Data: data, From: "release asset " + a.Name}}
				}
			}
		}
	}
	digest, err := fetched.sha256()
	if err != nil {
		return nil
	}
	var out struct {
		Attestations []struct {
			Bundle json.RawMessage `json:"bundle"`
		} `json:"attestations"`
	}
	u := f.apiBase() + "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/attestations/sha256:" + hex.EncodeToString(digest)
	if err := f.getJSON(ctx, u, &out); err != nil {
		return nil
	}
	var bs []Bundle
	for _, a := range out.Attestations {
		if len(a.Bundle) > 0 {
			bs = append(bs, Bundle{Data: a.Bundle, From: "GitHub attestation of " + asset})
		}
	}
	return bs
}
