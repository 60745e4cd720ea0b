package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/internal/oauthserver"
)

// oauthResources are the protected MCP servers of the running scripts, by URL.
var oauthResources sync.Map

// oauthPair is an authorization server and the MCP server it protects.
type oauthPair struct {
	*oauthserver.AuthServer
	*oauthserver.Resource
}

func init() {
	// oauthmcp [-plain] VAR TTL: start a real authorization server (access tokens live TTL)
	// and an MCP server it protects (one tool, whoami) on 127.0.0.1 until the script ends;
	// VAR is the MCP server's URL, VAR_AS the authorization server's. With -plain neither
	// offers metadata and the authorization server no dynamic registration: its one client
	// is gem-client (secret s3cret, redirect http://127.0.0.1:<any port>/oauth/callback).
	scriptCmds["oauthmcp"] = func(ts *testscript.TestScript, neg bool, args []string) {
		plain := len(args) > 0 && args[0] == "-plain"
		if plain {
			args = args[1:]
		}
		if len(args) != 2 {
			ts.Fatalf("usage: oauthmcp [-plain] VAR TTL")
		}
		ttl, err := time.ParseDuration(args[1])
		ts.Check(err)
		as, err := oauthserver.NewAuthServer(ttl)
		ts.Check(err)
		if plain {
			as.SetPlain()
			as.AddClient("gem-client", "s3cret", "http://127.0.0.1/oauth/callback")
		}
		r, err := oauthserver.NewResource(as, oauthserver.Attack{NoMetadata: plain})
		ts.Check(err)
		ts.Defer(func() { r.Close(); as.Close() })
		oauthResources.Store(r.URL, oauthPair{as, r})
		ts.Setenv(args[0], r.URL)
		ts.Setenv(args[0]+"_AS", as.URL)
	}
	// oauthadmin URL revoke | redirect TO | seen | stats | requests: act on the server
	// oauthmcp started at URL: refuse the access tokens issued so far, redirect its MCP
	// requests to TO, print the Authorization headers it received (one per line, "-" for
	// none), print its authorization server's counters, or the authorization and token
	// requests it received (one per line, "authorize QUERY" or "token FORM", without codes).
	scriptCmds["oauthadmin"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: oauthadmin URL revoke | redirect TO | seen | stats | requests")
		}
		v, ok := oauthResources.Load(args[0])
		if !ok {
			ts.Fatalf("no oauthmcp server at %s", args[0])
		}
		srv := v.(oauthPair)
		switch args[1] {
		case "revoke":
			srv.Revoke()
		case "redirect":
			srv.RedirectTo(args[2])
		case "seen":
			for _, h := range srv.Seen() {
				if h == "" {
					h = "-"
				}
				fmt.Fprintln(ts.Stdout(), h)
			}
		case "stats":
			fmt.Fprintf(ts.Stdout(), "registrations %d codes %d refreshes %d\n", srv.Registrations.Load(), srv.Codes.Load(), srv.Refreshes.Load())
		case "requests":
			for _, q := range srv.AuthorizeQueries() {
				fmt.Fprintln(ts.Stdout(), "authorize", q.Encode())
			}
			for _, f := range srv.TokenForms() {
				f.Del("code")
				f.Del("code_verifier")
				f.Del("refresh_token")
				fmt.Fprintln(ts.Stdout(), "token", f.Encode())
			}
		default:
			ts.Fatalf("oauthadmin: unknown verb %q", strings.Join(args[1:], " "))
		}
	}
}
