package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/sdk"
)

// ownError is an error with its own JSON (as gem -p's adds its exit code and hint).
type ownError struct{ error }

func (ownError) MarshalJSON() ([]byte, error) {
	return []byte(`{"type":"Mine","message":"m","code":7}`), nil
}

// TestEventMarshalsAsStreamJSON: each Event is the line Gemini CLI's stream-json writes for
// it — keys in its order, its timestamp format, text as JSON.stringify writes it, a call's
// arguments as JSON (not base64).
func TestEventMarshalsAsStreamJSON(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 30, 5, 123456789, time.FixedZone("x", 3600))
	const ts = `"timestamp":"2025-06-01T11:30:05.123Z"`
	read := &sdk.ToolCall{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"file_path":"notes.txt"}`)}
	usage := sdk.Usage{Requests: 2, ToolCalls: 1, PromptTokens: 220, CachedTokens: 20, OutputTokens: 15, TotalTokens: 235, Duration: 1500 * time.Millisecond,
		Models: map[string]sdk.Usage{"gemini-2.5-flash": {PromptTokens: 220, CachedTokens: 20, OutputTokens: 15, TotalTokens: 235}}}
	stats := `"stats":{"total_tokens":235,"input_tokens":220,"output_tokens":15,"cached":20,"input":200,"duration_ms":1500,"tool_calls":1,"models":{"gemini-2.5-flash":{"total_tokens":235,"input_tokens":220,"output_tokens":15,"cached":20,"input":200}}}`
	zero := `"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0,"models":{}}`
	for _, tc := range []struct {
		name string
		ev   sdk.Event
		want string
	}{
		{"init", sdk.Event{Type: sdk.EventInit, SessionID: "s1", Model: "gemini-2.5-flash"},
			`{"type":"init",` + ts + `,"session_id":"s1","model":"gemini-2.5-flash"}`},
		{"the user's message", sdk.Event{Type: sdk.EventMessage, Role: "user", Text: "is a<b && c>d?"},
			`{"type":"message",` + ts + `,"role":"user","content":"is a<b && c>d?"}`},
		{"a piece of the answer", sdk.Event{Type: sdk.EventMessage, Role: "assistant", Text: "The notes", Delta: true},
			`{"type":"message",` + ts + `,"role":"assistant","content":"The notes","delta":true}`},
		{"a thought", sdk.Event{Type: sdk.EventThought, Text: "hmm", Delta: true},
			`{"type":"thought",` + ts + `,"content":"hmm","delta":true}`},
		{"tool_use", sdk.Event{Type: sdk.EventToolUse, ToolCall: read},
			`{"type":"tool_use",` + ts + `,"tool_name":"read_file","tool_id":"c1","parameters":{"file_path":"notes.txt"}}`},
		{"tool_use without arguments", sdk.Event{Type: sdk.EventToolUse, ToolCall: &sdk.ToolCall{ID: "c2", Name: "jobs"}},
			`{"type":"tool_use",` + ts + `,"tool_name":"jobs","tool_id":"c2","parameters":{}}`},
		{"tool_result", sdk.Event{Type: sdk.EventToolResult, ToolCall: &sdk.ToolCall{ID: "c1", Output: "hello"}},
			`{"type":"tool_result",` + ts + `,"tool_id":"c1","status":"success","output":"hello"}`},
		{"a tool's error answer", sdk.Event{Type: sdk.EventToolResult, ToolCall: &sdk.ToolCall{ID: "c1", Output: "no such file", Err: &sdk.ToolError{Type: "file_not_found", Message: "notes.md: no such file"}}},
			`{"type":"tool_result",` + ts + `,"tool_id":"c1","status":"error","output":"no such file","error":{"type":"file_not_found","message":"notes.md: no such file"}}`},
		{"a call refused", sdk.Event{Type: sdk.EventToolResult, ToolCall: &sdk.ToolCall{ID: "c3", Err: fmt.Errorf("run_shell_command: %w", sdk.ErrDenied)}},
			`{"type":"tool_result",` + ts + `,"tool_id":"c3","status":"error","error":{"type":"permission_denied","message":"run_shell_command: ` + sdk.ErrDenied.Error() + `"}}`},
		{"a call's live output", sdk.Event{Type: sdk.EventToolOutput, ToolCall: &sdk.ToolCall{ID: "c1", Name: "build"}, Text: "compiling <a>\n"},
			`{"type":"tool_output",` + ts + `,"tool_id":"c1","output":"compiling <a>\n"}`},
		{"a warning", sdk.Event{Type: sdk.EventError, Severity: "warning", Text: "hook x failed"},
			`{"type":"error",` + ts + `,"severity":"warning","message":"hook x failed"}`},
		{"result", sdk.Event{Type: sdk.EventResult, Result: &sdk.Result{Text: "The notes say hello.", Usage: usage}},
			`{"type":"result",` + ts + `,"status":"success",` + stats + `}`},
		{"a failed turn", sdk.Event{Type: sdk.EventResult, Err: errors.New("boom")},
			`{"type":"result",` + ts + `,"status":"error","error":{"type":"Error","message":"boom"},` + zero + `}`},
		{"the API refused", sdk.Event{Type: sdk.EventResult, Err: &agent.APIError{Kind: agent.APIAuth, Code: 400, Status: "INVALID_ARGUMENT", Message: "API key not valid"}},
			`{"type":"result",` + ts + `,"status":"error","error":{"type":"GeminiAPIError:auth","message":"the Gemini API answered 400 INVALID_ARGUMENT: API key not valid"},` + zero + `}`},
		{"an error with its own JSON", sdk.Event{Type: sdk.EventResult, Err: ownError{errors.New("x")}},
			`{"type":"result",` + ts + `,"status":"error","error":{"type":"Mine","message":"m","code":7},` + zero + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.ev.Time = at
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.ev); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(b.String(), "\n"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if _, err := json.Marshal(sdk.Event{Type: "progress"}); err == nil {
		t.Error("an event of an unknown type marshalled")
	}
	for _, typ := range []sdk.EventType{sdk.EventToolUse, sdk.EventToolOutput, sdk.EventToolResult} {
		if _, err := json.Marshal(sdk.Event{Type: typ}); err == nil {
			t.Errorf("a %s event without its call marshalled", typ)
		}
	}
	b, _ := json.Marshal(sdk.ToolCall{ID: "c1", Name: "read_file", Kind: sdk.KindRead, Args: json.RawMessage(`{"file_path":"a"}`), Err: errors.New("gone")})
	if string(b) != `{"id":"c1","name":"read_file","kind":"read","args":{"file_path":"a"},"output":"","error":"gone"}` {
		t.Errorf("a ToolCall marshals as %s", b)
	}
}

// TestSendStreamPrintsStreamJSON: a turn's events, encoded as they come, are Gemini CLI's
// stream-json of that turn: init, the user's message, the call and its result, the answer,
// the result with the turn's stats; the session's id and model in init.
func TestSendStreamPrintsStreamJSON(t *testing.T) {
	_, getenv := fakeModel(t, chunks(call("count_words", `{"text":"a b"}`)), chunks(text("Two.")))
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{countWords}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for ev, err := range s.SendStream(ctx, "count 'a b'") {
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	var types []string
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %s", l)
		}
		types = append(types, fmt.Sprint(m["type"]))
	}
	if got := strings.Join(types, ","); got != "init,message,tool_use,tool_result,message,result" {
		t.Fatalf("types %s:\n%s", got, out.String())
	}
	for i, want := range []string{`"session_id":"` + s.ID() + `","model":"gemini-2.5-flash"`, `"role":"user","content":"count 'a b'"`,
		`"tool_name":"count_words","tool_id":"c1","parameters":{"text":"a b"}`, `"tool_id":"c1","status":"success","output":"{\"words\":2}"`,
		`"role":"assistant","content":"Two.","delta":true`, `"status":"success","stats":{`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d lacks %s: %s", i+1, want, lines[i])
		}
	}
	if !strings.Contains(lines[5], `"tool_calls":1,"models":{"gemini-2.5-flash":{`) {
		t.Errorf("the result's stats: %s", lines[5])
	}
}

// TestSendStreamWarns: a problem the turn goes on after — here a hook that failed — is an
// error event with severity warning, and the answer still comes.
func TestSendStreamWarns(t *testing.T) {
	_, getenv := fakeModel(t, chunks(text("Fine.")))
	broken := sdk.OnBeforeAgent("broken", func(sdk.SessionContext, sdk.BeforeAgentInput) (sdk.BeforeAgentOutput, error) {
		return sdk.BeforeAgentOutput{}, errors.New("the hook's database is gone")
	})
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Hooks: []sdk.Hook{broken}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	var got []string
	for ev, err := range s.SendStream(ctx, "hi") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == sdk.EventError || ev.Type == sdk.EventMessage {
			got = append(got, fmt.Sprintf("%s %s%s: %s", ev.Type, ev.Severity, ev.Role, ev.Text))
		}
	}
	if len(got) != 3 || !strings.HasPrefix(got[1], "error warning: BeforeAgent hook of") || !strings.Contains(got[1], "the hook's database is gone") || got[2] != "message assistant: Fine." {
		t.Errorf("events %q", got)
	}
}
