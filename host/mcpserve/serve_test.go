package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry"

	"github.com/gemhost/gem/internal/testbins"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry/registrytest"
)

var echoBin, mcpServerBin string

func TestMain(m *testing.M) {
	testbins.Main(m, map[*string]string{&echoBin: "../plugins/testdata/echoplugin", &mcpServerBin: "../mcp/testdata/testserver"})
}

// registryWithTools is a hermetic home with one extension bringing the echo plugin and the
// test MCP server, loaded with every MCP server started.
func registryWithTools(t *testing.T) *tools.Catalog {
	t.Helper()
	env := registrytest.Env(t, nil)
	m := `{"name":"kit","version":"1.0.0","plugins":{"echo":{"binary":"${extensionPath}/bin/echo"}},
		"mcpServers":{"test":{"command":"` + mcpServerBin + `"}}}`
	registrytest.Extension(t, env, "kit", m, map[string][]byte{"bin/echo": testhome.Binary(t, echoBin)})
	reg, errs := tools.Load(context.Background(), env, registry.Discover(env, registry.Providers), tools.Options{Environ: []string{"PATH=/usr/bin:/bin"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(reg.Close)
	if errs := reg.StartMCP(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	return reg
}

// connect runs the server over in-memory transports and returns a connected client.
func connect(t *testing.T, srv *sdk.Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(r *sdk.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestServeListsAndCalls(t *testing.T) {
	reg := registryWithTools(t)
	cs := connect(t, New(reg, Options{}), nil)
	ctx := context.Background()
	var names []string
	byName := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		byName[tool.Name] = tool
	}
	for _, want := range []string{"echo", "ask", "slow", "mcp_test_echo", "mcp_test_progress"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s not offered: %v", want, names)
		}
	}
	if a := byName["echo"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("echo (kind read) lacks readOnlyHint: %+v", a)
	}
	schema, _ := json.Marshal(byName["echo"].InputSchema)
	if !strings.Contains(string(schema), `"text"`) {
		t.Errorf("echo schema: %s", schema)
	}

	cases := []struct {
		tool, args string
		want       string
		isError    bool
	}{
		{"echo", `{"text":"ab","times":2}`, "abab", false},
		{"mcp_test_echo", `{"text":"through gem"}`, "echo: through gem", false},
		{"echo", `{"times":"x"}`, `invalid arguments for echo: "text" is required`, true},
		{"fail", `{}`, "execution: it failed on purpose", true},
		{"mcp_test_echo", `{"text":"fail"}`, "asked to fail", true},
	}
	for _, c := range cases {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if res.IsError != c.isError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %s: isError=%v %q, want %v %q", c.tool, c.args, res.IsError, text(res), c.isError, c.want)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "s"}})
	if err != nil || string(mustJSON(res.StructuredContent)) != `{"times":1}` {
		t.Errorf("structured: %v %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nosuch"}); err == nil {
		t.Error("an unknown tool must be a protocol error")
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestServeProgressAndCancel(t *testing.T) {
	reg := registryWithTools(t)
	var mu sync.Mutex
	var got []string
	cs := connect(t, New(reg, Options{}), &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Message)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	// A streaming plugin tool's output lines become progress notifications.
	params := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3}}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	// And so does an MCP server's progress, relayed.
	params = &sdk.CallToolParams{Name: "mcp_test_progress", Arguments: map[string]any{"steps": 5}}
	params.SetProgressToken("p2")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	// The plugin's lines come in order before its result; an MCP server's notifications are
	// dispatched apart from its result, so the last may trail it and be dropped.
	want := []string{"step 1", "step 2", "step 3", "step 1"}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) {
			break
		}
	}
	mu.Lock()
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("progress: %q, want %q first", got, want)
	}
	mu.Unlock()

	// Cancelling the client's call cancels the plugin's.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 500}})
	if err == nil || time.Since(start) > 3*time.Second {
		t.Errorf("cancelled call: %v after %s", err, time.Since(start))
	}
	// The plugin is still usable.
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ok"}}); err != nil || text(res) != "ok" {
		t.Errorf("after cancel: %v %v", res, err)
	}
}

func TestServeConfirmation(t *testing.T) {
	reg := registryWithTools(t)
	ctx := context.Background()
	ask := &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"what": "the thing"}}
	cases := []struct {
		name    string
		approve bool
		elicit  func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
		want    string
	}{
		{"no elicitation, refused", false, nil, "approved=false"},
		{"no elicitation, --yes", true, nil, "approved=true"},
		{"elicitation accepted", false, func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "Do the thing?") {
				return nil, fmt.Errorf("question %q", req.Params.Message)
			}
			return &sdk.ElicitResult{Action: "accept"}, nil
		}, "approved=true"},
		{"elicitation declined", true, func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}, "approved=false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := connect(t, New(reg, Options{Approve: c.approve}), &sdk.ClientOptions{ElicitationHandler: c.elicit})
			res, err := cs.CallTool(ctx, ask)
			if err != nil {
				t.Fatal(err)
			}
			if text(res) != c.want {
				t.Errorf("got %q (isError %v), want %q", text(res), res.IsError, c.want)
			}
		})
	}
}

func TestServeFollowsListChanges(t *testing.T) {
	reg := registryWithTools(t)
	changed := make(chan struct{}, 4)
	cs := connect(t, New(reg, Options{}), &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "mcp_test_grow", Arguments: map[string]any{"text": "sprout"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the new tool never reached the client")
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "mcp_test_sprout", Arguments: map[string]any{}})
		if err == nil && text(res) == "grown" {
			return
		}
	}
}

// TestServeTellsRealChangesOnly: the catalog changing without a change in its tools (a
// server started, its tools found again) sends clients nothing; a new tool sends one
// tools/list_changed.
func TestServeTellsRealChangesOnly(t *testing.T) {
	reg := registryWithTools(t)
	changed := make(chan struct{}, 8)
	b := newBridge(reg, Options{})
	cs := connect(t, b.srv, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	quiet := func(what string) {
		t.Helper()
		// A round trip after the syncs: a notification sent before it arrives before its answer.
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
			t.Fatalf("tools/list_changed %s", what)
		case <-time.After(200 * time.Millisecond):
		}
	}
	quiet("after connecting")
	b.sync()
	b.sync()
	quiet("though nothing changed")
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "mcp_test_grow", Arguments: map[string]any{"text": "leaf"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed for the new tool")
	}
	b.sync()
	quiet("again after the new tool was told")
}
