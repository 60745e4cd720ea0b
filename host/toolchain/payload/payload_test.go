package payload

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/toolchain/launcher"
)

// TestResolvePyPI: PEP 691's JSON page of a local index: latest is the newest final release
// (not a pre-release, not a yanked file's), an exact version is that one, the pin is the
// digest of the release's files; a page that is not PEP 691 JSON, and a missing release, fail.
func TestResolvePyPI(t *testing.T) {
	h := func(s string) string { return strings.Repeat(s, 64)[:64] }
	page := `{"meta": {"api-version": "1.1"}, "name": "weather-mcp", "files": [
		{"filename": "weather_mcp-1.2.0-py3-none-any.whl", "url": "x", "hashes": {"sha256": "` + h("a") + `"}},
		{"filename": "weather_mcp-1.2.0.tar.gz", "url": "x", "hashes": {"sha256": "` + h("b") + `"}},
		{"filename": "weather_mcp-1.10.0-py3-none-any.whl", "url": "x", "hashes": {"sha256": "` + h("c") + `"}},
		{"filename": "weather_mcp-2.0.0rc1-py3-none-any.whl", "url": "x", "hashes": {"sha256": "` + h("d") + `"}},
		{"filename": "weather_mcp-3.0.0-py3-none-any.whl", "url": "x", "hashes": {"sha256": "` + h("e") + `"}, "yanked": "broken"},
		{"filename": "other-9.0.0.tar.gz", "url": "x", "hashes": {"sha256": "` + h("f") + `"}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/simple/weather-mcp/":
			if r.Header.Get("Accept") != "application/vnd.pypi.simple.v1+json" {
				http.Error(w, "html only", http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
			io.WriteString(w, page)
		case "/html/weather-mcp/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	want120, _ := FilesDigest([]pypiFile{{Filename: "weather_mcp-1.2.0.tar.gz", Hashes: map[string]string{"sha256": h("b")}}, {Filename: "weather_mcp-1.2.0-py3-none-any.whl", Hashes: map[string]string{"sha256": h("a")}}})
	for _, tc := range []struct {
		name    string
		pkg     launcher.Package
		environ []string
		version string
		sha     string
		err     string
	}{
		{name: "latest: the newest final release", pkg: launcher.Package{Name: "Weather_MCP", Range: "latest", Registry: srv.URL + "/simple"}, version: "1.10.0"},
		{name: "an exact version, from UV_DEFAULT_INDEX", pkg: launcher.Package{Name: "weather-mcp", Range: "1.2.0"}, environ: []string{"UV_DEFAULT_INDEX=" + srv.URL + "/simple/"}, version: "1.2.0", sha: want120},
		{name: "no such release", pkg: launcher.Package{Name: "weather-mcp", Range: "9.9.9", Registry: srv.URL + "/simple"}, err: "has no release 9.9.9"},
		{name: "yanked", pkg: launcher.Package{Name: "weather-mcp", Range: "3.0.0", Registry: srv.URL + "/simple"}, err: "has no release 3.0.0"},
		{name: "not PEP 691", pkg: launcher.Package{Name: "weather-mcp", Range: "latest", Registry: srv.URL + "/html"}, err: "does not answer with PEP 691's JSON"},
		{name: "no such project", pkg: launcher.Package{Name: "nope", Range: "latest", Registry: srv.URL + "/simple"}, err: "404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ResolvePyPI(context.Background(), tc.environ, tc.pkg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != tc.version || len(r.SHA256) != 64 || tc.sha != "" && r.SHA256 != tc.sha {
				t.Fatalf("%+v", r)
			}
		})
	}
}
