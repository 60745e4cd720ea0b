package payload

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	ggcr "github.com/google/go-containerregistry/pkg/registry"

	"github.com/gemhost/gem/registry/lockfile"
)

func TestImagePackageOf(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name    string
		command string
		args    []string
		ok      bool
		image   string
		tag     string
		digest  string
		pinned  []string // pinned at tag "1.0" and digest hex
	}{
		{"registry plan", "docker", []string{"run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/srv:1.0", "--flag"}, true, "ghcr.io/acme/srv", "1.0", "",
			[]string{"run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/srv:1.0@sha256:" + hex, "--flag"}},
		{"hub, no tag", "/usr/bin/docker", []string{"run", "--rm", "-i", "mcp/fetch"}, true, "mcp/fetch", "latest", "", []string{"run", "--rm", "-i", "mcp/fetch:1.0@sha256:" + hex}},
		{"values with =, and a port", "podman", []string{"run", "--env=A=1", "--name", "x", "-i", "localhost:5000/srv:2"}, true, "localhost:5000/srv", "2", "", []string{"run", "--env=A=1", "--name", "x", "-i", "localhost:5000/srv:1.0@sha256:" + hex}},
		{"container run", "docker", []string{"container", "run", "-i", "alpine"}, true, "alpine", "latest", "", []string{"container", "run", "-i", "alpine:1.0@sha256:" + hex}},
		{"by digest already", "docker", []string{"run", "-i", "acme/srv@sha256:" + hex}, true, "acme/srv", "latest", hex, nil},
		{"not run", "docker", []string{"exec", "-i", "box", "srv"}, false, "", "", "", nil},
		{"no image", "docker", []string{"run", "-i"}, false, "", "", "", nil},
		{"an upper-case path is no image", "docker", []string{"run", "Not/An/Image"}, false, "", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := PackageOf(tc.command, tc.args)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, tc.ok, p)
			}
			if !ok {
				return
			}
			if p.Type != "oci" || p.Name != tc.image || p.Range != tc.tag || p.Digest != tc.digest {
				t.Fatalf("got %+v, want %s:%s@%s", p, tc.image, tc.tag, tc.digest)
			}
			if tc.pinned != nil {
				got := Pin(tc.args, p, lockfile.Payload{Type: "oci", Name: p.Name, Version: "1.0", SHA256: hex})
				if !slices.Equal(got, tc.pinned) {
					t.Fatalf("pinned %q, want %q", got, tc.pinned)
				}
				if tc.args[p.Index] == got[p.Index] {
					t.Fatal("the caller's args were changed")
				}
			}
		})
	}
}

func TestImageRef(t *testing.T) {
	for name, want := range map[string]string{
		"alpine":                "oci://docker.io/library/alpine:3",
		"mcp/fetch":             "oci://docker.io/mcp/fetch:3",
		"ghcr.io/a/b":           "oci://ghcr.io/a/b:3",
		"localhost/x":           "oci://localhost/x:3",
		"127.0.0.1:5000/team/x": "oci://127.0.0.1:5000/team/x:3",
	} {
		r, err := imageRef(name, "3")
		if err != nil || r.String() != want {
			t.Errorf("imageRef(%q) = %s, %v; want %s", name, r.String(), err, want)
		}
	}
}

// TestResolveImage: the digest a tag names on a registry (in-process, on 127.0.0.1); a
// tag moved gives another; an image given by digest needs no registry; a missing one fails.
func TestResolveImage(t *testing.T) {
	srv := httptest.NewServer(ggcr.New(ggcr.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	put := func(body string) {
		req := httptest.NewRequest("PUT", "/v2/acme/srv/manifests/1.0", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		resp, err := srv.Client().Do(withURL(req, srv.URL))
		if err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("put manifest: %v %v", err, resp)
		}
	}
	manifest := func(annotation string) string {
		return `{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", "size": 2}, "layers": [], "annotations": {"v": "` + annotation + `"}}`
	}
	// the empty config blob the manifests name
	req := httptest.NewRequest("POST", "/v2/acme/srv/blobs/uploads/?digest=sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", strings.NewReader("{}"))
	if resp, err := srv.Client().Do(withURL(req, srv.URL)); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("put blob: %v %v", err, resp)
	}
	put(manifest("one"))
	ctx := context.Background()
	pkg, ok := PackageOf("docker", []string{"run", "-i", host + "/acme/srv:1.0"})
	if !ok {
		t.Fatal("no image")
	}
	first, err := ResolveImage(ctx, nil, pkg)
	if err != nil || len(first.SHA256) != 64 || first.Version != "1.0" {
		t.Fatalf("%+v %v", first, err)
	}
	put(manifest("two"))
	second, err := ResolveImage(ctx, nil, pkg)
	if err != nil || second.SHA256 == first.SHA256 {
		t.Fatalf("the tag moved: %+v %v (first %s)", second, err, first.SHA256)
	}
	byDigest, _ := PackageOf("docker", []string{"run", "127.0.0.1:9/acme/srv@sha256:" + first.SHA256})
	if r, err := ResolveImage(ctx, nil, byDigest); err != nil || r.SHA256 != first.SHA256 {
		t.Fatalf("by digest: %+v %v", r, err)
	}
	missing, _ := PackageOf("docker", []string{"run", host + "/acme/none:1"})
	if _, err := ResolveImage(ctx, nil, missing); err == nil {
		t.Fatal("a missing image resolved")
	}
}

// withURL turns a server-side test request into one a client sends to base.
func withURL(req *http.Request, base string) *http.Request {
	out, _ := http.NewRequest(req.Method, base+req.URL.RequestURI(), req.Body)
	out.Header = req.Header
	return out
}
