// Package npmregistry is a local npm registry for tests: an HTTP handler that serves the
// packages packed in a folder (npm pack's .tgz files) in the registry's wire format for
// installs — GET /<name> answers the packument (dist-tags, versions with dist.tarball,
// dist.shasum and dist.integrity), GET /<name>/-/<file>.tgz the tarball — so the real npm and
// npx fetch from it as from the public registry, which tests cannot reach.
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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Handler serves the .tgz files of dir; base is the registry's own URL (with a trailing
// slash: the tarballs' addresses start with it). Each tarball is held back for delay, as a
// slow network would.
func Handler(dir, base string, delay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.Trim(r.URL.Path, "/")
		if strings.Contains(name, "/-/") {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
			http.ServeFile(w, r, filepath.Join(dir, filepath.Base(name)))
			return
		}
		name = strings.ReplaceAll(strings.ReplaceAll(name, "%2f", "/"), "%2F", "/")
		tgzs, _ := filepath.Glob(filepath.Join(dir, fileStem(name)+"-*.tgz"))
		sort.Strings(tgzs)
		versions := map[string]any{}
		latest := ""
		for _, tgz := range tgzs {
			data, err := os.ReadFile(tgz)
			if err != nil {
				continue
			}
			pkg := packageJSON(data)
			if pkg["name"] != name {
				continue // another package whose name starts alike
			}
			v, _ := pkg["version"].(string)
			sha1sum := sha1.Sum(data)
			sha512sum := sha512.Sum512(data)
			pkg["dist"] = map[string]any{
				"tarball":   base + name + "/-/" + filepath.Base(tgz),
				"shasum":    hex.EncodeToString(sha1sum[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sha512sum[:]),
			}
			versions[v] = pkg
			latest = v
		}
		if len(versions) == 0 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": map[string]string{"latest": latest}, "versions": versions})
	})
}

// fileStem is how npm pack names a package's tarball, before the version: "@acme/x" is
// "acme-x".
func fileStem(name string) string {
	return strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-")
}

// Pack writes name@version, made of files (paths relative to the package's folder; a
// package.json is added when files has none), into dir as npm pack would name it.
func Pack(dir, name, version string, files map[string]string) error {
	if _, ok := files["package.json"]; !ok {
		files["package.json"] = `{"name": "` + name + `", "version": "` + version + `"}`
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		mode := int64(0o644)
		if strings.HasPrefix(rel, "bin/") || strings.HasSuffix(rel, ".sh") || strings.HasSuffix(rel, ".js") {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + rel, Mode: mode, Size: int64(len(files[rel])), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		tw.Write([]byte(files[rel]))
	}
	tw.Close()
	gz.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fileStem(name)+"-"+version+".tgz"), buf.Bytes(), 0o644)
}

// packageJSON is the package.json inside a tarball.
func packageJSON(tgz []byte) map[string]any {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return map[string]any{}
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return map[string]any{}
		}
		if h.Name == "package/package.json" {
			var pkg map[string]any
			json.NewDecoder(tr).Decode(&pkg)
			return pkg
		}
	}
}
