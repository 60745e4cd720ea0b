package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/oauthserver"
	"github.com/gemhost/gem/manifest"
)

// TestRedirectToAnotherOriginKeepsHeaders: a remote server that redirects its MCP requests
// to another origin does not take the manifest's headers (a token from a setting) there:
// the redirect is refused before the other server is reached.
func TestRedirectToAnotherOriginKeepsHeaders(t *testing.T) {
	a, err := oauthserver.NewResource(nil, oauthserver.Attack{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := oauthserver.NewResource(nil, oauthserver.Attack{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a.RedirectTo(b.URL)
	c, err := New(Config{Name: "remote", Extension: "ext", LocalAllowed: true,
		Server: manifest.MCPServer{Name: "remote", HTTPURL: a.URL, Headers: []manifest.KV{{Key: "Authorization", Value: "Bearer from-a-setting"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = c.Call(ctx, "whoami", json.RawMessage(`{}`), CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Errorf("got %v, want the redirect refused", err)
	}
	if len(b.Requests()) != 0 {
		t.Fatalf("the other origin was reached (with %q)", b.Seen())
	}
}
