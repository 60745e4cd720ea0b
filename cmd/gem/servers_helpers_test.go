package main

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/internal/npmregistry"
	"github.com/gemhost/gem/registry/mcpregistry"
)

func init() {
	// fakegemini SCRIPT: serve the scripted Gemini API replies of SCRIPT on 127.0.0.1 until
	// the script ends, recording each request as $WORK/gemini/request-N.json; sets
	// GEM_GEMINI_BASE_URL and GEMINI_API_KEY.
	scriptCmds["fakegemini"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: fakegemini script.json")
		}
		replies, err := fakegemini.LoadScript(ts.MkAbs(args[0]))
		ts.Check(err)
		dir := filepath.Join(ts.Getenv("WORK"), "gemini")
		os.RemoveAll(dir)
		srv, err := fakegemini.Start(replies, dir)
		ts.Check(err)
		ts.Defer(srv.Close)
		ts.Setenv("GEM_GEMINI_BASE_URL", srv.URL)
		ts.Setenv("GEMINI_API_KEY", "test-key")
	}
}

func init() {
	// npmregistry [-delay D] VAR DIR: serve the npm packages packed in DIR (npm pack's .tgz
	// files) as an npm registry on 127.0.0.1 (package metadata and tarballs, as npm and npx
	// read them) until the script ends; VAR is its URL (with a trailing slash). -delay holds
	// each tarball back for D, as a slow network would (a first download that takes long).
	scriptCmds["npmregistry"] = func(ts *testscript.TestScript, neg bool, args []string) {
		var delay time.Duration
		if len(args) == 4 && args[0] == "-delay" {
			d, err := time.ParseDuration(args[1])
			ts.Check(err)
			delay, args = d, args[2:]
		}
		if len(args) != 2 {
			ts.Fatalf("usage: npmregistry [-delay D] VAR DIR")
		}
		dir := ts.MkAbs(args[1])
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		base := "http://" + ln.Addr().String() + "/"
		srv := &http.Server{Handler: npmregistry.Handler(dir, base, delay)}
		go srv.Serve(ln)
		ts.Defer(func() { srv.Close() })
		ts.Setenv(args[0], base)
	}
	// tlsserver URLVAR CAFILE: an HTTPS server on 127.0.0.1 with a certificate of its own
	// CA (written to CAFILE, as a company proxy's would be) answering "hello over TLS".
	scriptCmds["tlsserver"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: tlsserver URLVAR CAFILE")
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello over TLS")
		}))
		srv.StartTLS()
		ts.Defer(srv.Close)
		cert := srv.Certificate()
		pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
		dst := ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		ts.Check(os.WriteFile(dst, pemData, 0o644))
		ts.Setenv(args[0], srv.URL)
	}
	// linkorcopy SRC DST: a hard link of SRC at DST, or a copy where the two are on different
	// filesystems (a toolchain "installed" in the test's home).
	scriptCmds["linkorcopy"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: linkorcopy src dst")
		}
		dst := ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		if os.Link(args[0], dst) == nil {
			return
		}
		data, err := os.ReadFile(args[0])
		ts.Check(err)
		ts.Check(os.WriteFile(dst, data, 0o755))
	}
}

func init() {
	// mcpregistry VAR DIR: an MCP registry on 127.0.0.1 speaking the v0.1 API (GET
	// /v0.1/servers?search=&cursor=&limit=, GET /v0.1/servers/{name}/versions/{version|latest})
	// over the server.json files of DIR, several versions of one server allowed; any other
	// file of DIR is served at /files/<name> (an mcpb bundle). VAR is its URL.
	scriptCmds["mcpregistry"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: mcpregistry VAR DIR")
		}
		dir := ts.MkAbs(args[1])
		servers := func() []mcpregistry.Server {
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			sort.Strings(files)
			var out []mcpregistry.Server
			for _, f := range files {
				data, err := os.ReadFile(f)
				var s mcpregistry.Server
				if err == nil && json.Unmarshal(data, &s) == nil && s.Name != "" {
					out = append(out, s)
				}
			}
			return out
		}
		result := func(s mcpregistry.Server, latest bool) mcpregistry.ServerResult {
			r := mcpregistry.ServerResult{Server: s}
			r.Meta.Official = &struct {
				Status   string `json:"status"`
				IsLatest bool   `json:"isLatest"`
			}{"active", latest}
			return r
		}
		latestOf := func(all []mcpregistry.Server, name string) *mcpregistry.Server {
			var best *mcpregistry.Server
			for i := range all {
				if all[i].Name == name && (best == nil || all[i].Version > best.Version) {
					best = &all[i]
				}
			}
			return best
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path := r.URL.EscapedPath()
			switch {
			case strings.HasPrefix(path, "/files/"):
				http.ServeFile(w, r, filepath.Join(dir, filepath.Base(path)))
			case path == "/v0.1/servers":
				q := r.URL.Query()
				limit := 30
				fmt.Sscan(q.Get("limit"), &limit)
				start := 0
				fmt.Sscan(q.Get("cursor"), &start)
				var list mcpregistry.ServerList
				all := servers()
				var matched []mcpregistry.Server
				for _, s := range all {
					if strings.Contains(s.Name, q.Get("search")) && latestOf(all, s.Name).Version == s.Version {
						matched = append(matched, s)
					}
				}
				for i := start; i < len(matched) && len(list.Servers) < limit; i++ {
					list.Servers = append(list.Servers, result(matched[i], true))
					if i+1 < len(matched) && len(list.Servers) == limit {
						list.Metadata.NextCursor = fmt.Sprint(i + 1)
					}
				}
				list.Metadata.Count = len(list.Servers)
				json.NewEncoder(w).Encode(list)
			case strings.HasPrefix(path, "/v0.1/servers/"):
				rest := strings.TrimPrefix(path, "/v0.1/servers/")
				escName, ver, ok := strings.Cut(rest, "/versions/")
				name, _ := url.PathUnescape(escName)
				if !ok {
					http.NotFound(w, r)
					return
				}
				all := servers()
				if ver == "latest" {
					if s := latestOf(all, name); s != nil {
						json.NewEncoder(w).Encode(result(*s, true))
						return
					}
				}
				for _, s := range all {
					if s.Name == name && s.Version == ver {
						json.NewEncoder(w).Encode(result(s, latestOf(all, name).Version == ver))
						return
					}
				}
				http.Error(w, `{"title":"Not Found","status":404,"detail":"Server not found"}`, http.StatusNotFound)
			default:
				http.NotFound(w, r)
			}
		}))
		ts.Defer(srv.Close)
		ts.Setenv(args[0], srv.URL)
	}
}
