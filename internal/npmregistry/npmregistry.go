// Package npmregistry is a local npm registry for tests: an HTTP server on 127.0.0.1 that
// speaks the registry's wire format for installs (GET /<name> answers the packument with
// dist-tags and versions, each with dist.tarball, dist.shasum and dist.integrity; GET of a
// tarball answers the .tgz), so the real npm and npx fetch from it as from the public one.
// It stands in only for the public registry, which tests cannot reach.
package npmregistry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Registry is a running local registry.
type Registry struct {
	URL      string // with a trailing slash, as npm's registry setting
	mu       sync.Mutex
	packages map[string]map[string][]byte // name → version → tarball
	srv      *httptest.Server
}

// Start runs a registry until the test ends.
func Start(t testing.TB) *Registry {
	r := &Registry{packages: map[string]map[string][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	r.URL = r.srv.URL + "/"
	return r
}

// Publish adds name@version made of files (paths relative to the package's folder; a
// package.json is written when files has none).
func (r *Registry) Publish(name, version string, files map[string]string) {
	if _, ok := files["package.json"]; !ok {
		files["package.json"] = `{"name": "` + name + `", "version": "` + version + `"}`
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for rel, text := range files {
		mode := int64(0o644)
		if strings.HasPrefix(rel, "bin/") || strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		tw.WriteHeader(&tar.Header{Name: "package/" + rel, Mode: mode, Size: int64(len(text)), Typeflag: tar.TypeReg})
		tw.Write([]byte(text))
	}
	tw.Close()
	gz.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.packages[name] == nil {
		r.packages[name] = map[string][]byte{}
	}
	r.packages[name][version] = buf.Bytes()
}

func tarballName(name, version string) string {
	base := name[strings.LastIndex(name, "/")+1:]
	return "/" + name + "/-/" + base + "-" + version + ".tgz"
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	path, _ := url.PathUnescape(req.URL.EscapedPath())
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, versions := range r.packages {
		for v, tgz := range versions {
			if path == tarballName(name, v) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(tgz)
				return
			}
		}
	}
	name := strings.TrimPrefix(path, "/")
	versions, ok := r.packages[name]
	if !ok {
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
		return
	}
	doc := map[string]any{"name": name, "dist-tags": map[string]string{}, "versions": map[string]any{}}
	latest := ""
	for v, tgz := range versions {
		s1 := sha1.Sum(tgz)
		s512 := sha512.Sum512(tgz)
		doc["versions"].(map[string]any)[v] = map[string]any{"name": name, "version": v, "dist": map[string]string{
			"tarball":   r.srv.URL + tarballName(name, v),
			"shasum":    hex.EncodeToString(s1[:]),
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		}}
		if v > latest {
			latest = v
		}
	}
	doc["dist-tags"].(map[string]string)["latest"] = latest
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}
