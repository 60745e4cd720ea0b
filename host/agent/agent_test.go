package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"

	"github.com/gemhost/gem/internal/testbins"
)

var echoBin string

func TestMain(m *testing.M) {
	testbins.Main(m, map[*string]string{&echoBin: "../plugins/testdata/echoplugin"})
}

// world is a hermetic home with one extension (the echo plugin, a context file, a hook).
type world struct {
	env registry.Env
	d   *registry.Discovery
	reg *tools.Catalog
}

func newWorld(t testing.TB, hooksJSON string, rules string) *world {
	t.Helper()
	env := registrytest.Env(t, nil)
	files := map[string][]byte{"bin/echo": testhome.Binary(t, echoBin), "GEMINI.md": []byte("Kit knows how to echo.")}
	if hooksJSON != "" {
		files["hooks/hooks.json"] = []byte(hooksJSON)
	}
	registrytest.Extension(t, env, "kit", `{"name":"kit","version":"1.0.0","plugins":{"echo":{"binary":"${extensionPath}/bin/echo"}}}`, files)
	d := registry.Discover(env, registry.Providers)
	engine := &policy.Engine{Mode: policy.ModeYolo, Trusted: true}
	if rules != "" {
		rs, _, err := policy.Parse([]byte(rules), "test.toml", policy.TierUser)
		if err != nil {
			t.Fatal(err)
		}
		engine.Add(rs...)
	}
	reg, errs := tools.Load(context.Background(), env, d, tools.Options{Environ: []string{"PATH=/usr/bin:/bin"}, Policy: engine})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(reg.Close)
	return &world{env: env, d: d, reg: reg}
}

func (w *world) agent(t *testing.T, replies []fakegemini.Reply) (*Agent, *fakegemini.Server) {
	t.Helper()
	srv, err := fakegemini.Start(replies, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	hooks, errs := LoadHooks(launch.New(launch.Options{Env: w.env, Environ: []string{"PATH=/usr/bin:/bin"}}), w.env, w.d, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	files, errs := ContextFiles(w.env, w.d)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return &Agent{Client: GenaiClient(client), Model: "gemini-test", Tools: w.reg, Hooks: hooks,
		System: SystemInstruction(files, nil), Retries: []time.Duration{time.Millisecond, time.Millisecond}}, srv
}

func chunks(parts ...string) fakegemini.Reply {
	var r fakegemini.Reply
	for _, p := range parts {
		r.Chunks = append(r.Chunks, json.RawMessage(`{"candidates":[{"content":{"role":"model","parts":[`+p+`]},"finishReason":"STOP"}]}`))
	}
	return r
}

func call(name, args string) string {
	return `{"functionCall":{"id":"c-` + name + `","name":"` + name + `","args":` + args + `}}`
}

func text(s string) string { b, _ := json.Marshal(s); return `{"text":` + string(b) + `}` }

// body decodes a recorded request body.
func body(t *testing.T, r fakegemini.Request) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body: %v\n%s", err, r.Body)
	}
	return m
}

func TestTurnRunsToolsAndSendsResults(t *testing.T) {
	w := newWorld(t, "", "")
	a, srv := w.agent(t, []fakegemini.Reply{
		chunks(text("Let me "), text("echo.")+`,`+call("echo", `{"text":"ab","times":2}`)),
		chunks(text("It said abab.")),
	})
	var streamed strings.Builder
	a.Events.Text = func(d string) { streamed.WriteString(d) }
	s := Sessions{Dir: t.TempDir()}.New("gemini-test")
	out, st, err := a.Turn(context.Background(), s, "echo ab twice")
	if err != nil {
		t.Fatal(err)
	}
	if out != "It said abab." || streamed.String() != "Let me echo.It said abab." || st.ToolCalls != 1 || st.Requests != 2 {
		t.Errorf("out %q streamed %q stats %+v", out, streamed.String(), st)
	}
	first := body(t, srv.Requests[0])
	if srv.Requests[0].Path != "/v1beta/models/gemini-test:streamGenerateContent" || srv.Requests[0].Query != "alt=sse" || srv.Requests[0].APIKey != "k" {
		t.Errorf("request line: %+v", srv.Requests[0])
	}
	// The request as Gemini CLI sends it: the prompt as a user content, the tools as function
	// declarations with their raw JSON Schema, the context in the system instruction.
	contents := first["contents"].([]any)
	if got := contents[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]; got != "echo ab twice" {
		t.Errorf("prompt part: %v", got)
	}
	decls := first["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	var echo map[string]any
	for _, d := range decls {
		if d.(map[string]any)["name"] == "echo" {
			echo = d.(map[string]any)
		}
	}
	if echo == nil || echo["parametersJsonSchema"].(map[string]any)["properties"].(map[string]any)["text"] == nil {
		t.Errorf("echo declaration: %v", echo)
	}
	sys := first["systemInstruction"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(sys, "--- Context from: "+filepath.Join(w.env.GeminiExtensionsDir(), "kit", "GEMINI.md")+" ---\nKit knows how to echo.") {
		t.Errorf("system instruction: %s", sys)
	}
	// The second request carries the model's call and the tool's response.
	second := body(t, srv.Requests[1])["contents"].([]any)
	resp := second[2].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)
	if resp["name"] != "echo" || resp["id"] != "c-echo" || resp["response"].(map[string]any)["output"] != "abab" {
		t.Errorf("function response: %v", resp)
	}
	// The session keeps the whole exchange and can be saved and resumed.
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	back, err := Sessions{Dir: filepath.Dir(s.path)}.Load("latest")
	if err != nil || len(back.History) != 4 {
		t.Errorf("resumed: %v %d", err, len(back.History))
	}
}

func TestDeniedAndBlockedCallsAreAnsweredAsErrors(t *testing.T) {
	hook := `{"hooks":{"BeforeTool":[{"matcher":"count","hooks":[{"type":"command","command":"cat > /dev/null; echo 'no counting today' >&2; exit 2"}]}]}}`
	w := newWorld(t, hook, "[[rule]]\ntoolName = \"fail\"\ndecision = \"deny\"\n")
	a, srv := w.agent(t, []fakegemini.Reply{
		chunks(call("fail", `{}`) + `,` + call("count", `{}`) + `,` + call("nosuch", `{}`)),
		chunks(text("ok")),
	})
	_, st, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "go")
	if err != nil {
		t.Fatal(err)
	}
	if st.Failed != 3 {
		t.Errorf("failed calls: %+v", st)
	}
	parts := body(t, srv.Requests[1])["contents"].([]any)[2].(map[string]any)["parts"].([]any)
	want := []string{"denied by the policy rule", "blocked by a hook: BeforeTool hook of kit: no counting today", `no tool "nosuch"`}
	for i, p := range parts {
		msg := p.(map[string]any)["functionResponse"].(map[string]any)["response"].(map[string]any)["error"]
		if s, _ := msg.(string); !strings.Contains(s, want[i]) {
			t.Errorf("response %d: %v, want %q", i, msg, want[i])
		}
	}
}

func TestServerFailuresAreClear(t *testing.T) {
	w := newWorld(t, "", "")
	status := func(code int, body string) fakegemini.Reply {
		return fakegemini.Reply{Status: code, Body: json.RawMessage(body)}
	}
	cases := []struct {
		reply fakegemini.Reply
		want  string
		kind  APIErrorKind
	}{
		{status(429, `{"error":{"code":429,"message":"quota exceeded","status":"RESOURCE_EXHAUSTED"}}`), "the Gemini API answered 429 RESOURCE_EXHAUSTED: quota exceeded", APIQuota},
		{status(400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}`), "400 INVALID_ARGUMENT: API key not valid", APIAuth},
		{status(403, `{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}`), "403 PERMISSION_DENIED", APIAuth},
		{status(404, `{"error":{"code":404,"message":"models/nope is not found","status":"NOT_FOUND"}}`), "404 NOT_FOUND", APIModel},
		{status(400, `{"error":{"code":400,"message":"contents is empty","status":"INVALID_ARGUMENT"}}`), "contents is empty", APIRequest},
		{status(500, `{"error":{"code":500,"message":"oops","status":"INTERNAL"}}`), "500 INTERNAL", APIServer},
		{fakegemini.Reply{Raw: "data: {not json\r\n\r\n"}, "talking to the Gemini API", APINetwork},
		{chunks(), "the model sent an empty response", ""},
	}
	for _, c := range cases {
		a, _ := w.agent(t, []fakegemini.Reply{c.reply, c.reply, c.reply})
		_, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "hi")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		var api *APIError
		if got := errors.As(err, &api); got != (c.kind != "") || (got && api.Kind != c.kind) {
			t.Errorf("%v: kind %+v, want %q", err, api, c.kind)
		}
	}
}

func TestCancelEndsTheTurn(t *testing.T) {
	w := newWorld(t, "", "")
	a, _ := w.agent(t, []fakegemini.Reply{{DelayMs: 10000, Chunks: chunks(text("late")).Chunks}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := a.Turn(ctx, Sessions{Dir: t.TempDir()}.New("m"), "hi")
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Errorf("cancel: %v after %s", err, time.Since(start))
	}
}

func TestPromptCommandExpansion(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("remember the milk"), 0o644)
	var ran []string
	e := Expander{Root: root, Shell: func(_ context.Context, _ *PromptCommand, cmd string) (string, int, error) {
		ran = append(ran, cmd)
		return "shell says hi", 0, nil
	}}
	cases := []struct {
		prompt, args, want string
	}{
		{"Review {{args}} please", "main.go", "Review main.go please"},
		{"Summarise", "this file", "Summarise\n\n/c this file"},
		{"Status: !{git status {{args}}}", "a b", "Status: shell says hi"},
		{"Notes: @{notes.txt}", "", "Notes: Content from @notes.txt:\nremember the milk"},
	}
	for _, c := range cases {
		got, err := e.Expand(context.Background(), &PromptCommand{Name: "c", Prompt: c.prompt}, c.args)
		if err != nil || got != c.want {
			t.Errorf("%q %q: %q %v, want %q", c.prompt, c.args, got, err, c.want)
		}
	}
	if len(ran) != 1 || ran[0] != "git status 'a b'" {
		t.Errorf("shell got %q (args are quoted inside !{})", ran)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("s"), 0o644)
	rel, _ := filepath.Rel(root, outside)
	if _, err := e.Expand(context.Background(), &PromptCommand{Name: "c", Prompt: "@{" + rel + "}"}, ""); err == nil || !strings.Contains(err.Error(), "outside the project") {
		t.Errorf("escape: %v", err)
	}
	if _, err := e.Expand(context.Background(), &PromptCommand{Name: "c", Prompt: "!{unclosed"}, ""); err == nil || !strings.Contains(err.Error(), "no closing }") {
		t.Errorf("unclosed: %v", err)
	}
}

// BenchmarkToolCallOverhead: the loop's own cost per tool call, without the model: the time
// a turn spends on a call (arguments decoded, hooks, catalog with validation and policy,
// plugin round trip, FunctionResponse built) against the same call made straight on the
// catalog, interleaved; p50 of each and the difference.
func BenchmarkToolCallOverhead(b *testing.B) {
	w := newWorld(b, "", "")
	var replies []fakegemini.Reply
	for i := 0; i < b.N; i++ {
		replies = append(replies, chunks(call("echo", `{"text":"x"}`)), chunks(text("ok")))
	}
	srv, err := fakegemini.Start(replies, "")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	client, _ := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	a := &Agent{Client: GenaiClient(client), Model: "m", Tools: w.reg}
	ctx := context.Background()
	if _, err := w.reg.Call(ctx, "echo", json.RawMessage(`{"text":"x"}`), a.CallOptions); err != nil {
		b.Fatal(err)
	}
	var inLoop, direct []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, st, err := a.Turn(ctx, Sessions{Dir: b.TempDir()}.New("m"), "go")
		if err != nil || st.ToolCalls != 1 {
			b.Fatal(err, st)
		}
		inLoop = append(inLoop, st.ToolTime)
		t0 := time.Now()
		if _, err := w.reg.Call(ctx, "echo", json.RawMessage(`{"text":"x"}`), a.CallOptions); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(t0))
	}
	sort.Slice(inLoop, func(i, j int) bool { return inLoop[i] < inLoop[j] })
	sort.Slice(direct, func(i, j int) bool { return direct[i] < direct[j] })
	l, d := inLoop[len(inLoop)/2], direct[len(direct)/2]
	b.ReportMetric(float64(l.Microseconds()), "in-loop-p50-µs")
	b.ReportMetric(float64(d.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64((l - d).Microseconds()), "overhead-µs")
}

func TestHookEventsAndPayloads(t *testing.T) {
	log := `cat >> "$GEM_WORKSPACE/events.jsonl"; echo >> "$GEM_WORKSPACE/events.jsonl"`
	hooks := `{"hooks": {` +
		`"BeforeModel": [{"hooks": [{"type": "command", "command": "` + strings.ReplaceAll(log, `"`, `\"`) + `"}]}],` +
		`"AfterModel": [{"hooks": [{"type": "command", "command": "` + strings.ReplaceAll(log, `"`, `\"`) + `"}]}],` +
		`"BeforeTool": [{"matcher": "echo|count", "hooks": [{"type": "command", "command": "` + strings.ReplaceAll(log, `"`, `\"`) + `"}]}],` +
		`"AfterTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + strings.ReplaceAll(log, `"`, `\"`) + `"}]}],` +
		`"SessionStart": [{"hooks": [{"type": "command", "command": "echo '{\"decision\":\"block\",\"reason\":\"ignored\"}'"}]}]}}`
	w := newWorld(t, hooks, "")
	a, _ := w.agent(t, []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("done"))})
	s := Sessions{Dir: t.TempDir()}.New("m")
	if out := a.Hooks.Run(context.Background(), "SessionStart", map[string]any{"session_id": s.ID}); out.Blocked != nil {
		t.Errorf("only BeforeTool and BeforeAgent block: %v", out.Blocked)
	}
	if _, _, err := a.Turn(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(w.env.Cwd, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("hook input is not JSON: %q", line)
		}
		if e["session_id"] != s.ID || e["cwd"] == nil || e["timestamp"] == nil || e["transcript_path"] != s.Path() || !strings.HasSuffix(s.Path(), s.ID+".json") {
			t.Errorf("payload: %v", e)
		}
		name := e["hook_event_name"].(string)
		if tool, ok := e["tool_name"].(string); ok {
			name += ":" + tool
		}
		if e["hook_event_name"] == "AfterTool" && e["tool_response"].(map[string]any)["text"] != "hi" {
			t.Errorf("AfterTool payload: %v", e)
		}
		events = append(events, name)
	}
	want := "BeforeModel,AfterModel,BeforeTool:echo,AfterTool:echo,BeforeModel,AfterModel"
	if got := strings.Join(events, ","); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestSkillsAndSystemInstruction(t *testing.T) {
	w := newWorld(t, "", "")
	dir := filepath.Join(w.env.GeminiExtensionsDir(), "kit", "skills")
	os.MkdirAll(filepath.Join(dir, "pdf"), 0o755)
	os.MkdirAll(filepath.Join(dir, "plain"), 0o755)
	os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: Fill in PDF forms\n---\n# PDF\nsteps"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain", "SKILL.md"), []byte("# Plain\n\nDoes plain things.\n"), 0o644)
	skills := Skills(w.env, registry.Discover(w.env, registry.Providers))
	if len(skills) != 2 || skills[0].Description != "Fill in PDF forms" || skills[1].Description != "Does plain things." {
		t.Fatalf("skills: %+v", skills)
	}
	files, errs := ContextFiles(w.env, w.d)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	sys := SystemInstruction(files, skills)
	for _, want := range []string{BasePrompt, "Kit knows how to echo.", "- pdf (kit): Fill in PDF forms"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system instruction lacks %q:\n%s", want, sys)
		}
	}
}

func TestPromptCommandNamesAndConflicts(t *testing.T) {
	w := newWorld(t, "", "")
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(text), 0o644)
	}
	ext := filepath.Join(w.env.GeminiExtensionsDir(), "kit", "commands")
	write(filepath.Join(ext, "git", "commit.toml"), `prompt = "commit"`+"\n"+`description = "Commit"`)
	write(filepath.Join(ext, "review.toml"), `prompt = "ext review"`)
	write(filepath.Join(ext, "broken.toml"), `description = "no prompt"`)
	write(filepath.Join(w.env.GeminiHome, ".gemini", "commands", "review.toml"), `prompt = "user review"`)
	cmds, errs := PromptCommands(w.env, registry.Discover(w.env, registry.Providers))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `broken.toml: "prompt" is missing`) {
		t.Errorf("errors: %v", errs)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, c.Name+"="+c.Source)
	}
	if strings.Join(got, ",") != "git:commit=extension,kit.review=extension,review=user" {
		t.Errorf("commands: %v", got)
	}
}

func TestOverloadIsRetried(t *testing.T) {
	w := newWorld(t, "", "")
	busy := fakegemini.Reply{Status: 503, Body: json.RawMessage(`{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`)}
	a, srv := w.agent(t, []fakegemini.Reply{busy, busy, chunks(text("finally"))})
	out, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "hi")
	if err != nil || out != "finally" || len(srv.Requests) != 3 {
		t.Errorf("%q %v after %d requests", out, err, len(srv.Requests))
	}
	a, _ = w.agent(t, []fakegemini.Reply{busy, busy, busy, chunks(text("too late"))})
	if _, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "hi"); err == nil || !strings.Contains(err.Error(), "503 UNAVAILABLE: overloaded") {
		t.Errorf("after the retries: %v", err)
	}
}

func TestFailingHookIsReported(t *testing.T) {
	w := newWorld(t, `{"hooks":{"AfterModel":[{"hooks":[{"type":"command","command":"echo broken >&2; exit 3"}]}],"BeforeModel":[{"hooks":[{"type":"command","command":"sleep 5","timeout":100}]}]}}`, "")
	a, _ := w.agent(t, []fakegemini.Reply{chunks(text("ok"))})
	var warned []string
	a.Hooks.Warn = func(m string) { warned = append(warned, m) }
	if out, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "hi"); err != nil || out != "ok" {
		t.Fatalf("a failing hook must not stop the turn: %q %v", out, err)
	}
	got := strings.Join(warned, "\n")
	for _, want := range []string{"BeforeModel hook of kit timed out and was killed (timeout: 100ms)", "AfterModel hook of kit failed (exit status: 3) (stderr: broken): check kit's hooks/hooks.json"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
}

// TestHookOutputs: Gemini CLI's hook output fields change the turn: BeforeAgent's
// additionalContext goes with the prompt and its systemMessage to the user; AfterTool's
// additionalContext goes with the tool's result; "continue": false ends the turn with its
// stopReason; a BeforeAgent block refuses the prompt; AfterAgent runs at the end.
func TestHookOutputs(t *testing.T) {
	say := func(json string) string { return "echo '" + json + "'" }
	hooks := func(before, afterTool string) string {
		return `{"hooks": {` +
			`"BeforeAgent": [{"hooks": [{"type": "command", "command": ` + quote(say(before)) + `}]}],` +
			`"AfterTool": [{"matcher": "echo", "hooks": [{"type": "command", "command": ` + quote(say(afterTool)) + `}]}],` +
			`"AfterAgent": [{"hooks": [{"type": "command", "command": ` + quote(`cat > "$GEM_WORKSPACE/after.json"`) + `}]}]}}`
	}
	t.Run("context and messages", func(t *testing.T) {
		w := newWorld(t, hooks(`{"systemMessage":"checked","hookSpecificOutput":{"additionalContext":"The user prefers short answers."}}`,
			`{"hookSpecificOutput":{"additionalContext":"Note: echo output is trusted."}}`), "")
		a, srv := w.agent(t, []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("done"))})
		var said []string
		a.Hooks.Say = func(m string) { said = append(said, m) }
		s := Sessions{Dir: t.TempDir()}.New("m")
		if _, _, err := a.Turn(context.Background(), s, "go"); err != nil {
			t.Fatal(err)
		}
		if first := string(srv.Requests[0].Body); !strings.Contains(first, `go\n\nThe user prefers short answers.`) {
			t.Errorf("BeforeAgent context not with the prompt: %s", first)
		}
		if second := string(srv.Requests[1].Body); !strings.Contains(second, `Note: echo output is trusted.`) {
			t.Errorf("AfterTool context not with the result: %s", second)
		}
		if len(said) != 1 || !strings.Contains(said[0], "[BeforeAgent hook of kit] checked") {
			t.Errorf("systemMessage: %q", said)
		}
		if data, _ := os.ReadFile(filepath.Join(w.env.Cwd, "after.json")); !strings.Contains(string(data), `"prompt_response":"done"`) {
			t.Errorf("AfterAgent payload: %s", data)
		}
	})
	t.Run("stop after a tool", func(t *testing.T) {
		w := newWorld(t, hooks(`{}`, `{"continue":false,"stopReason":"enough for today"}`), "")
		a, srv := w.agent(t, []fakegemini.Reply{chunks(call("echo", `{"text":"hi"}`)), chunks(text("never sent"))})
		_, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "go")
		var stopped *StoppedError
		if !errors.As(err, &stopped) || stopped.Reason != "enough for today" || len(srv.Requests) != 1 {
			t.Errorf("turn: %v, %d requests", err, len(srv.Requests))
		}
	})
	t.Run("prompt blocked", func(t *testing.T) {
		w := newWorld(t, hooks(`{"decision":"block","reason":"not on Sundays"}`, `{}`), "")
		a, srv := w.agent(t, []fakegemini.Reply{chunks(text("never"))})
		_, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "go")
		if err == nil || !strings.Contains(err.Error(), "not on Sundays") || len(srv.Requests) != 0 {
			t.Errorf("turn: %v, %d requests", err, len(srv.Requests))
		}
	})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestExpandAtPaths: @file and @folder add the project's files after the prompt; an e-mail
// address, a missing path and a file outside the project add nothing (outside: an error);
// a folder's hidden files and those .gitignore ignores are left out.
func TestExpandAtPaths(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("the notes"), 0o644)
	os.WriteFile(filepath.Join(root, "my file.txt"), []byte("spaced"), 0o644)
	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("package a"), 0o644)
	os.WriteFile(filepath.Join(root, "src", ".hidden"), []byte("no"), 0o644)
	os.WriteFile(filepath.Join(root, "src", "debug.log"), []byte("ignored by git"), 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link"))
	e := Expander{Root: root}
	tests := []struct {
		prompt   string
		contains []string
		absent   []string
		errs     int
	}{
		{"explain @notes.txt please", []string{"Content from @notes.txt:\nthe notes", "--- Content from referenced files ---"}, nil, 0},
		{"look at @src", []string{"Content from @src/a.go:\npackage a"}, []string{"no", "ignored by git"}, 0},
		{`read @my\ file.txt`, []string{"spaced"}, nil, 0},
		{"mail me@example.com and @missing.txt", nil, []string{"Content from"}, 0},
		{"read @link", nil, []string{"secret"}, 1},
	}
	for _, tt := range tests {
		got, errs := e.ExpandAtPaths(tt.prompt)
		if !strings.HasPrefix(got, tt.prompt) || len(errs) != tt.errs {
			t.Errorf("%q: %q %v", tt.prompt, got, errs)
		}
		for _, c := range tt.contains {
			if !strings.Contains(got, c) {
				t.Errorf("%q lacks %q: %q", tt.prompt, c, got)
			}
		}
		for _, a := range tt.absent {
			if strings.Contains(strings.TrimPrefix(got, tt.prompt), a) {
				t.Errorf("%q has %q: %q", tt.prompt, a, got)
			}
		}
	}
}

// TestSkillPrecedenceAndActivation: the workspace's skill (trusted folder only) wins over the
// user's, which wins over an extension's; the front matter names a skill; the model
// activates one with activate_skill, and its instructions join the system instruction of the
// next request.
func TestSkillPrecedenceAndActivation(t *testing.T) {
	w := newWorld(t, "", "")
	write := func(dir, body string) {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644)
	}
	write(filepath.Join(w.env.GeminiExtensionsDir(), "kit", "skills", "review"), "---\ndescription: the kit's review\n---\nKIT REVIEW")
	write(filepath.Join(w.env.GeminiHome, ".gemini", "skills", "rev"), "---\nname: review\ndescription: my review\n---\nUSER REVIEW STEPS")
	write(filepath.Join(w.env.Cwd, ".gemini", "skills", "review"), "---\ndescription: the project's review\n---\nPROJECT REVIEW")
	write(filepath.Join(w.env.GeminiHome, ".gemini", "skills", "tidy"), "Tidies things.")
	skills := Skills(w.env, w.d)
	if len(skills) != 2 || skills[0].Name != "review" || skills[0].Extension != "user" || skills[1].Name != "tidy" {
		t.Fatalf("untrusted folder: the user's review wins over the kit's, the project's is not read: %+v", skills)
	}
	if err := registry.SetFolderTrust(w.env, w.env.Cwd, registry.TrustFolder); err != nil {
		t.Fatal(err)
	}
	if skills = Skills(w.env, w.d); skills[0].Extension != "workspace" || !strings.Contains(skills[0].Text, "PROJECT REVIEW") {
		t.Fatalf("trusted folder: the project's review wins: %+v", skills)
	}
	registry.SetFolderTrust(w.env, w.env.Cwd, "")
	skills = Skills(w.env, w.d)

	a, srv := w.agent(t, []fakegemini.Reply{chunks(call("activate_skill", `{"name":"review"}`)), chunks(text("reviewed"))})
	a.Skills = skills
	var events []string // activate_skill is a call like any: its result is paired with it
	a.Events.ToolCall = func(id, name string, _ json.RawMessage) { events = append(events, "call "+name) }
	a.Events.ToolResult = func(id, name string, res *tools.Result, err error) {
		events = append(events, fmt.Sprintf("result %s %v", name, err == nil && res != nil && strings.Contains(res.Text, "USER REVIEW STEPS")))
	}
	if _, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "review this"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events, "; "); got != "call activate_skill; result activate_skill true" {
		t.Errorf("events: %s", got)
	}
	first, second := string(srv.Requests[0].Body), string(srv.Requests[1].Body)
	if !strings.Contains(first, `"name":"activate_skill"`) || strings.Contains(first, "USER REVIEW STEPS") {
		t.Errorf("first request: the tool, not yet the skill: %s", first)
	}
	if !strings.Contains(second, "--- Active skill: review (user) ---") || !strings.Contains(second, "USER REVIEW STEPS") {
		t.Errorf("second request lacks the active skill: %s", second)
	}
}

// TestAgentToolsGoThroughThePolicy: activate_skill and a subagent are tools like the
// catalog's: a policy rule denies them, the refusal is paired with the call, and what is
// not denied still runs.
func TestAgentToolsGoThroughThePolicy(t *testing.T) {
	w := newWorld(t, "", "[[rule]]\ntoolName = \"activate_skill\"\ndecision = \"deny\"\n\n[[rule]]\ntoolName = \"helper\"\ndecision = \"deny\"\n")
	a, srv := w.agent(t, []fakegemini.Reply{
		chunks(call("activate_skill", `{"name":"tidy"}`), call("helper", `{"query":"look around"}`), call("echo", `{"text":"still runs"}`)),
		chunks(text("done")),
	})
	a.Skills = []Skill{{Name: "tidy", Text: "TIDY STEPS", Extension: "user"}}
	a.Subagents = []*Subagent{{Name: "helper", Description: "helps", Source: "user", Prompt: "help"}}
	var events []string
	a.Events.ToolResult = func(id, name string, res *tools.Result, err error) {
		events = append(events, fmt.Sprintf("%s denied=%v", name, errors.Is(err, tools.ErrDenied)))
	}
	if _, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("m"), "go"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events, "; "); got != "activate_skill denied=true; helper denied=true; echo denied=false" {
		t.Errorf("events: %s", got)
	}
	if second := string(srv.Requests[1].Body); strings.Contains(second, "TIDY STEPS") || !strings.Contains(second, "still runs") {
		t.Errorf("a denied skill stays inactive, the allowed call ran: %s", second)
	}
	if len(srv.Requests) != 2 {
		t.Errorf("the denied subagent made %d requests", len(srv.Requests)-2)
	}
}

// TestActiveSkillsAreTheSessions: an activated skill belongs to the conversation, not the
// agent: it is kept with the session (a resumed one has it), and a new session starts
// without it.
func TestActiveSkillsAreTheSessions(t *testing.T) {
	w := newWorld(t, "", "")
	a, srv := w.agent(t, []fakegemini.Reply{chunks(call("activate_skill", `{"name":"tidy"}`)), chunks(text("ok")), chunks(text("resumed")), chunks(text("fresh"))})
	a.Skills = []Skill{{Name: "tidy", Text: "TIDY STEPS", Extension: "user"}}
	store := Sessions{Dir: t.TempDir()}
	s := store.New("m")
	if _, _, err := a.Turn(context.Background(), s, "tidy up"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	resumed, err := store.Load(s.ID)
	if err != nil || !slices.Equal(resumed.ActiveSkills, []string{"tidy"}) {
		t.Fatalf("resumed session's skills: %v, %v", resumed, err)
	}
	if _, _, err := a.Turn(context.Background(), resumed, "again"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Turn(context.Background(), store.New("m"), "new"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(srv.Requests[2].Body), "TIDY STEPS") || strings.Contains(string(srv.Requests[3].Body), "TIDY STEPS") {
		t.Errorf("the resumed session keeps the skill, a new one starts without it")
	}
}

// TestSessionIDsUnique: sessions a process makes in the same second (the SDK's, gem acp's)
// get ids of their own, which sort as they were made; a new second starts again.
func TestSessionIDsUnique(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	later := at.Add(time.Second)
	var ids []string
	for _, when := range []time.Time{at, at, at, later, later} {
		ids = append(ids, newSessionID(when))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("id %s made twice: %q", id, ids)
		}
		seen[id] = true
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids do not sort as made: %q", ids)
	}
	if !strings.HasPrefix(ids[3], "20261124-120001-") || strings.Count(ids[3], "-") != 2 {
		t.Errorf("a new second's first id %q should be time and process only", ids[3])
	}
}
