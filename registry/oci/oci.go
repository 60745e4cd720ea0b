// Package oci owns extensions as OCI artifacts (oras.land/oras-go/v2): the format, pushing
// an extension to a registry and pulling the one for this platform back, with the Sigstore
// bundles attached to it as referrers.
//
// The format (gem's choice; nothing else defines one):
//   - A tag names an image index (application/vnd.oci.image.index.v1+json) with one manifest
//     per platform the extension ships binaries for (platform: Go's os and architecture,
//     linux/amd64), or one manifest with no platform when it ships none. The index's
//     annotations give the extension's name and version (org.opencontainers.image.title,
//     org.opencontainers.image.version).
//   - Each manifest is an OCI 1.1 artifact, artifactType application/vnd.gem.extension.v1,
//     with the empty config and one layer, application/vnd.gem.extension.layer.v1.tar+gzip:
//     the extension's files at the archive's root, without .git and gem's install metadata,
//     in a reproducible archive (sorted, no times, no owners), so the same folder gives the
//     same digest. A platform's layer leaves out the binaries of the other platforms (the
//     files matching the manifest's ${platform}/${arch} binary paths for them).
//   - A signature is a referrer of the platform manifest whose layer it signs:
//     artifactType application/vnd.dev.sigstore.bundle.v0.3+json, one layer the bundle
//     (cosign's layout for Sigstore bundles). A registry without the referrers API gets
//     the referrers tag (sha256-<digest>) oras-go maintains.
//   - Files artifacts (files.go) carry what a bundle holds beside extensions (an MCP
//     server's npm package with its dependency tree): one manifest of the caller's
//     artifactType, a layer per file (application/vnd.gem.file.v1) titled with its plain
//     name; read back only into a folder of the caller's, names checked.
//
// Registries are reached over HTTPS; plain HTTP only for a loopback address (a local test
// or mirror registry). Credentials come from the user's Docker configuration
// ($DOCKER_CONFIG/config.json or ~/.docker/config.json, with its credential helpers), then
// Podman's auth.json ($REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json,
// ~/.config/containers/auth.json); gem stores none.
package oci

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// The media types of gem's format.
const (
	ArtifactType       = "application/vnd.gem.extension.v1"
	LayerMediaType     = "application/vnd.gem.extension.layer.v1.tar+gzip"
	LayerMediaTypeZip  = "application/vnd.gem.extension.layer.v1.zip"
	BundleArtifactType = "application/vnd.dev.sigstore.bundle.v0.3+json"
)

// Scheme prefixes an OCI source: oci://registry/repository[:tag|@digest].
const Scheme = "oci://"

// IsRef reports whether s names an OCI source.
func IsRef(s string) bool { return strings.HasPrefix(s, Scheme) }

// Ref is a parsed oci:// reference.
type Ref struct{ registry.Reference }

// ParseRef parses oci://registry/repository[:tag|@digest] (no tag: latest).
func ParseRef(s string) (Ref, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Ref{}, &RefError{Ref: s, Reason: "it does not start with " + Scheme}
	}
	r, err := registry.ParseReference(rest)
	if err != nil {
		return Ref{}, &RefError{Ref: s, Reason: err.Error()}
	}
	if r.Reference == "" {
		r.Reference = "latest"
	}
	return Ref{r}, nil
}

// Repository is the oci:// name of the repository, without tag or digest.
func (r Ref) Repository() string { return Scheme + r.Registry + "/" + r.Reference.Repository }

// String is the full oci:// reference.
func (r Ref) String() string {
	if strings.HasPrefix(r.Reference.Reference, "sha256:") {
		return r.Repository() + "@" + r.Reference.Reference
	}
	return r.Repository() + ":" + r.Reference.Reference
}

// At is the reference to the same repository at tag or digest ref.
func (r Ref) At(ref string) Ref {
	c := r
	c.Reference.Reference = ref
	return c
}

// RefError is an oci:// reference that does not parse.
type RefError struct{ Ref, Reason string }

func (e *RefError) Error() string {
	return fmt.Sprintf("%q is not an OCI reference (oci://registry/repository:tag): %s", e.Ref, e.Reason)
}

// Client reaches registries.
type Client struct {
	// HTTP is the transport (nil: oras-go's retrying client). Proxies come from the
	// environment, as Go's default transport reads them.
	HTTP *http.Client
	// Home is the user's home folder and Getenv reads DOCKER_CONFIG, REGISTRY_AUTH_FILE and
	// XDG_RUNTIME_DIR: where the credentials are (Getenv nil: none are read).
	Home   string
	Getenv func(string) string
}

// repository is ref's repository, with the user's credentials, over plain HTTP only on a
// loopback address.
func (c *Client) repository(ref Ref) (*remote.Repository, error) {
	repo, err := remote.NewRepository(ref.Registry + "/" + ref.Reference.Repository)
	if err != nil {
		return nil, &RefError{Ref: ref.String(), Reason: err.Error()}
	}
	repo.PlainHTTP = Loopback(ref.Registry)
	base := c.HTTP
	if base == nil {
		base = retry.DefaultClient
	}
	repo.Client = &auth.Client{Client: base, Cache: auth.NewCache(), Credential: c.credentials()}
	return repo, nil
}

// Loopback reports whether host (host:port) is this machine's loopback address.
func Loopback(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// credentials are the user's Docker credentials, then Podman's: none is stored by gem.
func (c *Client) credentials() auth.CredentialFunc {
	if c.Getenv == nil {
		return auth.StaticCredential("", auth.EmptyCredential)
	}
	home := c.Home
	var stores []credentials.Store
	docker := filepath.Join(home, ".docker", "config.json")
	if d := c.Getenv("DOCKER_CONFIG"); d != "" {
		docker = filepath.Join(d, "config.json")
	}
	podman := []string{c.Getenv("REGISTRY_AUTH_FILE")}
	if x := c.Getenv("XDG_RUNTIME_DIR"); x != "" {
		podman = append(podman, filepath.Join(x, "containers", "auth.json"))
	}
	podman = append(podman, filepath.Join(home, ".config", "containers", "auth.json"))
	for _, p := range append([]string{docker}, podman...) {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if s, err := credentials.NewStore(p, credentials.StoreOptions{}); err == nil {
			stores = append(stores, s)
		}
	}
	if len(stores) == 0 {
		return auth.StaticCredential("", auth.EmptyCredential)
	}
	return credentials.Credential(credentials.NewStoreWithFallbacks(stores[0], stores[1:]...))
}

// Error is a registry that failed, with what gem was doing.
type Error struct {
	Op, Ref string
	Err     error
}

func (e *Error) Error() string { return fmt.Sprintf("%s %s: %v", e.Op, e.Ref, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// NotFoundError is a tag or digest the repository does not have.
type NotFoundError struct{ Ref string }

func (e *NotFoundError) Error() string { return e.Ref + " does not exist in its registry" }

// NoPlatformError is an extension with no manifest for this platform.
type NoPlatformError struct {
	Ref       string
	Platform  string
	Platforms []string
}

func (e *NoPlatformError) Error() string {
	return fmt.Sprintf("%s has no manifest for %s (it has: %s)", e.Ref, e.Platform, strings.Join(e.Platforms, ", "))
}

// NotExtensionError is an artifact that is not an extension in gem's format.
type NotExtensionError struct{ Ref, Got string }

func (e *NotExtensionError) Error() string {
	return fmt.Sprintf("%s is not a gem extension (its type is %q, not %s)", e.Ref, e.Got, ArtifactType)
}

func platformString(p *ocispec.Platform) string {
	if p == nil {
		return "any platform"
	}
	return p.OS + "/" + p.Architecture
}

func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	return nil
}
