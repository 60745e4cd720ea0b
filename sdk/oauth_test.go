package sdk_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/internal/oauthserver"
	"github.com/gemhost/gem/sdk"
)

// TestMCPServerBehindOAuth: a program's remote MCP server behind OAuth (a real
// authorization server and MCP server on 127.0.0.1) fails the model's call until the agent
// signs in (the scripted browser), then answers it; a later agent uses the kept token.
func TestMCPServerBehindOAuth(t *testing.T) {
	as, err := oauthserver.NewAuthServer(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	r, err := oauthserver.NewResource(as, oauthserver.Attack{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv, getenv := fakeModel(t,
		chunks(call("mcp_issues_whoami", `{}`)), chunks(text("Not signed in.")),
		chunks(call("mcp_issues_whoami", `{}`)), chunks(text("You are alice.")),
		chunks(call("mcp_issues_whoami", `{}`)), chunks(text("Still alice.")))
	ctx := context.Background()
	open := func() *sdk.Agent {
		a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
			Approve:    func(context.Context, sdk.ApprovalRequest) (sdk.Decision, error) { return sdk.ApproveOnce, nil },
			MCPServers: map[string]sdk.MCPServerConfig{"issues": {HTTPURL: r.URL}}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := open()
	defer a.Close()
	send := func(a *sdk.Agent) string {
		s, err := a.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Send(ctx, "who am I?"); err != nil {
			t.Fatal(err)
		}
		return string(srv.Requests[len(srv.Requests)-1].Body)
	}
	if last := send(a); !strings.Contains(last, "needs a sign-in") {
		t.Fatalf("before the sign-in the model should see that a sign-in is needed: %s", last)
	}
	err = a.SignIn(ctx, "issues", func(ctx context.Context, page string) error {
		go oauthserver.Browse(ctx, page, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if last := send(a); !strings.Contains(last, "signed in as alice") {
		t.Fatalf("the tool's answer is not in the next request: %s", last)
	}
	b := open()
	defer b.Close()
	if last := send(b); !strings.Contains(last, "signed in as alice") || as.Codes.Load() != 1 {
		t.Fatalf("a later agent did not use the kept token (%s): %s", as, last)
	}
	if err := b.SignIn(ctx, "nosuch", nil); err == nil {
		t.Error("signing in to an unknown server succeeded")
	}
	// A local (stdio) server has nothing to sign in to.
	_, getenv2 := fakeModel(t)
	c, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv2("HOME"), "proj"), Getenv: getenv2, Settings: sdk.NoSettings,
		MCPServers: map[string]sdk.MCPServerConfig{"local": {Command: "true"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SignIn(ctx, "local", nil); !errors.As(err, new(*mcphost.SignInError)) {
		t.Errorf("signing in to a stdio server: %v", err)
	}
}
