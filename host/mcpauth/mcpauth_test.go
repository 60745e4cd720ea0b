package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
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
		{`{"scopes": "read"}`, "oauth.scopes: must be a list of strings", false},
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

// TestSignInConfigured: a server whose authorization server offers no metadata and no
// dynamic registration is signed in to with the manifest's endpoints and client (scopes and
// audiences sent as Gemini CLI sends them); endpoints on another site or on addresses gem
// may not reach are refused before anything is sent or opened.
func TestSignInConfigured(t *testing.T) {
	plain, err := oauthserver.NewAuthServer(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.SetPlain()
	plain.AddClient("gem-client", "s3cret", "http://127.0.0.1/oauth/callback")
	other, err := oauthserver.NewAuthServer(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	r, err := oauthserver.NewResource(plain, oauthserver.Attack{NoMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	endpoints := func(auth, token string) string {
		return `"authorizationUrl": "` + auth + `/authorize", "tokenUrl": "` + token + `/token"`
	}
	good := endpoints(plain.URL, plain.URL)
	cases := []struct {
		name   string
		oauth  string
		local  bool
		want   string // "" signs in
		opened bool   // the browser was opened (an authorization request made)
		check  func(t *testing.T, rec *Record)
	}{
		{"discovery finds nothing", `{"scopes": ["mcp"]}`, true, "register", false, nil},
		{"the manifest's endpoints and client", `{` + good + `, "clientId": "gem-client", "clientSecret": "s3cret", "scopes": ["mcp", "files"], "audiences": ["api://a", "api://b"]}`, true, "", true,
			func(t *testing.T, rec *Record) {
				q := plain.AuthorizeQueries()
				last := q[len(q)-1]
				if last.Get("client_id") != "gem-client" || last.Get("scope") != "mcp files" || last.Get("audience") != "api://a api://b" ||
					last.Get("resource") != r.URL || last.Get("code_challenge_method") != "S256" {
					t.Errorf("authorization request %v", last)
				}
				sentAudience := false
				for _, f := range plain.TokenForms() {
					sentAudience = sentAudience || (f.Get("grant_type") == "authorization_code" && f.Get("audience") == "api://a api://b" && f.Get("resource") == r.URL)
				}
				if !sentAudience || rec.TokenURL != plain.URL+"/token" || rec.ClientID != "gem-client" || rec.Token.AccessToken == "" {
					t.Errorf("token requests %v, record %+v", plain.TokenForms(), rec)
				}
			}},
		{"no client and no registration endpoint", `{` + good + `}`, true, `oauth.clientId: is required with authorizationUrl and tokenUrl`, false, nil},
		{"token endpoint on another origin", `{` + endpoints(plain.URL, other.URL) + `, "clientId": "gem-client"}`, true, `oauth.tokenUrl "` + other.URL + `/token": is not on the site of authorizationUrl`, false, nil},
		{"a metadata service named as the authorization server", `{"authorizationUrl": "https://169.254.169.254/authorize", "tokenUrl": "https://169.254.169.254/token", "clientId": "c"}`, true,
			`oauth.authorizationUrl "https://169.254.169.254/authorize": refused to reach https://169.254.169.254/authorize: 169.254.169.254 is a link-local address`, false, nil},
		{"a public server naming endpoints on this machine", `{` + good + `, "clientId": "gem-client"}`, false, `oauth.authorizationUrl "` + plain.URL + `/authorize": refused to reach`, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			authorizations, otherHits := len(plain.AuthorizeQueries()), other.Hits.Load()
			opened := 0
			srv := Server{Extension: "ext", Name: "remote", URL: r.URL, Local: c.local, HTTP: http.DefaultClient, OAuth: json.RawMessage(c.oauth)}
			rec, err := SignIn(context.Background(), srv, Store{Env: registrytest.Env(t, nil)}, SignInOptions{Timeout: 10 * time.Second,
				Open: func(ctx context.Context, page string) error {
					opened++
					_, err := oauthserver.Browse(ctx, page, false)
					return err
				}})
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if (opened > 0) != c.opened || (len(plain.AuthorizeQueries()) > authorizations) != c.opened || other.Hits.Load() != otherHits {
				t.Fatalf("browser opened %d times, authorization requests %d, the other server hit %d times", opened, len(plain.AuthorizeQueries())-authorizations, other.Hits.Load()-otherHits)
			}
			if c.check != nil {
				c.check(t, rec)
			}
		})
	}
	if plain.Registrations.Load() != 0 {
		t.Errorf("registered %d times with a server that offers no registration", plain.Registrations.Load())
	}
}

// TestRedirectPort: the manifest's redirectUri is where gem listens, its port included.
func TestRedirectPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	uri := fmt.Sprintf("http://127.0.0.1:%d/cb", port)
	rcv, err := listen(uri, "remote")
	if err != nil {
		t.Fatal(err)
	}
	defer rcv.close()
	resp, err := http.Get(uri + "?error=access_denied")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if rcv.redirect != uri || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("redirect %s, answer %d", rcv.redirect, resp.StatusCode)
	}
	if cb := <-rcv.results; cb.err == nil || !strings.Contains(cb.err.Error(), "access_denied") {
		t.Fatalf("the refusal was not received: %+v", cb)
	}
}
