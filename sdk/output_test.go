package sdk_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/sdk"
)

type outputKey struct{}

// build is a tool that streams its steps with pluginsdk.Output, as the same tool served as
// a plugin would: on its SessionContext, or on a context derived from it.
var build = sdk.NewTool("build", "Builds the project, step by step",
	func(sc sdk.SessionContext, in struct {
		Steps   []string `json:"steps"`
		Derived bool     `json:"derived,omitempty"`
	}) (string, error) {
		var ctx context.Context = sc
		if in.Derived {
			ctx = context.WithValue(sc, outputKey{}, "x")
		}
		for _, s := range in.Steps {
			pluginsdk.Output(ctx, s+"\n")
		}
		return fmt.Sprintf("built in %d steps", len(in.Steps)), nil
	}).WithKind(sdk.KindExecute)

// TestToolOutputEvents: what a tool the program runs sends with pluginsdk.Output comes
// out of SendStream as tool_output events, in order, between the call's tool_use and its
// tool_result, naming the call; a tool that sends none has none. The model gets only the
// result.
func TestToolOutputEvents(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       []string // the turn's events: type, and the output's text
	}{
		{"two steps", `{"steps":["compile","link"]}`,
			[]string{"init", "message", "tool_use", "tool_output compile\n", "tool_output link\n", "tool_result", "message", "result"}},
		{"a context derived from the call's", `{"steps":["compile"],"derived":true}`,
			[]string{"init", "message", "tool_use", "tool_output compile\n", "tool_result", "message", "result"}},
		{"no output", `{"steps":[]}`,
			[]string{"init", "message", "tool_use", "tool_result", "message", "result"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, getenv := fakeModel(t, chunks(call("build", tc.args)), chunks(text("Built.")))
			ctx := context.Background()
			a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
				Tools: []sdk.Tool{build}, Approve: func(context.Context, sdk.ApprovalRequest) (sdk.Decision, error) { return sdk.ApproveOnce, nil }})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s, _ := a.Session(ctx)
			var got []string
			for ev, err := range s.SendStream(ctx, "build it") {
				if err != nil {
					t.Fatal(err)
				}
				switch ev.Type {
				case sdk.EventToolOutput:
					if ev.ToolCall == nil || ev.ToolCall.ID != "c1" || ev.ToolCall.Name != "build" || ev.ToolCall.Kind != sdk.KindExecute {
						t.Errorf("tool_output of %+v, want the call c1 of build (execute)", ev.ToolCall)
					}
					got = append(got, string(ev.Type)+" "+ev.Text)
				default:
					got = append(got, string(ev.Type))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
			if len(srv.Requests) != 2 || !strings.Contains(string(srv.Requests[1].Body), "built in") || strings.Contains(string(srv.Requests[1].Body), `compile\n`) {
				t.Errorf("the model's second request (of %d) lacks the result or has the live output: it gets the result only", len(srv.Requests))
			}
		})
	}
}

// A tool's live output: what it sends with pluginsdk.Output while it runs (as the same tool
// served as a plugin streams it) comes as tool_output events between its call and its
// result — a terminal prints them as they come, gem acp sends them as tool_call_update.
// Only the result goes to the model.
func ExampleEvent_toolOutput() {
	test := sdk.NewTool("test", "Runs the tests", func(sc sdk.SessionContext, _ struct{}) (string, error) {
		for _, pkg := range []string{"./api", "./store"} {
			pluginsdk.Output(sc, "ok "+pkg+"\n")
		}
		return "all tests pass", nil
	})
	a, done, err := example(sdk.Options{Tools: []sdk.Tool{test}}, chunks(call("test", `{}`)), chunks(text("The tests pass.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()
	s, _ := a.Session(ctx)
	for ev, err := range s.SendStream(ctx, "run the tests") {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev.Type {
		case sdk.EventToolUse:
			fmt.Println("→", ev.ToolCall.Name)
		case sdk.EventToolOutput:
			fmt.Print("  ", ev.Text)
		case sdk.EventToolResult:
			fmt.Println("←", ev.ToolCall.Output)
		case sdk.EventMessage:
			fmt.Println(ev.Role+":", ev.Text)
		}
	}
	// Output:
	// user: run the tests
	// → test
	//   ok ./api
	//   ok ./store
	// ← all tests pass
	// assistant: The tests pass.
}
