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
	// oauthmcp VAR TTL: start a real authorization server (access tokens live TTL) and an
	// MCP server it protects (one tool, whoami) on 127.0.0.1 until the script ends; VAR is
	// the MCP server's URL.
	scriptCmds["oauthmcp"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: oauthmcp VAR TTL")
		}
		ttl, err := time.ParseDuration(args[1])
		ts.Check(err)
		as, err := oauthserver.NewAuthServer(ttl)
		ts.Check(err)
		r, err := oauthserver.NewResource(as, oauthserver.Attack{})
		ts.Check(err)
		ts.Defer(func() { r.Close(); as.Close() })
		oauthResources.Store(r.URL, oauthPair{as, r})
		ts.Setenv(args[0], r.URL)
	}
	// oauthadmin URL revoke | redirect TO | seen | stats: act on the server oauthmcp started
	// at URL: refuse the access tokens issued so far, redirect its MCP requests to TO, print
	// the Authorization headers it received (one per line, "-" for none), or print its
	// authorization server's counters.
	scriptCmds["oauthadmin"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: oauthadmin URL revoke | redirect TO | seen | stats")
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
		default:
			ts.Fatalf("oauthadmin: unknown verb %q", strings.Join(args[1:], " "))
		}
	}
}
