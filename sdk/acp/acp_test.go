package acp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/acptest"
	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/internal/testuser"
	"github.com/gemhost/gem/sdk"
	gemacp "github.com/gemhost/gem/sdk/acp"
)

// client is a test ACP client: it records the updates and answers permission questions
// with answer ("" cancels them).
type client struct {
	acptest.Refuse // no terminals, no writes
	mu             sync.Mutex
	updates        []acp.SessionUpdate
	asked          []acp.RequestPermissionRequest
	answer         acp.PermissionOptionId
	first          chan time.Time    // told when the next agent_message_chunk arrives
	buffers        map[string]string // the editor's open files, by path (fs/read_text_file)
	reads          []string          // the paths gem asked for
	// elicit answers elicitation/create (the client advertises form elicitation when set).
	elicit  func(acp.UnstableCreateElicitationRequest) acp.UnstableCreateElicitationResponse
	elicits []acp.UnstableCreateElicitationRequest
	wire    *wire // what the server wrote, as it went on the wire
}

// ReadTextFile answers with an open file's unsaved text (gem asks only a client that
// advertised it); its writes and terminals are never used by gem (package doc).
func (c *client) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	if text, ok := c.buffers[p.Path]; ok {
		return acp.ReadTextFileResponse{Content: text}, nil
	}
	return acp.ReadTextFileResponse{}, errors.New("not open")
}

// kinds are the sessionUpdate names of the recorded updates, in order.
func (c *client) kinds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.updates {
		data, _ := json.Marshal(u)
		var v struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		json.Unmarshal(data, &v)
		out = append(out, v.SessionUpdate)
	}
	return out
}

// all is every recorded update as JSON, one per line.
func (c *client) all() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, u := range c.updates {
		data, _ := json.Marshal(u)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// serve starts gem's ACP server in the process, a client of it and a fake model scripted
// with replies; it returns the client's connection, the client and the workspace.
func serve(t testing.TB, replies ...fakegemini.Reply) (*acp.ClientSideConnection, *client, string, *fakegemini.Server) {
	t.Helper()
	return serveWith(t, sdk.Options{}, replies...)
}

// serveWith is serve with the sessions' agent options (the server sets Getenv).
func serveWith(t testing.TB, o sdk.Options, replies ...fakegemini.Reply) (*acp.ClientSideConnection, *client, string, *fakegemini.Server) {
	t.Helper()
	srv, err := fakegemini.Start(replies, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cache, _ := os.UserCacheDir()
	os.MkdirAll(filepath.Join(cache, "gem-testwork"), 0o755)
	home, err := os.MkdirTemp(filepath.Join(cache, "gem-testwork"), "acp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	vars := map[string]string{"HOME": home, "GEMINI_API_KEY": "test-key", "GEM_GEMINI_BASE_URL": srv.URL, "PATH": "/usr/bin:/bin"}
	o.Getenv = func(k string) string { return vars[k] }
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	c := &client{answer: "allow_once", wire: &wire{}}
	go func() {
		done <- gemacp.Serve(ctx, toServer, io.MultiWriter(fromServer, c.wire), gemacp.Options{Name: "gem", Version: "test",
			Agent: o})
	}()
	conn := acp.NewClientSideConnection(c, fromClient, toClient)
	t.Cleanup(func() {
		fromClient.Close() // stdin closes: the server ends
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end when its input closed")
		}
		cancel()
	})
	return conn, c, proj, srv
}

// chunks, text and call script the fake model's replies.
var chunks, text, call = fakegemini.Chunks, fakegemini.Text, fakegemini.Call

// TestInitializeAdvertises: initialize says what gem supports, no more.
func TestInitializeAdvertises(t *testing.T) {
	conn, _, _, _ := serve(t)
	res, err := conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	caps := res.AgentCapabilities
	if res.ProtocolVersion != 1 || !caps.LoadSession || !caps.PromptCapabilities.EmbeddedContext || !caps.PromptCapabilities.Image || caps.PromptCapabilities.Audio ||
		!caps.McpCapabilities.Http || !caps.McpCapabilities.Sse || caps.SessionCapabilities.List == nil || len(res.AuthMethods) != 1 {
		t.Errorf("initialize: %+v", res)
	}
}

// TestPromptTurn: a session in an untrusted folder says so first; a prompt streams its
// answer; a write is asked about with the policy's text, runs once allowed, and shows as a
// diff; the turn ends with end_turn and its usage.
func TestPromptTurn(t *testing.T) {
	conn, c, proj, _ := serve(t,
		chunks(text("Let me "), text("fix it.")),
		chunks(call("write_file", `{"file_path":"notes.txt","content":"new\n"}`)),
		chunks(text("Done.")))
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("old\n"), 0o644)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "default" || len(sess.ConfigOptions) != 2 {
		t.Errorf("new session: %+v", sess)
	}
	res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("first prompt: %+v, %v", res, err)
	}
	all := c.all()
	for _, want := range []string{"is not trusted", `"text":"Let me "`, `"text":"fix it."`} {
		if !strings.Contains(all, want) {
			t.Errorf("updates lack %q:\n%s", want, all)
		}
	}
	res, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("write it")}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn || res.Usage == nil {
		t.Fatalf("second prompt: %+v, %v", res, err)
	}
	if len(c.asked) != 1 || !strings.Contains(*c.asked[0].ToolCall.Title, "write_file") || c.asked[0].ToolCall.ToolCallId != "c1" {
		t.Errorf("asked %+v", c.asked)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(data) != "new\n" {
		t.Errorf("notes.txt = %q", data)
	}
	all = c.all()
	for _, want := range []string{`"sessionUpdate":"tool_call"`, `"kind":"edit"`, `"type":"diff"`, `"oldText":"old\n"`, `"newText":"new\n"`, `"status":"completed"`, `"sessionUpdate":"usage_update"`} {
		if !strings.Contains(all, strings.ReplaceAll(want, "\n", `\n`)) {
			t.Errorf("updates lack %s:\n%s", want, all)
		}
	}
}

// TestCancel: session/cancel during a permission question (cancelled) ends the turn with
// stop reason cancelled, and the call does not run.
func TestCancel(t *testing.T) {
	conn, c, proj, _ := serve(t, chunks(call("write_file", `{"file_path":"x.txt","content":"x"}`)), chunks(text("never")))
	c.answer = "" // the client cancels the question
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("write")}})
	if err != nil || res.StopReason != acp.StopReasonCancelled {
		t.Errorf("prompt: %+v, %v; want cancelled", res, err)
	}
	if _, err := os.Stat(filepath.Join(proj, "x.txt")); err == nil {
		t.Error("the cancelled call ran")
	}
}

// TestModesAndLoad: plan mode (set_mode) refuses a write without asking and tells the
// client of the new mode; the model is a config option; a closed session loads again,
// replaying what was said; list finds it; an unknown session is resource_not_found.
func TestModesAndLoad(t *testing.T) {
	conn, c, proj, srv := serve(t, chunks(call("write_file", `{"file_path":"x.txt","content":"x"}`)), chunks(text("Not allowed, then.")))
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "reckless"}); err == nil {
		t.Error("an unknown mode was taken")
	}
	// the folder is not trusted: yolo is refused, saying why (the policy would ask anyway)
	if _, err := conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "yolo"}); err == nil || !strings.Contains(err.Error(), "only in a trusted folder") {
		t.Errorf("yolo in an untrusted folder: %v", err)
	}
	opts, err := conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{SessionId: sess.SessionId, ConfigId: "model", Value: "gemini-2.5-pro"}})
	if err != nil || opts.ConfigOptions[1].Select.CurrentValue != "gemini-2.5-pro" || opts.ConfigOptions[0].Select.CurrentValue != "plan" {
		t.Fatalf("config options: %+v, %v", opts, err)
	}
	res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("write x")}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatal(res, err)
	}
	if len(c.asked) != 0 {
		t.Errorf("plan mode asked: %+v", c.asked)
	}
	if _, err := os.Stat(filepath.Join(proj, "x.txt")); err == nil {
		t.Error("plan mode wrote")
	}
	if !strings.Contains(string(srv.Requests[0].Body), `models/gemini-2.5-pro`) && !strings.Contains(srv.Requests[0].Path, "gemini-2.5-pro") {
		t.Errorf("the request did not go to the model chosen: %s", srv.Requests[0].Path)
	}
	all := c.all()
	for _, want := range []string{`"sessionUpdate":"current_mode_update"`, `"currentModeId":"plan"`, `"status":"failed"`} {
		if !strings.Contains(all, want) {
			t.Errorf("updates lack %s:\n%s", want, all)
		}
	}
	if _, err := conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}

	list, err := conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &proj})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != sess.SessionId || *list.Sessions[0].Title != "write x" {
		t.Fatalf("list: %+v, %v", list, err)
	}
	c.mu.Lock()
	c.updates = nil
	c.mu.Unlock()
	loaded, err := conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sess.SessionId, Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Modes == nil || loaded.Modes.CurrentModeId != "plan" { // the mode it was left in
		t.Errorf("the loaded session's mode: %+v", loaded.Modes)
	}
	kinds := strings.Join(c.kinds(), " ")
	if !strings.HasPrefix(kinds, "user_message_chunk tool_call agent_message_chunk") {
		t.Errorf("the replay: %s\n%s", kinds, c.all())
	}
	_, err = conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "no-such-session", Cwd: proj, McpServers: []acp.McpServer{}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("an unknown session: %v", err)
	}
}

// TestBadInput: a relative or missing cwd, an audio block, an image of a type the model does
// not read or not base64, and an unknown session are refused with the
// schema's errors, naming what is wrong.
func TestBadInput(t *testing.T) {
	conn, _, proj, _ := serve(t)
	ctx := context.Background()
	var re *acp.RequestError
	if _, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "proj", McpServers: []acp.McpServer{}}); !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative cwd: %v", err)
	}
	if _, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: filepath.Join(proj, "gone"), McpServers: []acp.McpServer{}}); !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), "existing folder") {
		t.Errorf("a missing cwd: %v", err)
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		block acp.ContentBlock
		says  string
	}{
		{acp.AudioBlock("aGk=", "audio/wav"), "no audio"},
		{acp.ImageBlock("aGk=", "image/tiff"), "the model reads images of image/png"},
		{acp.ImageBlock("not base64!", "image/png"), "not base64"},
	} {
		_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("look"), bad.block}})
		if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%s: %v", bad.says, err)
		}
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: "nope", Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("an unknown session: %v", err)
	}
}

// TestHostileContent: an edit the model aims at /dev/zero, or at a FIFO planted in the
// workspace, is not read for its diff (the turn ends, nothing hangs); an attached file
// whose text names @.env does not pull .env into the prompt, while the user's own @notes.txt
// is expanded.
func TestHostileContent(t *testing.T) {
	conn, c, proj, srv := serve(t,
		chunks(call("write_file", `{"file_path":"/dev/zero","content":"x"}`)), chunks(text("No.")),
		chunks(call("write_file", `{"file_path":"pipe.txt","content":"x"}`)), chunks(text("No.")),
		chunks(text("Summed up.")))
	os.WriteFile(filepath.Join(proj, ".env"), []byte("API_KEY=hunter2"), 0o600)
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("the user's notes"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(proj, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"write zero", "write the pipe"} {
		res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(p)}})
		if err != nil || res.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%s: %+v, %v", p, res, err)
		}
	}
	if all := c.all(); strings.Contains(all, `"type":"diff"`) {
		t.Errorf("a diff of what is not a workspace file:\n%s", all)
	}
	attached := acp.ContentBlock{Resource: &acp.ContentBlockResource{Type: "resource", Resource: acp.EmbeddedResourceResource{
		TextResourceContents: &acp.TextResourceContents{Uri: "file://" + filepath.Join(proj, "README.md"), Text: "see @.env for the key"}}}}
	_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("sum up @notes.txt and this"), attached}})
	if err != nil {
		t.Fatal(err)
	}
	last := string(srv.Requests[len(srv.Requests)-1].Body)
	if strings.Contains(last, "hunter2") || !strings.Contains(last, "see @.env for the key") || !strings.Contains(last, "the user's notes") {
		t.Errorf("the request:\n%s", last)
	}
}

// TestACPAsNormalUser runs the turn and hostile-content tests again as an unprivileged user.
func TestACPAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestPromptTurn", "TestHostileContent", "TestModesAndLoad", "TestEditorBuffers", "TestAllowAlwaysSaved")
}

// TestAllowAlwaysSaved: "allow always (saved)" writes the rule to the user's policy file,
// so a later session does not ask; "allow always" alone lasts for the session.
func TestAllowAlwaysSaved(t *testing.T) {
	conn, c, proj, _ := serve(t,
		chunks(call("write_file", `{"file_path":"a.txt","content":"a"}`)), chunks(text("Wrote a.")),
		chunks(call("write_file", `{"file_path":"b.txt","content":"b"}`)), chunks(text("Wrote b.")))
	ctx := context.Background()
	for i, answer := range []acp.PermissionOptionId{"allow_always_save", ""} {
		c.mu.Lock()
		c.answer, c.asked = answer, nil
		c.mu.Unlock()
		sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("write")}}); err != nil {
			t.Fatal(err)
		}
		if asked := len(c.asked); asked != 1-i {
			t.Errorf("session %d: asked %d times", i+1, asked)
		}
		if i == 0 && len(c.asked) == 1 && !slices.ContainsFunc(c.asked[0].Options, func(o acp.PermissionOption) bool { return o.OptionId == "allow_always_save" }) {
			t.Errorf("no option to save: %+v", c.asked[0].Options)
		}
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(proj, f)); err != nil {
			t.Error(err)
		}
	}
	rules, _ := os.ReadFile(filepath.Join(filepath.Dir(proj), ".gem", "policies.toml"))
	if !strings.Contains(string(rules), `toolName = "write_file"`) {
		t.Errorf("the saved rules: %q", rules)
	}
}

// TestNotificationHook: the policy's question fires the Notification hooks (as on the
// terminal) with the ACP session's id, before the client is asked.
func TestNotificationHook(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	var c *client
	hear := sdk.OnNotification("hear", "ToolPermission", func(sc sdk.SessionContext, in sdk.NotificationInput) (sdk.NotificationOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		c.mu.Lock()
		asked := len(c.asked)
		c.mu.Unlock()
		heard = append(heard, fmt.Sprintf("%s %v %s asked=%d", in.NotificationType, in.Details["tool_name"], sc.SessionID(), asked))
		return sdk.NotificationOutput{}, nil
	})
	conn, cl, proj, _ := serveWith(t, sdk.Options{Hooks: []sdk.Hook{hear}},
		chunks(call("write_file", `{"file_path":"a.txt","content":"a"}`)), chunks(text("Wrote a.")))
	c = cl
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("write")}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := fmt.Sprintf("ToolPermission write_file %s asked=0", sess.SessionId); strings.Join(heard, "|") != want || len(c.asked) != 1 {
		t.Errorf("heard %q, want %q (asked %d)", heard, want, len(c.asked))
	}
}

// TestEditorBuffers: a client that advertises fs.readTextFile is asked for the workspace
// files the model reads (the model sees unsaved changes); one that does not is never asked.
func TestEditorBuffers(t *testing.T) {
	for _, advertised := range []bool{true, false} {
		conn, c, proj, srv := serve(t, chunks(call("read_file", `{"file_path":"notes.txt"}`)), chunks(text("Read.")))
		os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("saved text\n"), 0o644)
		c.buffers = map[string]string{filepath.Join(proj, "notes.txt"): "unsaved text\n"}
		ctx := context.Background()
		if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
			ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: advertised}}}); err != nil {
			t.Fatal(err)
		}
		sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("read the notes")}}); err != nil {
			t.Fatal(err)
		}
		want := "saved text"
		if advertised {
			want = "unsaved text"
		}
		if body := string(srv.Requests[1].Body); !strings.Contains(body, want) || len(c.reads) != map[bool]int{true: 1, false: 0}[advertised] {
			t.Errorf("advertised %v: reads %q, the tool's answer: %s", advertised, c.reads, body)
		}
	}
}

// TestEditorBuffersNotWhileAProgramMayWrite: while a program gem started may change the
// folder of the file the model reads (a sandboxed program that may write the workspace), the
// editor is not asked (what it would read by path could be another file, swapped in); once
// it ended, it is.
func TestEditorBuffersNotWhileAProgramMayWrite(t *testing.T) {
	conn, c, proj, srv := serve(t, chunks(call("read_file", `{"file_path":"notes.txt"}`)), chunks(text("Read.")),
		chunks(call("read_file", `{"file_path":"notes.txt"}`)), chunks(text("Read.")))
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("saved text\n"), 0o644)
	c.buffers = map[string]string{filepath.Join(proj, "notes.txt"): "unsaved text\n"}
	// A program that may change the project, with the policy gem gives one (the system read).
	pol := sandbox.ForExtension(sandbox.Access{Extension: t.TempDir(), Workspace: proj, WriteWorkspace: true, Data: t.TempDir(), Temp: t.TempDir()})
	p, err := (&launch.Launcher{}).Start(sandbox.Program{Path: "/bin/sleep", Args: []string{"60"}, Env: []string{}, Dir: proj, Name: "writer",
		Policy: &pol}, sandbox.Streams{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := func() {
		if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("read the notes")}}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-p.Done():
		t.Fatalf("the writer ended before the turn: %q", p.Tail.Lines(5))
	default:
	}
	prompt()
	if body := string(srv.Requests[1].Body); !strings.Contains(body, "saved text") || len(c.reads) != 0 {
		t.Errorf("with a writer running: reads %q, the tool's answer: %s", c.reads, body)
	}
	p.Kill()
	<-p.Done()
	prompt()
	if body := string(srv.Requests[3].Body); !strings.Contains(body, "unsaved text") || len(c.reads) != 1 {
		t.Errorf("once it ended: reads %q, the tool's answer: %s", c.reads, body)
	}
}

// TestImagePrompt: an image block goes to the model inline with the prompt's text.
func TestImagePrompt(t *testing.T) {
	conn, _, proj, srv := serve(t, chunks(text("A red dot.")))
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfake pixels"))
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("what is this?"), acp.ImageBlock(png, "image/png")}}); err != nil {
		t.Fatal(err)
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				Text       string
				InlineData *struct{ MimeType, Data string }
			}
		}
	}
	json.Unmarshal(srv.Requests[0].Body, &req)
	last := req.Contents[len(req.Contents)-1].Parts
	if len(last) != 2 || last[0].Text != "what is this?" || last[1].InlineData == nil || last[1].InlineData.MimeType != "image/png" || last[1].InlineData.Data != png {
		t.Errorf("the request's prompt: %s", srv.Requests[0].Body)
	}
}

// BenchmarkPromptFirstChunk: session/prompt to its first agent_message_chunk with the
// server in the process and the fake model answering at once — gem's own work per turn
// without a process boundary (BenchmarkACPFirstChunk in cmd/gem measures `gem acp` against
// Gemini CLI). A new session every 10 turns keeps the history short.
func BenchmarkPromptFirstChunk(b *testing.B) {
	conn, c, proj, srv := serve(b)
	srv.SetDefault(chunks(text("Hello.")))
	ctx := context.Background()
	var sess acp.NewSessionResponse
	var first time.Duration
	i := 0
	for b.Loop() {
		if i%10 == 0 {
			b.StopTimer()
			var err error
			if sess, err = conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		i++
		ch := make(chan time.Time, 1)
		c.mu.Lock()
		c.first = ch
		c.mu.Unlock()
		t0 := time.Now()
		if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}}); err != nil {
			b.Fatal(err)
		}
		first += (<-ch).Sub(t0)
	}
	b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "first-chunk-ms")
}
