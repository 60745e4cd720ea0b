package payload

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	ggcr "github.com/google/go-containerregistry/pkg/registry"

	"github.com/gemhost/gem/host/toolchain/launcher"
)

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
	pkg, ok := launcher.PackageOf("docker", []string{"run", "-i", host + "/acme/srv:1.0"})
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
	byDigest, _ := launcher.PackageOf("docker", []string{"run", "127.0.0.1:9/acme/srv@sha256:" + first.SHA256})
	if r, err := ResolveImage(ctx, nil, byDigest); err != nil || r.SHA256 != first.SHA256 {
		t.Fatalf("by digest: %+v %v", r, err)
	}
	missing, _ := launcher.PackageOf("docker", []string{"run", host + "/acme/none:1"})
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
