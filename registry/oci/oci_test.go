package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	ggcr "github.com/google/go-containerregistry/pkg/registry"
)

// extension writes an extension that ships a binary for two platforms.
func extension(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"gemini-extension.json":          `{"name": "tool", "version": "1.2.0", "commands": {"tool": {"type": "executable", "binary": "${extensionPath}/bin/${platform}/${arch}/tool"}}}`,
		"GEMINI.md":                      "context",
		"bin/linux/x64/tool":             "linux binary",
		"bin/darwin/arm64/tool":          "darwin binary",
		".git/config":                    "[core]",
		"commands/hello.toml":            `prompt = "hi"`,
		".gemini-extension-install.json": `{"source": "x"}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasPrefix(rel, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// registryServer is go-containerregistry's in-process registry on 127.0.0.1, requiring
// basic auth when user is given.
func registryServer(t *testing.T, referrers bool, user, password string) string {
	h := ggcr.New(ggcr.WithReferrersSupport(referrers), ggcr.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); user != "" && (!ok || u != user || p != password) {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func names(t *testing.T, archive []byte) []string {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			out = append(out, h.Name)
		}
	}
	sort.Strings(out)
	return out
}

func TestPack(t *testing.T) {
	dir := extension(t)
	x, layers, err := Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	if x.Name != "tool" || len(layers) != 2 {
		t.Fatalf("%s: %d layers", x.Name, len(layers))
	}
	want := map[string]string{"darwin/arm64": "bin/darwin/arm64/tool", "linux/amd64": "bin/linux/x64/tool"}
	for _, l := range layers {
		got := strings.Join(names(t, l.Archive), ",")
		p := l.Platform.OS + "/" + l.Platform.Architecture
		if got != "GEMINI.md,"+want[p]+",commands/hello.toml,gemini-extension.json" {
			t.Errorf("%s layer: %s", p, got)
		}
	}
	// The same folder gives the same bytes.
	_, again, _ := Pack(dir)
	if !bytes.Equal(layers[0].Archive, again[0].Archive) {
		t.Error("packing is not reproducible")
	}
	// A link leading out is refused.
	os.Symlink("/etc/passwd", filepath.Join(dir, "passwd"))
	if _, _, err := Pack(dir); err == nil || !strings.Contains(err.Error(), "passwd is a link leading out") {
		t.Fatalf("err = %v", err)
	}
}

func TestPushPull(t *testing.T) {
	for _, tc := range []struct {
		name      string
		referrers bool
	}{{"referrers API", true}, {"referrers tag (no API)", false}} {
		t.Run(tc.name, func(t *testing.T) {
			host := registryServer(t, tc.referrers, "", "")
			ctx := context.Background()
			c := &Client{}
			x, layers, err := Pack(extension(t))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := ParseRef("oci://" + host + "/acme/tool:v1.2.0")
			if err != nil {
				t.Fatal(err)
			}
			bundles := make([][]byte, len(layers))
			bundles[1] = []byte(`{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"}`) // linux/amd64's
			pushed, err := c.Push(ctx, ref, x.Name, x.Version, layers, bundles)
			if err != nil {
				t.Fatal(err)
			}
			if len(pushed.Manifests) != 2 || pushed.Manifests[1].Signature == "" || pushed.Manifests[0].Signature != "" {
				t.Fatalf("%+v", pushed)
			}
			file := filepath.Join(t.TempDir(), "layer.tar.gz")
			got, err := c.Pull(ctx, ref, "linux", "amd64", file)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(file)
			if got.Name != "tool" || got.Version != "1.2.0" || got.Digest != pushed.Digest || got.Layer != pushed.Manifests[1].Layer || !bytes.Equal(data, layers[1].Archive) {
				t.Fatalf("pulled %+v", got)
			}
			if len(got.Bundles) != 1 || !bytes.Equal(got.Bundles[0], bundles[1]) {
				t.Fatalf("bundles %q", got.Bundles)
			}
			// by digest, the same
			if byDigest, err := c.Pull(ctx, ref.At(pushed.Digest), "darwin", "arm64", file); err != nil || byDigest.Layer != pushed.Manifests[0].Layer || len(byDigest.Bundles) != 0 {
				t.Fatalf("%+v %v", byDigest, err)
			}
			_, err = c.Pull(ctx, ref, "windows", "amd64", file)
			var np *NoPlatformError
			if !errors.As(err, &np) || !strings.Contains(err.Error(), "it has: darwin/arm64, linux/amd64") {
				t.Fatalf("err = %v", err)
			}
			_, err = c.Pull(ctx, ref.At("v9"), "linux", "amd64", file)
			var nf *NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("err = %v", err)
			}
			if d, err := c.Resolve(ctx, ref); err != nil || d != pushed.Digest {
				t.Fatalf("resolve %s %v", d, err)
			}
		})
	}
}

// TestCredentials: the user's Docker config logs in; without it the registry refuses.
func TestCredentials(t *testing.T) {
	host := registryServer(t, true, "alice", "s3cret")
	home := t.TempDir()
	c := &Client{Home: home, Getenv: func(string) string { return "" }}
	ref, _ := ParseRef("oci://" + host + "/acme/tool:v1")
	_, layers, _ := Pack(extension(t))
	if _, err := c.Push(context.Background(), ref, "tool", "1", layers[:1], nil); err == nil || !strings.Contains(err.Error(), "credential not found") {
		t.Fatalf("anonymous push: %v", err)
	}
	os.MkdirAll(filepath.Join(home, ".docker"), 0o700)
	auth := base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	os.WriteFile(filepath.Join(home, ".docker", "config.json"), []byte(`{"auths": {"`+host+`": {"auth": "`+auth+`"}}}`), 0o600)
	if _, err := c.Push(context.Background(), ref, "tool", "1", layers[:1], nil); err != nil {
		t.Fatal(err)
	}
	// Podman's file when Docker has none.
	os.Remove(filepath.Join(home, ".docker", "config.json"))
	os.MkdirAll(filepath.Join(home, ".config", "containers"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "containers", "auth.json"), []byte(`{"auths": {"`+host+`": {"auth": "`+auth+`"}}}`), 0o600)
	if _, err := c.Pull(context.Background(), ref, "darwin", "arm64", filepath.Join(t.TempDir(), "l")); err != nil {
		t.Fatal(err)
	}
}

func TestParseRef(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"oci://127.0.0.1:5000/acme/tool:v1", "oci://127.0.0.1:5000/acme/tool:v1", ""},
		{"oci://ghcr.io/acme/tool", "oci://ghcr.io/acme/tool:latest", ""},
		{"oci://ghcr.io/acme/tool@sha256:" + strings.Repeat("a", 64), "oci://ghcr.io/acme/tool@sha256:" + strings.Repeat("a", 64), ""},
		{"ghcr.io/acme/tool", "", "does not start with oci://"},
		{"oci://ghcr.io/Acme/tool", "", "not an OCI reference"},
	} {
		r, err := ParseRef(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v", tc.in, err)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("%s: %s, %v", tc.in, r.String(), err)
		}
	}
	for host, want := range map[string]bool{"127.0.0.1:5000": true, "localhost:5000": true, "[::1]:5000": true, "ghcr.io": false, "10.0.0.1:5000": false} {
		if Loopback(host) != want {
			t.Errorf("Loopback(%s) != %v", host, want)
		}
	}
}

// TestLayout: an extension and a lock written to a layout folder, tarred, read back from the
// tar; a tag it lacks is a NotFoundError; what is not a layout says so.
func TestLayout(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	l, err := CreateLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	layer, err := PackFolder(extension(t))
	if err != nil {
		t.Fatal(err)
	}
	tag, err := MirrorTag("h1:" + base64.StdEncoding.EncodeToString(make([]byte, 32)))
	if err != nil || tag != "h1-"+strings.Repeat("0", 64) {
		t.Fatalf("tag %q %v", tag, err)
	}
	if _, err := l.Push(ctx, tag, "tool", "1.2.0", []Layer{layer}, [][]byte{[]byte(`{"bundle": 1}`)}); err != nil {
		t.Fatal(err)
	}
	if err := l.PutLock(ctx, []byte(`{"lockVersion": 1}`)); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(t.TempDir(), "bundle.tar")
	if err := WriteTar(dir, tarball); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, tarball} {
		r, err := OpenLayout(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "layer")
		got, err := r.Pull(ctx, tag, "linux", "amd64", file)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(file)
		if got.Name != "tool" || !bytes.Equal(data, layer.Archive) || len(got.Bundles) != 1 {
			t.Fatalf("%s: %+v", path, got)
		}
		if lock, err := r.Lock(ctx); err != nil || string(lock) != `{"lockVersion": 1}` {
			t.Fatalf("lock %q %v", lock, err)
		}
		_, err = r.Pull(ctx, "h1-"+strings.Repeat("1", 64), "linux", "amd64", file)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("err = %v", err)
		}
	}
	// the same folder packs to the same bytes: a bundle is reproducible
	again, _ := PackFolder(extension(t))
	if !bytes.Equal(again.Archive, layer.Archive) {
		t.Error("PackFolder is not reproducible")
	}
	notLayout := filepath.Join(t.TempDir(), "x.tar")
	os.WriteFile(notLayout, []byte("not a tar"), 0o644)
	if _, err := OpenLayout(ctx, notLayout); err == nil || !strings.Contains(err.Error(), "is not an OCI image layout") {
		t.Fatalf("err = %v", err)
	}
	if _, err := MirrorTag("sha256:abc"); err == nil {
		t.Fatal("a non-h1 hash was accepted")
	}
}
