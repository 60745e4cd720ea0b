package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// githttp VAR DIR USER:PASSWORD: the repositories under DIR served over smart HTTP by git's
	// own http-backend on 127.0.0.1, behind basic authentication (a private repository of a
	// company's git server; "-": none); VAR is set to the server's URL. Each request's method
	// and path is logged to DIR/requests.log (whoever serves a lock's sources learns who
	// fetched them: a script counts the requests).
	scriptCmds["githttp"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: githttp VAR DIR USER:PASSWORD|-")
		}
		gitPath, err := exec.LookPath("git")
		ts.Check(err)
		backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"},
			Env: []string{"GIT_PROJECT_ROOT=" + ts.MkAbs(args[1]), "GIT_HTTP_EXPORT_ALL=1"}}
		want, log := args[2], filepath.Join(ts.MkAbs(args[1]), "requests.log")
		var mu sync.Mutex
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.Path)
				f.Close()
			}
			mu.Unlock()
			user, pass, ok := r.BasicAuth()
			if want != "-" && (!ok || user+":"+pass != want) {
				w.Header().Set("WWW-Authenticate", `Basic realm="private"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			backend.ServeHTTP(w, r)
		})}
		go srv.Serve(ln)
		ts.Defer(func() { srv.Close() })
		ts.Setenv(args[0], "http://"+ln.Addr().String())
	}
}
