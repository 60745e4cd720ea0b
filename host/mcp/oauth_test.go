package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/mcpauth"
	"github.com/gemhost/gem/internal/oauthserver"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// oauthPair starts an authorization server (tokens live ttl) and an MCP server it protects.
func oauthPair(t *testing.T, ttl time.Duration) (*oauthserver.AuthServer, *oauthserver.Resource) {
	t.Helper()
	as, err := oauthserver.NewAuthServer(ttl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	r, err := oauthserver.NewResource(as, oauthserver.Attack{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return as, r
}

// remoteClient is server "remote" of extension "ext" at url (streamable HTTP, or SSE for a
// URL ending in /sse), with env's sign-ins.
func remoteClient(t *testing.T, env registry.Env, url string) *Client {
	t.Helper()
	ms := manifest.MCPServer{Name: "remote", HTTPURL: url}
	if strings.HasSuffix(url, "/sse") {
		ms = manifest.MCPServer{Name: "remote", URL: url}
	}
	c, err := New(Config{Name: "remote", Extension: "ext", Server: ms, LocalAllowed: true, Auth: &mcpauth.Store{Env: env}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// browser is the scripted user: it goes through the consent (tamper: forging the state).
func browser(tamper bool, opened *int) func(context.Context, string) error {
	return func(ctx context.Context, page string) error {
		*opened++
		go oauthserver.Browse(ctx, page, tamper)
		return nil
	}
}

func whoami(t *testing.T, c *Client) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Call(ctx, "whoami", json.RawMessage(`{}`), CallOptions{})
	if err != nil {
		return "", err
	}
	return resultText(res), nil
}

// TestOAuthSignInCallAndRefresh: a server behind OAuth asks for a sign-in, is signed in to
// (discovery, dynamic registration, PKCE, the browser on the loopback redirect), called with
// the token, and keeps working when the token is about to expire (refreshed before) and when
// the server refuses it mid-session (refreshed once, the request retried); signing out
// forgets the token.
func TestOAuthSignInCallAndRefresh(t *testing.T) {
	env := registrytest.Env(t, nil)
	// 11 s tokens: golang.org/x/oauth2 refreshes 10 s before expiry, so after a second gem
	// holds an expiring token.
	as, r := oauthPair(t, 11*time.Second)
	if _, err := whoami(t, remoteClient(t, env, r.URL)); !errors.As(err, new(*mcpauth.NeedsSignInError)) {
		t.Fatalf("before a sign-in: got %v, want NeedsSignInError", err)
	}
	opened := 0
	c := remoteClient(t, env, r.URL)
	rec, err := c.SignIn(context.Background(), mcpauth.SignInOptions{Open: browser(false, &opened), Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("sign-in: %v (%s)", err, as)
	}
	if opened != 1 || as.Registrations.Load() != 1 || as.Codes.Load() != 1 || rec.Token.RefreshToken == "" || rec.Resource != r.URL {
		t.Fatalf("sign-in: opened %d, %s, record %+v", opened, as, rec)
	}
	if got, err := whoami(t, c); err != nil || got != "signed in as alice" {
		t.Fatalf("after the sign-in: %q, %v", got, err)
	}
	// A later session reads the sealed token; it expires within the 10 s margin: refreshed
	// before the request, and the new one kept.
	time.Sleep(1500 * time.Millisecond)
	if got, err := whoami(t, remoteClient(t, env, r.URL)); err != nil || got != "signed in as alice" || as.Refreshes.Load() != 1 {
		t.Fatalf("across the expiry: %q, %v (%s)", got, err, as)
	}
	kept, _ := (&mcpauth.Store{Env: env}).Load("ext", "remote", r.URL)
	if kept == nil || kept.Token.AccessToken == rec.Token.AccessToken {
		t.Fatalf("the refreshed token was not kept: %+v", kept)
	}
	// Mid-session the server refuses every token so far (401): refreshed once, retried.
	c2 := remoteClient(t, env, r.URL)
	if _, err := whoami(t, c2); err != nil {
		t.Fatal(err)
	}
	refreshes := as.Refreshes.Load()
	r.Revoke()
	if got, err := whoami(t, c2); err != nil || got != "signed in as alice" || as.Refreshes.Load() != refreshes+1 {
		t.Fatalf("after a 401 mid-session: %q, %v (%s)", got, err, as)
	}
	if opened != 1 {
		t.Fatalf("a session opened the browser (%d)", opened)
	}
	if ok, err := c.SignOut(); !ok || err != nil {
		t.Fatalf("sign-out: %v, %v", ok, err)
	}
	if _, err := whoami(t, remoteClient(t, env, r.URL)); !errors.As(err, new(*mcpauth.NeedsSignInError)) {
		t.Fatalf("after the sign-out: got %v, want NeedsSignInError", err)
	}
}

// TestOAuthOverSSE: the same over the SSE transport (which has no OAuth handler of its own):
// a sign-in, a call with the token, a 401 mid-session answered by one refresh.
func TestOAuthOverSSE(t *testing.T) {
	env := registrytest.Env(t, nil)
	as, r := oauthPair(t, time.Hour)
	url := strings.TrimSuffix(r.URL, "/mcp") + "/sse"
	c := remoteClient(t, env, url)
	if _, err := whoami(t, c); !errors.As(err, new(*mcpauth.NeedsSignInError)) {
		t.Fatalf("before a sign-in: got %v, want NeedsSignInError", err)
	}
	opened := 0
	if _, err := c.SignIn(context.Background(), mcpauth.SignInOptions{Open: browser(false, &opened)}); err != nil {
		t.Fatalf("sign-in: %v (%s)", err, as)
	}
	if got, err := whoami(t, c); err != nil || !strings.HasPrefix(got, "signed in as") {
		t.Fatalf("after the sign-in: %q, %v", got, err)
	}
	r.Revoke()
	if got, err := whoami(t, c); err != nil || !strings.HasPrefix(got, "signed in as") || as.Refreshes.Load() != 1 {
		t.Fatalf("after a 401 mid-session: %q, %v (%s)", got, err, as)
	}
}

// TestOAuthAttacks: what a hostile server or page tries fails, and nothing leaks.
func TestOAuthAttacks(t *testing.T) {
	t.Run("forged state", func(t *testing.T) {
		env := registrytest.Env(t, nil)
		as, r := oauthPair(t, time.Hour)
		opened := 0
		_, err := remoteClient(t, env, r.URL).SignIn(context.Background(), mcpauth.SignInOptions{Open: browser(true, &opened), Timeout: 30 * time.Second})
		if !errors.As(err, new(mcpauth.StateError)) || as.Codes.Load() != 0 {
			t.Fatalf("got %v (%s), want StateError and no code exchanged", err, as)
		}
		if rec, _ := (&mcpauth.Store{Env: env}).Load("ext", "remote", r.URL); rec != nil {
			t.Fatal("a token was kept")
		}
	})
	t.Run("token for another server", func(t *testing.T) {
		// Signed in to A; the manifest (an update) now points the same server at B: B gets
		// no token, and gem asks for a sign-in.
		env := registrytest.Env(t, nil)
		_, a := oauthPair(t, time.Hour)
		_, b := oauthPair(t, time.Hour)
		opened := 0
		if _, err := remoteClient(t, env, a.URL).SignIn(context.Background(), mcpauth.SignInOptions{Open: browser(false, &opened)}); err != nil {
			t.Fatal(err)
		}
		if _, err := whoami(t, remoteClient(t, env, b.URL)); !errors.As(err, new(*mcpauth.NeedsSignInError)) {
			t.Fatalf("got %v, want NeedsSignInError", err)
		}
		if seen := strings.Join(b.Seen(), ""); seen != "" || len(b.Seen()) == 0 {
			t.Fatalf("B received %q", b.Seen())
		}
	})
	t.Run("redirect to another origin", func(t *testing.T) {
		// Signed in to A; A now redirects its MCP requests to B: refused, B sees nothing.
		env := registrytest.Env(t, nil)
		_, a := oauthPair(t, time.Hour)
		_, b := oauthPair(t, time.Hour)
		opened := 0
		if _, err := remoteClient(t, env, a.URL).SignIn(context.Background(), mcpauth.SignInOptions{Open: browser(false, &opened)}); err != nil {
			t.Fatal(err)
		}
		a.RedirectTo(b.URL)
		if _, err := whoami(t, remoteClient(t, env, a.URL)); !errors.As(err, new(*RedirectError)) {
			t.Fatalf("got %v, want RedirectError", err)
		}
		if len(b.Requests()) != 0 {
			t.Fatalf("B was reached: %q", b.Requests())
		}
	})
}
