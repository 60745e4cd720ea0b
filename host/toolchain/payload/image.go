package payload

// Container images: an MCP server started with `docker run … image[:tag]` (or podman's, as
// gem mcp install writes for the MCP registry's oci packages) fetches that image when it
// starts. gem pins it to the digest the tag names at install (the image index's, so every
// platform's image is covered), resolved with the user's Docker or Podman credentials, and
// the launcher is given image:tag@sha256:…, which docker and podman pull by digest, never
// what the tag names that day. An image given by digest is pinned as it is, with no network.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/toolchain/launcher"
	"github.com/gemhost/gem/registry/oci"
)

// imageRef is the registry reference of a docker image name: Docker Hub's when the first
// component names no host (library/ for official images), as docker reads it.
func imageRef(name, tag string) (oci.Ref, error) {
	host, rest, ok := strings.Cut(name, "/")
	if !ok || (!strings.ContainsAny(host, ".:") && host != "localhost") {
		host, rest = "docker.io", name
		if !strings.Contains(rest, "/") {
			rest = "library/" + rest
		}
	}
	return oci.ParseRef(oci.Scheme + host + "/" + rest + ":" + tag)
}

// ResolveImage asks the image's registry which digest its tag names now (the user's Docker,
// then Podman, credentials; HOME and their variables from environ).
func ResolveImage(ctx context.Context, environ []string, pkg launcher.Package) (Resolved, error) {
	if pkg.Digest != "" {
		return Resolved{Version: pkg.Range, SHA256: pkg.Digest}, nil
	}
	ref, err := imageRef(pkg.Name, pkg.Range)
	if err != nil {
		return Resolved{}, err
	}
	getenv := func(k string) string {
		for _, kv := range slices.Backward(environ) {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	c := &oci.Client{HTTP: &http.Client{Transport: http.DefaultTransport}, Home: getenv("HOME"), Getenv: getenv}
	digest, err := c.Resolve(ctx, ref)
	if err != nil {
		return Resolved{}, err
	}
	hex, ok := strings.CutPrefix(digest, "sha256:")
	if !ok {
		return Resolved{}, fmt.Errorf("%s names %s, not a sha256 digest", ref, digest)
	}
	return Resolved{Version: pkg.Range, SHA256: hex}, nil
}
