package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/sdk"
)

// TestFS: a tool's FS reads and writes the workspace as the core tools do: a path outside
// it, through a link out, or under a protected name is refused; a write in default mode is
// put to Approve with its diff; plan mode refuses it.
func TestFS(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	proj := filepath.Join(home, "proj")
	os.WriteFile(filepath.Join(proj, "a.txt"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(home, "secret"), []byte("key"), 0o600)
	os.Symlink(home, filepath.Join(proj, "out"))
	var asked []sdk.ApprovalRequest
	fsys := openSession(t, sdk.Options{Cwd: proj, Getenv: getenv, Settings: sdk.NoSettings,
		Approve: func(_ context.Context, r sdk.ApprovalRequest) (sdk.Decision, error) {
			asked = append(asked, r)
			return sdk.ApproveOnce, nil
		}}).Context().FS()
	ctx := context.Background()

	if data, err := fsys.ReadFile(ctx, "a.txt"); err != nil || string(data) != "old\n" {
		t.Errorf("read a.txt: %q, %v", data, err)
	}
	if err := fsys.WriteFile(ctx, "sub/b.txt", []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "sub", "b.txt")); string(data) != "new\n" {
		t.Errorf("b.txt = %q", data)
	}
	if len(asked) != 1 || asked[0].Tool != "write_file" || !strings.Contains(asked[0].Question, "+new") {
		t.Errorf("asked %+v, want write_file with its diff", asked)
	}
	if got, err := fsys.Glob(ctx, "**/*.txt"); err != nil || len(got) != 2 || got[0] != filepath.Join(proj, "a.txt") {
		t.Errorf("glob: %v, %v", got, err)
	}
	if entries, err := fsys.ReadDir(ctx, "."); err != nil || len(entries) != 3 {
		t.Errorf("readdir: %v, %v", entries, err)
	}
	refused := []struct {
		what string
		do   func() error
	}{
		{"read outside", func() error { _, err := fsys.ReadFile(ctx, filepath.Join(home, "secret")); return err }},
		{"read ..", func() error { _, err := fsys.ReadFile(ctx, "../secret"); return err }},
		{"read through a link out", func() error { _, err := fsys.ReadFile(ctx, "out/secret"); return err }},
		{"write through a link out", func() error { return fsys.WriteFile(ctx, "out/planted", []byte("x")) }},
		{"write .git/hooks", func() error { return fsys.WriteFile(ctx, ".git/hooks/pre-commit", []byte("x")) }},
		{"write .gemini/settings.json", func() error { return fsys.WriteFile(ctx, ".gemini/settings.json", []byte("{}")) }},
		{"write .env", func() error { return fsys.WriteFile(ctx, "sub/.env", []byte("X=1")) }},
		{"glob ..", func() error { _, err := fsys.Glob(ctx, "../*"); return err }},
	}
	for _, r := range refused {
		err := r.do()
		if _, ok := errors.AsType[*tools.PathError](err); !ok {
			t.Errorf("%s: err %v, want a *tools.PathError", r.what, err)
		}
	}
	for _, p := range []string{filepath.Join(home, "planted"), filepath.Join(proj, ".git"), filepath.Join(proj, ".gemini"), filepath.Join(proj, "sub", ".env")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}

	plan, err := sdk.NewAgent(context.Background(), sdk.Options{Cwd: proj, Getenv: getenv, Settings: sdk.NoSettings, ApprovalMode: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	ps, _ := plan.Session(ctx)
	if err := ps.Context().FS().WriteFile(ctx, "c.txt", []byte("x")); !errors.Is(err, sdk.ErrDenied) {
		t.Errorf("plan mode write: %v, want ErrDenied", err)
	}
}

// TestShell: commands run in the workspace in the project's sandbox: the workspace
// writable, the home folder's secrets unreadable; a command the policy asks about goes to
// Approve; Start streams stdin and output; a timeout kills the command.
func TestShell(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE KEY"), 0o600)
	var asked []string
	sh := openSession(t, sdk.Options{Cwd: proj, Getenv: getenv, Settings: sdk.NoSettings,
		Approve: func(_ context.Context, r sdk.ApprovalRequest) (sdk.Decision, error) {
			asked = append(asked, r.Tool+": "+r.Question)
			return sdk.ApproveAlways, nil
		}}).Context().Shell()
	ctx := context.Background()

	res, err := sh.Exec(ctx, "echo out; echo err >&2; echo made > made.txt; exit 3", sdk.ShellOptions{Env: map[string]string{"GREETING": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" || !strings.Contains(res.Output, "out\n") || !strings.Contains(res.Output, "err\n") {
		t.Errorf("result %+v", res)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "made.txt")); string(data) != "made\n" {
		t.Errorf("made.txt = %q: the workspace is not writable", data)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "run_shell_command: ") || !strings.Contains(asked[0], "echo out") {
		t.Errorf("asked %q", asked)
	}
	res, err = sh.Exec(ctx, "echo $GREETING; cat "+filepath.Join(home, ".ssh", "id_ed25519"), sdk.ShellOptions{Env: map[string]string{"GREETING": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || strings.Contains(res.Output, "PRIVATE KEY") || res.Stdout != "hi\n" {
		t.Errorf("~/.ssh was readable, or the environment not passed: %+v", res)
	}

	res, err = sh.Exec(ctx, "sleep 30", sdk.ShellOptions{Timeout: 200 * time.Millisecond})
	if err != nil || !res.TimedOut {
		t.Errorf("timeout: %+v, %v", res, err)
	}

	p, err := sh.Start(ctx, "tr a-z A-Z", sdk.ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p.Stdin, "streamed\n")
	p.Stdin.Close()
	out, _ := io.ReadAll(p.Stdout)
	if code, err := p.Wait(); code != 0 || err != nil || string(out) != "STREAMED\n" {
		t.Errorf("start: %q, exit %d, %v", out, code, err)
	}
}

// TestPendingApprovals: without Approve, a call the policy asks about ends the turn with it
// pending (saved with the session); another process resumes the session and approves it,
// and the turn goes on there; a denied one reaches the model as refused.
func TestPendingApprovals(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(call("touch", `{"name":"a"}`)), chunks(text("Touched.")))
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{touchTool}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := a.Session(ctx)
	res, err := s.Send(ctx, "touch a")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pending) != 1 || res.Pending[0].Tool != "touch" || !res.Pending[0].Asked || string(res.Pending[0].Args) != `{"name":"a"}` || len(res.ToolCalls) != 0 {
		t.Fatalf("result %+v: want touch pending, not run", res)
	}
	if _, err := s.Send(ctx, "something else"); err == nil {
		t.Error("a prompt was sent while approvals wait")
	}
	id, callID := s.ID(), res.Pending[0].CallID
	a.Close()

	// a second process decides
	cmd := exec.Command(os.Args[0], "-test.run=^TestPendingHelper$")
	cmd.Env = append(os.Environ(), "GEM_SDK_HELPER=approve", "GEM_SDK_SESSION="+id, "GEM_SDK_CALL="+callID,
		"HOME="+getenv("HOME"), "GEMINI_API_KEY=test-key", "GEM_GEMINI_BASE_URL="+getenv("GEM_GEMINI_BASE_URL"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the second process: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `RESULT {"calls":["touch: touched a"],"text":"Touched."}`) {
		t.Errorf("the second process said:\n%s", out)
	}
	if len(srv.Requests) != 2 || !strings.Contains(string(srv.Requests[1].Body), "touched a") {
		t.Errorf("the model did not get the approved call's result")
	}
}

var touchTool = sdk.NewTool("touch", "Touches a file", func(sc sdk.SessionContext, a struct {
	Name string `json:"name"`
}) (string, error) {
	return "touched " + a.Name, nil
}).WithKind(sdk.KindEdit)

// TestPendingHelper is the second process of TestPendingApprovals.
func TestPendingHelper(t *testing.T) {
	if os.Getenv("GEM_SDK_HELPER") != "approve" {
		t.Skip("the second process of TestPendingApprovals")
	}
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(os.Getenv("HOME"), "proj"), Settings: sdk.NoSettings, Tools: []sdk.Tool{touchTool}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := a.ResumeSession(ctx, os.Getenv("GEM_SDK_SESSION"))
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Pending(); len(p) != 1 || p[0].CallID != os.Getenv("GEM_SDK_CALL") {
		t.Fatalf("pending %+v", p)
	}
	res, err := s.Approve(ctx, map[string]sdk.Decision{os.Getenv("GEM_SDK_CALL"): sdk.ApproveOnce})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range res.ToolCalls {
		calls = append(calls, c.Name+": "+c.Output)
	}
	data, _ := json.Marshal(map[string]any{"text": res.Text, "calls": calls})
	fmt.Printf("RESULT %s\n", data)
}

// TestPendingCallsWithoutIDs: the model may send calls without ids; each pending call still
// has a key of its own, so approving one never approves another.
func TestPendingCallsWithoutIDs(t *testing.T) {
	two := `{"functionCall":{"name":"touch","args":{"name":"a"}}},{"functionCall":{"name":"touch","args":{"name":"b"}}}`
	_, getenv := fakeModel(t, chunks(two), chunks(text("Both.")))
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{touchTool}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	res, err := s.Send(ctx, "touch a and b")
	if err != nil || len(res.Pending) != 2 || res.Pending[0].CallID == res.Pending[1].CallID || !res.Pending[0].Asked || res.Pending[1].Asked {
		t.Fatalf("pending %+v, %v: want two with keys of their own, the first asked", res.Pending, err)
	}
	res, err = s.Approve(ctx, map[string]sdk.Decision{res.Pending[0].CallID: sdk.ApproveOnce})
	if err != nil || len(res.ToolCalls) != 1 || res.ToolCalls[0].Output != "touched a" || len(res.Pending) != 1 || string(res.Pending[0].Args) != `{"name":"b"}` {
		t.Fatalf("after approving the first: %+v, %v: want a run and b still pending", res, err)
	}
	res, err = s.Approve(ctx, map[string]sdk.Decision{res.Pending[0].CallID: sdk.Deny})
	if err != nil || res.Text != "Both." || len(res.ToolCalls) != 1 || !errors.Is(res.ToolCalls[0].Err, sdk.ErrDenied) {
		t.Errorf("after denying the second: %+v, %v", res, err)
	}
}

// TestSubagentPendingApprovals: a subagent's call the policy asks about waits as the
// session's own do (keyed under the subagent's call, naming the subagent), is saved with
// the session, and once decided in another agent that resumed it the subagent goes on where
// it stopped, then the turn.
func TestSubagentPendingApprovals(t *testing.T) {
	srv, getenv := fakeModel(t,
		chunks(call("worker", `{"query":"touch a"}`)), // the main agent delegates
		chunks(call("touch", `{"name":"a"}`)),         // the subagent's call waits
		chunks(text("Touched a.")),                    // the subagent, resumed, answers
		chunks(text("The worker touched a.")))         // the main agent finishes
	ctx := context.Background()
	opts := sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
		Subagents: []sdk.Subagent{sdk.NewSubagent(sdk.SubagentSpec{Name: "worker", Description: "Does work", Instructions: sdk.Static("Work."), Tools: []sdk.Tool{touchTool}})}}
	a, err := sdk.NewAgent(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := a.Session(ctx)
	res, err := s.Send(ctx, "have a touched")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pending) != 1 || res.Pending[0].Tool != "touch" || res.Pending[0].Subagent != "worker" || !res.Pending[0].Asked || res.Pending[0].CallID != "c1/c1" {
		t.Fatalf("pending %+v: want the subagent's touch", res.Pending)
	}
	id := s.ID()
	a.Close()

	b, err := sdk.NewAgent(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := b.ResumeSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Pending(); len(p) != 1 || p[0].CallID != "c1/c1" {
		t.Fatalf("the resumed session waits on %+v", p)
	}
	res, err = r.Approve(ctx, map[string]sdk.Decision{"c1/c1": sdk.ApproveOnce})
	if err != nil || res.Text != "The worker touched a." || len(res.Pending) != 0 {
		t.Fatalf("approved: %+v, %v", res, err)
	}
	if len(srv.Requests) != 4 {
		t.Fatalf("%d requests, want 4", len(srv.Requests))
	}
	sub, main := string(srv.Requests[2].Body), string(srv.Requests[3].Body)
	mustContain(t, sub, "touched a")   // the subagent got its call's result
	mustContain(t, sub, "touch a")     // in its own conversation, its task first
	mustContain(t, main, "Touched a.") // the main agent got the subagent's answer
	if strings.Contains(sub, "have a touched") {
		t.Error("the resumed subagent saw the parent's conversation")
	}
}
