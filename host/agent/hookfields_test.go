package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"

	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/registry/settings"
)

// hooksOf is a hooks.json with one command hook per event: event → the JSON it prints.
func hooksOf(defs map[string]string) string {
	var parts []string
	for event, out := range defs {
		parts = append(parts, quote(event)+`: [{"hooks": [{"type": "command", "command": `+quote("cat > /dev/null; echo '"+out+"'")+`}]}]`)
	}
	return `{"hooks": {` + strings.Join(parts, ",") + `}}`
}

// TestHookOutputFields: each of Gemini CLI's hook output fields changes what the next
// request carries (or the turn), against the fake Gemini API.
func TestHookOutputFields(t *testing.T) {
	echoThenDone := []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("done"))}
	cases := []struct {
		name    string
		hooks   map[string]string
		replies []fakegemini.Reply
		check   func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session)
	}{
		{"BeforeTool tool_input rewrites the arguments", map[string]string{"BeforeTool": `{"hookSpecificOutput":{"tool_input":{"text":"rewritten"}}}`}, echoThenDone,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if b := string(srv.Requests[1].Body); !strings.Contains(b, "rewritten") {
					t.Errorf("the tool ran with the model's arguments: %s", b)
				}
			}},
		{"BeforeTool tool_input is validated again", map[string]string{"BeforeTool": `{"hookSpecificOutput":{"tool_input":{"text":5}}}`}, echoThenDone,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if b := string(srv.Requests[1].Body); !strings.Contains(b, "text") || !strings.Contains(b, "error") {
					t.Errorf("a rewrite to a wrong type must fail validation: %s", b)
				}
			}},
		{"BeforeTool ask makes the call asked even in yolo (no one answers here: not run)", map[string]string{"BeforeTool": `{"decision":"ask","reason":"it echoes to prod"}`}, echoThenDone,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if b := string(srv.Requests[1].Body); !strings.Contains(b, "echo was not approved") || err != nil {
					t.Errorf("the call was not asked (%v): %s", err, b)
				}
			}},
		{"AfterTool tool_output replaces the result", map[string]string{"AfterTool": `{"hookSpecificOutput":{"tool_output":"[redacted]"}}`}, echoThenDone,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if b := string(srv.Requests[1].Body); !strings.Contains(b, "[redacted]") {
					t.Errorf("result not replaced: %s", b)
				}
			}},
		{"AfterTool deny replaces the result with its reason", map[string]string{"AfterTool": `{"decision":"deny","reason":"output hidden by policy"}`}, echoThenDone,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if b := string(srv.Requests[1].Body); !strings.Contains(b, "output hidden by policy") || err != nil {
					t.Errorf("result not replaced (%v): %s", err, b)
				}
			}},
		{"BeforeModel llm_request changes model and temperature", map[string]string{"BeforeModel": `{"hookSpecificOutput":{"llm_request":{"model":"gemini-other","config":{"temperature":0.25}}}}`}, []fakegemini.Reply{chunks(text("ok"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				r := srv.Requests[0]
				if !strings.Contains(r.Path, "/models/gemini-other:") || !strings.Contains(string(r.Body), `"temperature":0.25`) {
					t.Errorf("request %s: %s", r.Path, r.Body)
				}
			}},
		{"BeforeModel llm_response answers instead of the model", map[string]string{"BeforeModel": `{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["cached answer"]}}]}}}`}, nil,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if out != "cached answer" || err != nil || len(srv.Requests) != 0 {
					t.Errorf("%q %v after %d requests", out, err, len(srv.Requests))
				}
			}},
		{"BeforeModel deny ends the turn", map[string]string{"BeforeModel": `{"decision":"deny","reason":"quota"}`}, []fakegemini.Reply{chunks(text("never"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if err == nil || !strings.Contains(err.Error(), "quota") || len(srv.Requests) != 0 {
					t.Errorf("%v after %d requests", err, len(srv.Requests))
				}
			}},
		{"AfterModel llm_response replaces the text", map[string]string{"AfterModel": `{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"parts":["[PII removed]"]}}]}}}`}, []fakegemini.Reply{chunks(text("my SSN is 123")), chunks(text("next"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if out != "[PII removed]" || strings.Contains(textOf(s.History[len(s.History)-1]), "SSN") {
					t.Errorf("%q; history %q", out, textOf(s.History[len(s.History)-1]))
				}
			}},
		{"BeforeToolSelection NONE offers no tools", map[string]string{"BeforeToolSelection": `{"hookSpecificOutput":{"toolConfig":{"mode":"NONE"}}}`}, []fakegemini.Reply{chunks(text("ok"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if b := string(srv.Requests[0].Body); !strings.Contains(b, `"mode":"NONE"`) {
					t.Errorf("tool config: %s", b)
				}
			}},
		{"BeforeToolSelection allowedFunctionNames keeps those tools", map[string]string{"BeforeToolSelection": `{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["count"]}}}`}, []fakegemini.Reply{chunks(text("ok"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				b := string(srv.Requests[0].Body)
				if !strings.Contains(b, `"name":"count"`) || strings.Contains(b, `"name":"echo"`) || !strings.Contains(b, `"allowedFunctionNames":["count"]`) {
					t.Errorf("tools: %s", b)
				}
			}},
		{"AfterAgent deny asks again with its reason", map[string]string{"AfterAgent": `{"decision":"deny","reason":"Answer in French."}`}, []fakegemini.Reply{chunks(text("hello")), chunks(text("bonjour")), chunks(text("salut")), chunks(text("coucou"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if len(srv.Requests) != 1+MaxAgentRetries || !strings.Contains(string(srv.Requests[1].Body), "Answer in French.") || out != "coucou" {
					t.Errorf("%d requests, %q", len(srv.Requests), out)
				}
			}},
		{"AfterAgent clearContext drops the history", map[string]string{"AfterAgent": `{"hookSpecificOutput":{"clearContext":true}}`}, []fakegemini.Reply{chunks(text("ok"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if len(s.History) != 0 || out != "ok" {
					t.Errorf("history kept: %d", len(s.History))
				}
			}},
		{"BeforeAgent continue false keeps the prompt", map[string]string{"BeforeAgent": `{"continue":false,"stopReason":"read-only day"}`}, nil,
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				var stopped *StoppedError
				if !errors.As(err, &stopped) || len(s.History) != 1 || textOf(s.History[0]) != "go" {
					t.Errorf("%v, history %d", err, len(s.History))
				}
			}},
		{"advisory events ignore continue and decision", map[string]string{"PreCompress": `{"continue":false}`, "Notification": `{"decision":"deny"}`, "BeforeToolSelection": `{"continue":false,"decision":"deny"}`}, []fakegemini.Reply{chunks(text("ok"))},
			func(t *testing.T, srv *fakegemini.Server, out string, err error, s *Session) {
				if err != nil || out != "ok" {
					t.Errorf("%q %v", out, err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, hooksOf(c.hooks), "")
			a, srv := w.agent(t, c.replies)
			s := Sessions{Dir: t.TempDir()}.New("m")
			out, _, err := a.Turn(context.Background(), s, "go")
			c.check(t, srv, out, err, s)
		})
	}
}

// TestSequentialHooksSeeRewrites: in a sequential definition the second hook gets the
// tool_input the first rewrote; a parallel definition runs its hooks at once.
func TestSequentialHooksSeeRewrites(t *testing.T) {
	first := `cat > /dev/null; echo '{"hookSpecificOutput":{"tool_input":{"text":"one"}}}'`
	second := `cat > "$GEM_WORKSPACE/second.json"`
	hooks := `{"hooks": {"BeforeTool": [{"sequential": true, "hooks": [{"command": ` + quote(first) + `}, {"command": ` + quote(second) + `}]}],` +
		`"AfterTool": [{"hooks": [{"command": "sleep 0.4; echo a >> \"$GEM_WORKSPACE/par\""}, {"command": "sleep 0.4; echo b >> \"$GEM_WORKSPACE/par\""}]}]}}`
	w := newWorld(t, hooks, "")
	a, _ := w.agent(t, []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("done"))})
	var said []string
	a.Hooks.Warn = func(m string) { said = append(said, m) }
	if _, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "go"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(w.env.Cwd, "second.json"))
	if !strings.Contains(string(data), `"tool_input":{"text":"one"}`) {
		t.Errorf("the second hook saw %s", data)
	}
	if par, _ := os.ReadFile(filepath.Join(w.env.Cwd, "par")); len(strings.Fields(string(par))) != 2 {
		t.Errorf("parallel hooks: %q %v", par, said)
	}
}

// TestSettingsHooks: hooks of the user's settings run (in the project's sandbox, their
// script readable under ~/.gemini/hooks), with lifecycle matchers; hooksConfig.disabled
// and enabled switch them off.
func TestSettingsHooks(t *testing.T) {
	w := newWorld(t, "", "")
	dir := filepath.Join(w.env.GeminiHome, ".gemini", "hooks")
	os.MkdirAll(dir, 0o755)
	script := filepath.Join(dir, "start.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat > /dev/null\necho '{\"hookSpecificOutput\":{\"additionalContext\":\"Branch: main\"}}'\n"), 0o755)
	write := func(text string) *settings.Settings {
		os.WriteFile(filepath.Join(w.env.GeminiHome, ".gemini", "settings.json"), []byte(text), 0o644)
		return settings.Load(w.env, w.env.Cwd)
	}
	st := write(`{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"name": "branch", "type": "command", "command": "~/.gemini/hooks/start.sh"}]}],
	  "BeforeModel": [{"matcher": "*", "hooks": [{"type": "command", "command": "cat > \"$GEMINI_PROJECT_DIR/model.json\""}]}]}}`)
	a, srv := w.agent(t, []fakegemini.Reply{chunks(text("ok"))})
	a.Hooks.launcher = launch.New(launch.Options{Env: w.env, Environ: []string{"PATH=/usr/bin:/bin", "HOME=" + w.env.Home}})
	if errs := a.Hooks.AddSettings(w.env, st); len(errs) > 0 {
		t.Fatal(errs)
	}
	s := Sessions{Dir: t.TempDir()}.New("m")
	if out := a.Hooks.Run(context.Background(), "SessionStart", hookInput(s, "source", "resume")); len(out.Context) != 0 {
		t.Errorf("matcher startup ran on resume: %v", out.Context)
	}
	s.nextContext = a.Hooks.Run(context.Background(), "SessionStart", hookInput(s, "source", "startup")).Context
	if _, _, err := a.Turn(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(srv.Requests[0].Body), `go\n\nBranch: main`) {
		t.Errorf("SessionStart context not with the first prompt: %s", srv.Requests[0].Body)
	}
	if data, err := os.ReadFile(filepath.Join(w.env.Cwd, "model.json")); err != nil || !strings.Contains(string(data), `"llm_request"`) {
		t.Errorf("BeforeModel of the settings: %s %v", data, err)
	}
	for _, text := range []string{`{"hooksConfig": {"disabled": ["branch"]}, "hooks": {"SessionStart": [{"hooks": [{"name": "branch", "command": "~/.gemini/hooks/start.sh"}]}]}}`,
		`{"hooksConfig": {"enabled": false}, "hooks": {"SessionStart": [{"hooks": [{"command": "~/.gemini/hooks/start.sh"}]}]}}`} {
		h := &Hooks{Cwd: w.env.Cwd, Logger: a.Hooks.Logger, launcher: a.Hooks.launcher}
		h.AddSettings(w.env, write(text))
		if len(h.List) != 0 {
			t.Errorf("%s: %d hooks left", text, len(h.List))
		}
	}
}

// TestCompression: once a request used CompressAt of the (small, fake) input limit, the
// next turn first asks the model for a summary of the older history (PreCompress hooks
// run) and sends that summary in place of it, the newest prompt kept as it is.
func TestCompression(t *testing.T) {
	w := newWorld(t, hooksOf(map[string]string{}), "")
	usage := func(prompt int, reply string) fakegemini.Reply {
		r := chunks(text(reply))
		r.Chunks = append(r.Chunks, []byte(`{"usageMetadata":{"promptTokenCount":`+strconv.Itoa(prompt)+`,"candidatesTokenCount":3,"totalTokenCount":`+strconv.Itoa(prompt+3)+`}}`))
		return r
	}
	a, srv := w.agent(t, []fakegemini.Reply{usage(10, "one"), usage(90, "two"), chunks(text("<state_snapshot>asked for one and two</state_snapshot>")), usage(20, "three")})
	pre := filepath.Join(w.env.Cwd, "pre.json")
	a.Hooks.List = nil
	a.Hooks.add("test", "hooks.json", map[string]json.RawMessage{"PreCompress": json.RawMessage(`[{"hooks":[{"command":"cat > ` + pre + `"}]}]`)},
		func(event, command string) (sandbox.Program, error) {
			return sandbox.Program{Path: "/bin/sh", Args: []string{"-c", command}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: w.env.Cwd}, nil
		})
	a.TokenLimit = 100
	var compressed []int
	a.Events.Compressed = func(_ string, before, after int) { compressed = append(compressed, before, after) }
	s := Sessions{Dir: t.TempDir()}.New("m")
	for _, p := range []string{"first question", "second question", "third question"} {
		if _, _, err := a.Turn(context.Background(), s, p); err != nil {
			t.Fatal(err)
		}
	}
	if len(srv.Requests) != 4 || !strings.Contains(string(srv.Requests[2].Body), "state_snapshot") || !strings.Contains(string(srv.Requests[2].Body), "first question") {
		t.Fatalf("%d requests; the summary request: %s", len(srv.Requests), srv.Requests[2].Body)
	}
	last := string(srv.Requests[3].Body)
	if !strings.Contains(last, "asked for one and two") || strings.Contains(last, "first question") || !strings.Contains(last, "third question") {
		t.Errorf("the request after compression: %s", last)
	}
	if data, _ := os.ReadFile(pre); !strings.Contains(string(data), `"trigger":"auto"`) {
		t.Errorf("PreCompress payload: %s", data)
	}
	if len(compressed) != 2 || compressed[0] != 5 || compressed[1] != 3 {
		t.Errorf("compressed %v", compressed)
	}
	if s.Usage.Prompt != 120 || s.Usage.Output != 9 {
		t.Errorf("usage %+v", s.Usage)
	}
	if err := a.Compress(context.Background(), &Session{}, "manual"); !errors.Is(err, ErrNothingToCompress) {
		t.Errorf("an empty conversation: %v", err)
	}
}

// foreignHookTurn runs one turn in which kit's echo is called, with a hook of another
// extension (other) on event printing out, and returns the second request's body and what
// was warned.
func foreignHookTurn(t *testing.T, event, out string) (string, []string) {
	w := newWorld(t, "", "")
	a, srv := w.agent(t, []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("done"))})
	hooks := `[{"hooks":[{"command":"cat > /dev/null; echo '` + out + `'"}]}]`
	a.Hooks.add("other", "hooks.json", map[string]json.RawMessage{event: json.RawMessage(hooks)},
		func(event, command string) (sandbox.Program, error) {
			return sandbox.Program{Path: "/bin/sh", Args: []string{"-c", command}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: w.env.Cwd}, nil
		})
	var warned []string
	a.Hooks.Warn = func(m string) { warned = append(warned, m) }
	if _, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "go"); err != nil {
		t.Fatal(err)
	}
	return string(srv.Requests[1].Body), warned
}

// TestForeignHookCannotRewrite: a hook of another extension cannot rewrite the input of
// kit's tool (the rewrite is ignored, and said); kit's own hook can (TestHookOutputFields).
func TestForeignHookCannotRewrite(t *testing.T) {
	b, warned := foreignHookTurn(t, "BeforeTool", `{\"hookSpecificOutput\":{\"tool_input\":{\"text\":\"from other\"}}}`)
	if strings.Contains(b, "from other") || !strings.Contains(b, "hi") {
		t.Errorf("the foreign rewrite was applied: %s", b)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "tried to rewrite the input of echo, a tool of another extension: ignored") {
		t.Errorf("warnings %q", warned)
	}
}

// TestForeignHookCannotReplaceOutput: a hook of another extension cannot replace what kit's
// tool returned (ignored, and said).
func TestForeignHookCannotReplaceOutput(t *testing.T) {
	b, warned := foreignHookTurn(t, "AfterTool", `{\"hookSpecificOutput\":{\"tool_output\":\"forged by other\"}}`)
	if strings.Contains(b, "forged by other") || !strings.Contains(b, "hi") {
		t.Errorf("the foreign replacement was applied: %s", b)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "tried to replace the output of echo, a tool of another extension: ignored") {
		t.Errorf("warnings %q", warned)
	}
}
