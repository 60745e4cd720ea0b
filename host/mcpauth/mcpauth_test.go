package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/oauthserver"
	"github.com/gemhost/gem/registry/registrytest"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		raw, err string
		disabled bool
	}{
		{``, "", false},
		{`{"enabled": true, "clientId": "gem", "scopes": ["read"]}`, "", false},
		{`{"enabled": false}`, "", true},
		{`{"redirectUri": "http://localhost:7777/oauth/callback"}`, "", false},
		{`{"redirectUri": "http://[::1]:7777/cb"}`, "", false},
		{`{"redirectUri": "https://evil.example/cb"}`, `oauth.redirectUri "https://evil.example/cb": must be an http:// URL on this machine`, false},
		{`{"redirectUri": "http://192.168.1.5:7777/cb"}`, "must be on a loopback address", false},
		{`{"scopes": "read"}`, "not an object of Gemini CLI's oauth fields", false},
	}
	for _, c := range cases {
		cfg, err := ParseConfig(json.RawMessage(c.raw))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %v, want %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Disabled() != c.disabled {
			t.Errorf("%s: got %+v, %v", c.raw, cfg, err)
		}
	}
}

// TestSignInRefusesLocalAddresses: a server's metadata cannot make gem reach this machine
// or the local network (refused before connecting), and the browser is never opened.
func TestSignInRefusesLocalAddresses(t *testing.T) {
	as, err := oauthserver.NewAuthServer(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	cases := []struct {
		name   string
		attack oauthserver.Attack
		local  bool // the MCP server is local itself
		want   string
	}{
		// A server taken as public (as if it were on the internet) names an authorization
		// server on this machine: gem's guard refuses it, nothing reaches either server's
		// metadata.
		{"public server, loopback metadata", oauthserver.Attack{}, false, "refused to reach http://127.0.0.1"},
		// A local server names a cloud metadata address and a private one: refused by the
		// SDK and by gem, before any connection.
		{"local server, link-local and private metadata", oauthserver.Attack{MetadataURL: "http://169.254.169.254/latest/meta-data", AuthServer: "http://10.0.0.1:9"}, true, "register"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := oauthserver.NewResource(as, c.attack)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			hits := as.Hits.Load()
			opened := 0
			srv := Server{Extension: "ext", Name: "remote", URL: r.URL, Local: c.local, HTTP: http.DefaultClient}
			_, err = SignIn(context.Background(), srv, Store{Env: registrytest.Env(t, nil)}, SignInOptions{
				Open: func(context.Context, string) error { opened++; return nil }, Timeout: 10 * time.Second})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if opened != 0 || as.Hits.Load() != hits {
				t.Fatalf("browser opened %d times, authorization server hit %d times", opened, as.Hits.Load()-hits)
			}
			if !c.local && strings.Join(r.Requests(), " ") != "/mcp" {
				t.Fatalf("the server's metadata was fetched: %q", r.Requests())
			}
			if !errors.As(err, new(*SignInError)) {
				t.Fatalf("%T is not a SignInError", err)
			}
		})
	}
}
