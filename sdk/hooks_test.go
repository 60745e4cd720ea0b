package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/sdk"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

var echo = sdk.NewTool("echo", "Echoes its text", func(sc sdk.SessionContext, a echoArgs) (string, error) {
	return "echo: " + a.Text, nil
}).WithKind(sdk.KindRead)

// TestHooks: each event's typed hook changes what the model gets next, or what the program
// gets back, as the design's validation asks; Stop halts the turn.
func TestHooks(t *testing.T) {
	toolTurn := []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("Done."))}
	tests := []struct {
		name    string
		hooks   []sdk.Hook
		replies []fakegemini.Reply
		// check gets the requests' bodies, the result and the error
		check func(t *testing.T, bodies []string, res *sdk.Result, err error)
	}{
		{name: "SessionStart adds context to the first prompt",
			hooks: []sdk.Hook{sdk.OnSessionStart("start", "startup", func(sc sdk.SessionContext, in sdk.SessionStartInput) (sdk.SessionStartOutput, error) {
				return sdk.SessionStartOutput{AdditionalContext: "Started: " + in.Source}, nil
			})},
			replies: []fakegemini.Reply{chunks(text("ok"))},
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[0], `Started: startup`)
			}},
		{name: "BeforeAgent adds context to the prompt",
			hooks: []sdk.Hook{sdk.OnBeforeAgent("before", func(sc sdk.SessionContext, in sdk.BeforeAgentInput) (sdk.BeforeAgentOutput, error) {
				return sdk.BeforeAgentOutput{AdditionalContext: "The prompt was " + strings.ToUpper(in.Prompt)}, nil
			})},
			replies: []fakegemini.Reply{chunks(text("ok"))},
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[0], `The prompt was GO`)
			}},
		{name: "BeforeAgent denies the prompt",
			hooks: []sdk.Hook{sdk.OnBeforeAgent("guard", func(sc sdk.SessionContext, in sdk.BeforeAgentInput) (sdk.BeforeAgentOutput, error) {
				return sdk.BeforeAgentOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny, Reason: "no secrets"}}, nil
			})},
			check: func(t *testing.T, b []string, _ *sdk.Result, err error) {
				if len(b) != 0 || err == nil || !strings.Contains(err.Error(), "no secrets") {
					t.Errorf("requests %d, err %v: want none and the reason", len(b), err)
				}
			}},
		{name: "BeforeToolSelection offers no tools",
			hooks: []sdk.Hook{sdk.OnBeforeToolSelection("none", func(sc sdk.SessionContext, in sdk.BeforeToolSelectionInput) (sdk.BeforeToolSelectionOutput, error) {
				if len(in.LLMRequest.Messages) == 0 {
					return sdk.BeforeToolSelectionOutput{}, errors.New("no messages in the request")
				}
				return sdk.BeforeToolSelectionOutput{ToolConfig: &sdk.ToolConfig{Mode: "NONE"}}, nil
			})},
			replies: []fakegemini.Reply{chunks(text("ok"))},
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[0], `"mode":"NONE"`)
			}},
		{name: "BeforeModel changes the settings of the request",
			hooks: []sdk.Hook{sdk.OnBeforeModel("cool", func(sc sdk.SessionContext, in sdk.BeforeModelInput) (sdk.BeforeModelOutput, error) {
				temp := 0.125
				return sdk.BeforeModelOutput{LLMRequest: &sdk.LLMRequest{Config: sdk.GenerationConfig{Temperature: &temp}}}, nil
			})},
			replies: []fakegemini.Reply{chunks(text("ok"))},
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[0], `"temperature":0.125`)
			}},
		{name: "BeforeModel answers in the model's place",
			hooks: []sdk.Hook{sdk.OnBeforeModel("cache", func(sc sdk.SessionContext, in sdk.BeforeModelInput) (sdk.BeforeModelOutput, error) {
				return sdk.BeforeModelOutput{LLMResponse: sdk.TextResponse("cached answer")}, nil
			})},
			check: func(t *testing.T, b []string, res *sdk.Result, err error) {
				if len(b) != 0 || err != nil || res.Text != "cached answer" {
					t.Errorf("requests %d, result %+v, err %v: want the hook's answer and no request", len(b), res, err)
				}
			}},
		{name: "BeforeModel stops the turn (a global halt)",
			hooks: []sdk.Hook{sdk.OnBeforeModel("halt", func(sc sdk.SessionContext, in sdk.BeforeModelInput) (sdk.BeforeModelOutput, error) {
				return sdk.BeforeModelOutput{HookOutput: sdk.HookOutput{Stop: true, StopReason: "budget spent"}}, nil
			})},
			check: func(t *testing.T, b []string, _ *sdk.Result, err error) {
				if _, stopped := errors.AsType[*agent.StoppedError](err); len(b) != 0 || !stopped || !strings.Contains(err.Error(), "budget spent") {
					t.Errorf("requests %d, err %v: want none and the stop", len(b), err)
				}
			}},
		{name: "AfterModel replaces the answer",
			hooks: []sdk.Hook{sdk.OnAfterModel("polish", func(sc sdk.SessionContext, in sdk.AfterModelInput) (sdk.AfterModelOutput, error) {
				return sdk.AfterModelOutput{LLMResponse: sdk.TextResponse("Polished: " + in.LLMResponse.Text())}, nil
			})},
			replies: []fakegemini.Reply{chunks(text("raw"))},
			check: func(t *testing.T, _ []string, res *sdk.Result, _ error) {
				if res.Text != "Polished: raw" {
					t.Errorf("text %q", res.Text)
				}
			}},
		{name: "BeforeTool rewrites the arguments",
			hooks: []sdk.Hook{sdk.OnBeforeTool("loud", "echo", func(sc sdk.SessionContext, in sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
				return sdk.BeforeToolOutput{ToolInput: map[string]any{"text": strings.ToUpper(in.ToolInput["text"].(string))}}, nil
			})},
			replies: toolTurn,
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[1], `echo: HI`)
			}},
		{name: "BeforeTool denies the call",
			hooks: []sdk.Hook{sdk.OnBeforeTool("no-echo", "ec.*", func(sc sdk.SessionContext, in sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
				return sdk.BeforeToolOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny, Reason: "echo is off today"}}, nil
			})},
			replies: toolTurn,
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[1], `echo is off today`)
				if strings.Contains(b[1], "echo: hi") {
					t.Error("the tool ran")
				}
			}},
		{name: "BeforeTool matcher leaves other tools alone",
			hooks: []sdk.Hook{sdk.OnBeforeTool("other", "write_file", func(sc sdk.SessionContext, in sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
				return sdk.BeforeToolOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny, Reason: "no"}}, nil
			})},
			replies: toolTurn,
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[1], `echo: hi`)
			}},
		{name: "AfterTool adds context and replaces output",
			hooks: []sdk.Hook{
				sdk.OnAfterTool("note", "echo", func(sc sdk.SessionContext, in sdk.AfterToolInput) (sdk.AfterToolOutput, error) {
					out := "replaced " + in.ToolResponse.Text
					return sdk.AfterToolOutput{ToolOutput: &out, AdditionalContext: "Read it again before changing it."}, nil
				})},
			replies: toolTurn,
			check: func(t *testing.T, b []string, _ *sdk.Result, _ error) {
				mustContain(t, b[1], `replaced echo: hi`)
				mustContain(t, b[1], `Read it again before changing it.`)
			}},
		{name: "AfterAgent sends a new prompt",
			hooks: []sdk.Hook{sdk.OnAfterAgent("again", func(sc sdk.SessionContext, in sdk.AfterAgentInput) (sdk.AfterAgentOutput, error) {
				if in.StopHookActive {
					return sdk.AfterAgentOutput{}, nil
				}
				return sdk.AfterAgentOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny, Reason: "Answer in French."}}, nil
			})},
			replies: []fakegemini.Reply{chunks(text("Hello")), chunks(text("Bonjour"))},
			check: func(t *testing.T, b []string, res *sdk.Result, _ error) {
				mustContain(t, b[1], `Answer in French.`)
				if res.Text != "Bonjour" {
					t.Errorf("text %q", res.Text)
				}
			}},
		{name: "a failing hook is a warning, not a stop",
			hooks: []sdk.Hook{sdk.OnBeforeAgent("broken", func(sc sdk.SessionContext, in sdk.BeforeAgentInput) (sdk.BeforeAgentOutput, error) {
				return sdk.BeforeAgentOutput{}, errors.New("broken")
			})},
			replies: []fakegemini.Reply{chunks(text("ok"))},
			check: func(t *testing.T, b []string, res *sdk.Result, err error) {
				if err != nil || res.Text != "ok" {
					t.Errorf("result %+v, err %v", res, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, getenv := fakeModel(t, tt.replies...)
			ctx := context.Background()
			a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
				Tools: []sdk.Tool{echo}, Hooks: tt.hooks})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s, err := a.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Send(ctx, "go")
			var bodies []string
			for _, r := range srv.Requests {
				bodies = append(bodies, string(r.Body))
			}
			tt.check(t, bodies, res, err)
		})
	}
}

// TestHookEventsAdvisory: SessionEnd runs at Close, Notification when the policy asks,
// both with the session's context (the asking session's, with another session open).
func TestHookEventsAdvisory(t *testing.T) {
	_, getenv := fakeModel(t, chunks(call("touch", `{"name":"a"}`)), chunks(text("ok")))
	touch := sdk.NewTool("touch", "Touches", func(sc sdk.SessionContext, a struct {
		Name string `json:"name"`
	}) (string, error) {
		return "touched", nil
	}).WithKind(sdk.KindEdit)
	var heard []string
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{touch},
		Approve: func(context.Context, sdk.ApprovalRequest) (sdk.Decision, error) { return sdk.ApproveOnce, nil },
		Hooks: []sdk.Hook{
			sdk.OnNotification("hear", "ToolPermission", func(sc sdk.SessionContext, in sdk.NotificationInput) (sdk.NotificationOutput, error) {
				heard = append(heard, in.NotificationType+" "+in.Details["tool_name"].(string)+" "+in.SessionID+" "+sc.SessionID())
				return sdk.NotificationOutput{}, nil
			}),
			sdk.OnSessionEnd("end", "", func(sc sdk.SessionContext, in sdk.SessionEndInput) (sdk.SessionEndOutput, error) {
				heard = append(heard, "end "+in.Reason+" "+sc.SessionID()+" "+sc.Transcript()[0].Text)
				return sdk.SessionEndOutput{}, nil
			}),
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	other, _ := a.Session(ctx) // opened last: the question is still s's
	defer other.Close()
	if _, err := s.Send(ctx, "touch a"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	want := []string{"ToolPermission touch " + s.ID() + " " + s.ID(), "end exit " + s.ID() + " touch a"}
	if strings.Join(heard, "|") != strings.Join(want, "|") {
		t.Errorf("heard %q, want %q", heard, want)
	}
}

// TestRunAsCommand: a hook run as a command reads the event on stdin and answers on
// stdout with exit 0 (its output as a command hook prints it), exit 1 with stderr when it
// fails, and refuses an event it is not for.
func TestRunAsCommand(t *testing.T) {
	hook := sdk.OnBeforeTool("guard", "run_shell_command", func(sc sdk.SessionContext, in sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
		if cmd, _ := in.ToolInput["command"].(string); strings.Contains(cmd, "rm -rf") {
			return sdk.BeforeToolOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny, Reason: "not that: " + sc.SessionID()}}, nil
		}
		if in.ToolInput["command"] == nil {
			return sdk.BeforeToolOutput{}, errors.New("no command")
		}
		return sdk.BeforeToolOutput{}, nil
	})
	tests := []struct {
		stdin, stdout, stderr string
		code                  int
	}{
		{`{"hook_event_name":"BeforeTool","session_id":"s1","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`, `{"decision":"deny","reason":"not that: s1"}`, "", 0},
		{`{"hook_event_name":"BeforeTool","session_id":"s1","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, `{}`, "", 0},
		{`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{}}`, "", "no command", 1},
		{`{"hook_event_name":"AfterTool"}`, "", "it is a BeforeTool hook, run for AfterTool", 1},
		{`not json`, "", "stdin is not a hook's JSON", 1},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := sdk.RunHookCommand(hook, strings.NewReader(tt.stdin), &out, &errOut)
		if code != tt.code || out.String() != tt.stdout || !strings.Contains(errOut.String(), tt.stderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.stdin, code, out.String(), errOut.String(), tt.code, tt.stdout, tt.stderr)
		}
		if tt.code == 0 && !json.Valid(out.Bytes()) {
			t.Errorf("stdout %q is not JSON", out.String())
		}
	}
}

func mustContain(t *testing.T, body, want string) {
	t.Helper()
	if !strings.Contains(body, want) {
		t.Errorf("the request lacks %q:\n%s", want, body)
	}
}

// TestCommandHookFS: a hook run as a command writes the workspace it is told of, never
// through a link out or under a protected name, and reads nothing outside it.
func TestCommandHookFS(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	proj := filepath.Join(home, "proj")
	os.Symlink(home, filepath.Join(proj, "out"))
	os.Symlink(".git", filepath.Join(proj, "docs"))
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	write := sdk.OnSessionStart("w", "", func(sc sdk.SessionContext, in sdk.SessionStartInput) (sdk.SessionStartOutput, error) {
		return sdk.SessionStartOutput{}, sc.FS().WriteFile(context.Background(), in.Source, []byte("x"))
	})
	for _, tt := range []struct {
		path string
		ok   bool
	}{{"notes/a.txt", true}, {"out/planted", false}, {"docs/config", false}, {".git/config", false}, {"../planted", false}, {filepath.Join(home, "planted"), false}} {
		payload, _ := json.Marshal(map[string]string{"hook_event_name": "SessionStart", "cwd": proj, "source": tt.path})
		var out, errOut bytes.Buffer
		code := sdk.RunHookCommand(write, bytes.NewReader(payload), &out, &errOut)
		if (code == 0) != tt.ok {
			t.Errorf("%s: exit %d (%s), want ok=%v", tt.path, code, errOut.String(), tt.ok)
		}
	}
	for _, p := range []string{filepath.Join(home, "planted"), filepath.Join(proj, ".git", "config")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	read := sdk.OnSessionStart("r", "", func(sc sdk.SessionContext, in sdk.SessionStartInput) (sdk.SessionStartOutput, error) {
		_, err := sc.FS().ReadFile(context.Background(), in.Source)
		return sdk.SessionStartOutput{}, err
	})
	os.WriteFile(filepath.Join(home, "secret"), []byte("k"), 0o600)
	for _, p := range []string{"out/secret", "../secret", filepath.Join(home, "secret")} {
		payload, _ := json.Marshal(map[string]string{"hook_event_name": "SessionStart", "cwd": proj, "source": p})
		var out, errOut bytes.Buffer
		if code := sdk.RunHookCommand(read, bytes.NewReader(payload), &out, &errOut); code == 0 {
			t.Errorf("%s was read", p)
		}
	}
}
