package sdk_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/pluginsdk/plugintest"
	"github.com/gemhost/gem/sdk"
)

// TestMain lets the test binary serve count_words as a real go-plugin (GEM_SDK_HELPER=plugin).
func TestMain(m *testing.M) {
	if os.Getenv("GEM_SDK_HELPER") == "plugin" {
		pluginsdk.Serve(pluginsdk.Plugin{Name: "words", Tools: []pluginsdk.Tool{plainCount.Plugin()}})
		return
	}
	os.Exit(m.Run())
}

// plainCount is count_words without the session check (a plugin or MCP server has none).
var plainCount = sdk.NewTool("count_words", "Counts the words of a text", func(sc sdk.SessionContext, a countArgs) (count, error) {
	if a.Text == "" {
		return count{}, sdk.ModelErrorf("text is empty")
	}
	return count{Words: len(strings.Fields(a.Text))}, nil
})

// TestSameToolThreeWays: one typed tool value runs in the agent, as a go-plugin subprocess
// and over MCP, with the same schema and results.
func TestSameToolThreeWays(t *testing.T) {
	_, getenv := fakeModel(t)
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{plainCount}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	in, err := s.CallTool(ctx, "count_words", json.RawMessage(`{"text":"a b c"}`))
	if err != nil || in.Output != `{"words":3}` {
		t.Errorf("in process: %+v, %v", in, err)
	}
	if bad, _ := s.CallTool(ctx, "count_words", json.RawMessage(`{"text":""}`)); bad == nil || bad.Err == nil || !strings.Contains(bad.Err.Error(), "text is empty") {
		t.Errorf("in process, a ModelError: %+v", bad)
	}

	p := plugintest.Start(t, os.Args[0], "GEM_SDK_HELPER=plugin")
	if res := p.Call(t, "count_words", `{"text":"a b c"}`); res.Text != `{"words":3}` {
		t.Errorf("as a plugin: %+v", res)
	}

	srv, err := sdk.MCPServer("words", "1.0.0", plainCount)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count_words", Arguments: map[string]any{"text": "a b c"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"words":3}` {
		t.Errorf("over MCP: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "count_words", Arguments: map[string]any{"words": 1}})
	if err != nil || !res.IsError {
		t.Errorf("over MCP, bad arguments: %+v, %v", res, err)
	}
}

// BenchmarkToolCall: a typed tool called directly, through the agent's whole path
// (BeforeTool and AfterTool hooks, validation, policy, audit) and as a warm go-plugin.
// scripts/bench-sdk.sh reports the ratios.
func BenchmarkToolCall(b *testing.B) {
	fn := func(a countArgs) count { return count{Words: len(strings.Fields(a.Text))} }
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			var a countArgs
			json.Unmarshal([]byte(`{"text":"a b c"}`), &a)
			_, _ = json.Marshal(fn(a))
		}
	})
	b.Run("agent", func(b *testing.B) {
		_, getenv := fakeModel(b)
		ctx := context.Background()
		hook := sdk.OnBeforeTool("noop", "count_words", func(sdk.SessionContext, sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
			return sdk.BeforeToolOutput{}, nil
		})
		a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{plainCount}, Hooks: []sdk.Hook{hook}})
		if err != nil {
			b.Fatal(err)
		}
		defer a.Close()
		s, _ := a.Session(ctx)
		for b.Loop() {
			if c, err := s.CallTool(ctx, "count_words", json.RawMessage(`{"text":"a b c"}`)); err != nil || c.Err != nil {
				b.Fatal(err, c.Err)
			}
		}
	})
	b.Run("plugin", func(b *testing.B) {
		p := plugintest.Start(b, os.Args[0], "GEM_SDK_HELPER=plugin")
		for b.Loop() {
			p.Call(b, "count_words", `{"text":"a b c"}`)
		}
	})
}
