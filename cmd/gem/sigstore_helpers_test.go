package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/internal/sigtest"
)

// authorities are the virtual Sigstores of the running scripts, by $WORK and name.
var (
	authoritiesMu sync.Mutex
	authorities   = map[string]*sigtest.Authority{}
)

func authority(ts *testscript.TestScript, name string) *sigtest.Authority {
	authoritiesMu.Lock()
	defer authoritiesMu.Unlock()
	key := ts.Getenv("WORK") + "\x00" + name
	if a := authorities[key]; a != nil {
		return a
	}
	a, err := sigtest.New()
	ts.Check(err)
	authorities[key] = a
	ts.Defer(func() {
		authoritiesMu.Lock()
		delete(authorities, key)
		authoritiesMu.Unlock()
	})
	return a
}

func init() {
	// sigstore root FILE: write the script's own Sigstore's trusted_root.json.
	// sigstore sign|attest [-untrusted] IDENTITY ISSUER ARTIFACT BUNDLE: sign ARTIFACT's bytes
	// as IDENTITY of ISSUER (cosign sign-blob --bundle), or attest it (an in-toto statement
	// naming its sha256, as GitHub's artifact attestations); -untrusted: by another Sigstore,
	// whose root the script never gives gem.
	// sigstore ghattest IDENTITY ISSUER ARTIFACT DIR: attest ARTIFACT and serve the bundle as
	// GitHub's attestations API does (DIR/<sha256 hex>.json; ghserver serves
	// owner/repo/attestations/ from its folder).
	scriptCmds["sigstore"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) == 0 {
			ts.Fatalf("usage: sigstore root|sign|attest|ghattest …")
		}
		verb, args := args[0], args[1:]
		name := "trusted"
		if len(args) > 0 && args[0] == "-untrusted" {
			name, args = "untrusted", args[1:]
		}
		a := authority(ts, name)
		write := func(path string, data []byte) {
			path = ts.MkAbs(path)
			ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
			ts.Check(os.WriteFile(path, data, 0o644))
		}
		switch verb {
		case "root":
			if len(args) != 1 {
				ts.Fatalf("usage: sigstore root FILE")
			}
			data, err := a.TrustedRoot()
			ts.Check(err)
			write(args[0], data)
		case "sign", "attest", "ghattest":
			if len(args) != 4 {
				ts.Fatalf("usage: sigstore %s [-untrusted] IDENTITY ISSUER ARTIFACT OUT", verb)
			}
			artifact, err := os.ReadFile(ts.MkAbs(args[2]))
			ts.Check(err)
			var b []byte
			if verb == "sign" {
				b, err = a.SignBlob(args[0], args[1], artifact)
			} else {
				b, err = a.Attest(args[0], args[1], filepath.Base(args[2]), artifact, "https://slsa.dev/provenance/v1")
			}
			ts.Check(err)
			if verb != "ghattest" {
				write(args[3], b)
				return
			}
			sum := sha256.Sum256(artifact)
			resp, err := json.Marshal(map[string]any{"attestations": []any{map[string]any{"bundle": json.RawMessage(b), "repository_id": 1}}})
			ts.Check(err)
			write(filepath.Join(args[3], hex.EncodeToString(sum[:])+".json"), resp)
		default:
			ts.Fatalf("sigstore: unknown verb %q", verb)
		}
	}
}

func init() {
	// ociregistry: start the distribution registry Debian packages (docker-registry, which
	// make tools installs) on 127.0.0.1, storing under $WORK/registry; sets OCIREG to its
	// host:port.
	scriptCmds["ociregistry"] = func(ts *testscript.TestScript, neg bool, args []string) {
		bin, err := exec.LookPath("docker-registry")
		if err != nil {
			ts.Fatalf("docker-registry is not installed: make tools installs it ([ociregistry] says whether it is)")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		addr := ln.Addr().String()
		ln.Close()
		config := ts.MkAbs("registry.yml")
		ts.Check(os.WriteFile(config, []byte(fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
http:
  addr: %s
`, ts.MkAbs("registry"), addr)), 0o644))
		cmd := exec.Command(bin, "serve", config)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		ts.Check(cmd.Start())
		ts.Defer(func() { cmd.Process.Kill(); cmd.Wait() })
		for i := 0; ; i++ {
			resp, err := http.Get("http://" + addr + "/v2/")
			if err == nil {
				resp.Body.Close()
				break
			}
			if i == 100 {
				ts.Fatalf("docker-registry did not answer on %s: %v", addr, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		ts.Setenv("OCIREG", addr)
	}
}

func init() {
	// pypiindex VAR DIR: serve a package index speaking PEP 691's JSON simple API from DIR
	// (DIR/<normalized name>/index.json is the project's page) on 127.0.0.1; sets VAR to its
	// /simple URL.
	scriptCmds["pypiindex"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: pypiindex VAR DIR")
		}
		dir := ts.MkAbs(args[1])
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name, ok := strings.CutPrefix(r.URL.Path, "/simple/")
			if !ok || r.Header.Get("Accept") != "application/vnd.pypi.simple.v1+json" {
				http.NotFound(w, r)
				return
			}
			data, err := os.ReadFile(filepath.Join(dir, strings.Trim(name, "/"), "index.json"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
			w.Write(data)
		}))
		ts.Defer(srv.Close)
		ts.Setenv(args[0], srv.URL+"/simple")
	}
}
