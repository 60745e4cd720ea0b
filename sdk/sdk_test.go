package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/sdk"
)

// fakeModel starts a scripted Gemini API and returns the environment an agent reads: a
// fresh home outside /tmp, the API key and the fake's address.
func fakeModel(tb testing.TB, replies ...fakegemini.Reply) (*fakegemini.Server, func(string) string) {
	tb.Helper()
	srv, getenv, stop, err := startFake(replies...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	return srv, getenv
}

// withoutKey is getenv with no GEMINI_API_KEY: what an agent that needs no model sees.
func withoutKey(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == "GEMINI_API_KEY" {
			return ""
		}
		return getenv(k)
	}
}

func startFake(replies ...fakegemini.Reply) (*fakegemini.Server, func(string) string, func(), error) {
	srv, err := fakegemini.Start(replies, "")
	if err != nil {
		return nil, nil, nil, err
	}
	cache, _ := os.UserCacheDir()
	os.MkdirAll(filepath.Join(cache, "gem-testwork"), 0o755)
	home, err := os.MkdirTemp(filepath.Join(cache, "gem-testwork"), "sdk-")
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	os.MkdirAll(filepath.Join(home, "proj"), 0o755)
	vars := map[string]string{"HOME": home, "GEMINI_API_KEY": "test-key", "GEM_GEMINI_BASE_URL": srv.URL, "PATH": "/usr/bin:/bin"}
	stop := func() { srv.Close(); os.RemoveAll(home) }
	return srv, func(k string) string { return vars[k] }, stop, nil
}

// chunks, text and call script the fake model's replies.
var chunks, text, call = fakegemini.Chunks, fakegemini.Text, fakegemini.Call

type countArgs struct {
	Text string `json:"text" jsonschema:"the text whose words to count"`
}

type count struct {
	Words int `json:"words"`
}

var countWords = sdk.NewTool("count_words", "Counts the words of a text",
	func(sc sdk.SessionContext, a countArgs) (count, error) {
		if sc.Session() == nil || sc.Session().ID() != sc.SessionID() || sc.Agent() == nil {
			return count{}, &sdk.ModelError{Message: "the tool does not know its session"}
		}
		return count{Words: len(strings.Fields(a.Text))}, nil
	}).WithKind(sdk.KindRead)

// TestSendWithToolAndInstructions: the prompt is in the request; the static and dynamic
// instructions stand in the system instruction; the tool is declared, runs through the
// policy with its typed arguments, and its response goes back to the model.
func TestSendWithToolAndInstructions(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(call("count_words", `{"text":"one two three"}`)), chunks(text("Three words.")))
	ctx := context.Background()
	requests := 0
	a, err := sdk.NewAgent(ctx, sdk.Options{
		Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
		Instructions: []sdk.Instruction{
			sdk.Static("You count words for a living."),
			sdk.Dynamic(func(sc sdk.SessionContext) string {
				requests++
				return fmt.Sprintf("Request %d; messages so far: %d.", requests, len(sc.Transcript()))
			}),
		},
		Tools: []sdk.Tool{countWords},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := a.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Send(ctx, "How many words in 'one two three'?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Three words." || len(res.ToolCalls) != 1 || res.ToolCalls[0].Output != `{"words":3}` {
		t.Errorf("result %+v", res)
	}
	first, second := string(srv.Requests[0].Body), string(srv.Requests[1].Body)
	for _, want := range []string{"How many words in 'one two three'?", "You count words for a living.", "Request 1; messages so far: 1.", `"name":"count_words"`, `"the text whose words to count"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %q: %s", want, first)
		}
	}
	if !strings.Contains(second, `"functionResponse"`) || !strings.Contains(second, `words`) || !strings.Contains(second, "Request 2; messages so far: 2.") {
		t.Errorf("the second request lacks the tool's response or the updated instruction: %s", second)
	}
	if s.ID() == "" {
		t.Error("no session id")
	}
	s.Close()
}

// TestSendStreamAndResume: the events of a turn as they happen; the session is saved where
// gem keeps sessions, and resumed by its id with its history.
func TestSendStreamAndResume(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(text("Hel"), text("lo.")), chunks(text("Again.")))
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings})
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
		got = append(got, string(ev.Type)+":"+ev.Text)
	}
	if strings.Join(got, ",") != "init:,message:hi,message:Hel,message:lo.,result:" {
		t.Errorf("events %v", got)
	}
	r, err := a.ResumeSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Send(ctx, "and again"); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests[1].Body); !strings.Contains(body, `"hi"`) || !strings.Contains(body, "Hello.") {
		t.Errorf("the resumed session's request lacks its history: %s", body)
	}
}

// An agent with a typed tool and an instruction, against a scripted model.
func ExampleNewAgent() {
	_, getenv, stop, err := startFake(chunks(call("count_words", `{"text":"a b c d"}`)), chunks(text("There are 4 words.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{
		Cwd:          filepath.Join(getenv("HOME"), "proj"),
		Getenv:       getenv, // nil in a program: the process's environment
		Settings:     sdk.NoSettings,
		Instructions: []sdk.Instruction{sdk.Static("You count words.")},
		Tools:        []sdk.Tool{countWords},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	res, err := s.Send(ctx, "How many words in 'a b c d'?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.ToolCalls[0].Name, res.ToolCalls[0].Output)
	fmt.Println(res.Text)
	// Output:
	// count_words {"words":4}
	// There are 4 words.
}

// TestApprove: a tool the policy asks about (kind edit, default mode) is put to Approve with
// the question the terminal shows; Deny refuses it (the model is told), ApproveAlways runs
// it and the next call without asking; without Approve the turn ends with it pending.
func TestApprove(t *testing.T) {
	touch := sdk.NewTool("touch", "Touches a file", func(sc sdk.SessionContext, a struct {
		Name string `json:"name"`
	}) (string, error) {
		return "touched " + a.Name, nil
	}).WithKind(sdk.KindEdit)
	tests := []struct {
		name     string
		decide   []sdk.Decision
		approve  bool
		want     []string // each call's output or error
		wantAsks int
	}{
		{name: "deny", approve: true, decide: []sdk.Decision{sdk.Deny, sdk.Deny}, want: []string{"denied", "denied"}, wantAsks: 2},
		{name: "once", approve: true, decide: []sdk.Decision{sdk.ApproveOnce, sdk.Deny}, want: []string{"touched a", "denied"}, wantAsks: 2},
		{name: "always", approve: true, decide: []sdk.Decision{sdk.ApproveAlways}, want: []string{"touched a", "touched b"}, wantAsks: 1},
		{name: "no callback", want: nil}, // pending: TestPendingApprovals
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, getenv := fakeModel(t, chunks(call("touch", `{"name":"a"}`)), chunks(call("touch", `{"name":"b"}`)), chunks(text("done")))
			var asked []string
			o := sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{touch}}
			if tt.approve {
				o.Approve = func(_ context.Context, req sdk.ApprovalRequest) (sdk.Decision, error) {
					asked = append(asked, req.Question)
					return tt.decide[len(asked)-1], nil
				}
			}
			a, err := sdk.NewAgent(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s, _ := a.Session(context.Background())
			res, err := s.Send(context.Background(), "touch a then b")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.ToolCalls {
				if c.Err != nil {
					got = append(got, map[bool]string{true: "denied", false: c.Err.Error()}[errors.Is(c.Err, sdk.ErrDenied)])
				} else {
					got = append(got, c.Output)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || len(asked) != tt.wantAsks {
				t.Errorf("calls %v (asked %d), want %v (asked %d)", got, len(asked), tt.want, tt.wantAsks)
			}
			if len(asked) > 0 && !strings.Contains(asked[0], "touch") {
				t.Errorf("the question does not name the tool: %q", asked[0])
			}
		})
	}
}

// TestToolMadeWrong: a tool whose argument type has no schema, or whose name a tool of gem
// has, is refused when the agent is made, naming the tool.
func TestToolMadeWrong(t *testing.T) {
	_, getenv := fakeModel(t)
	bad := sdk.NewTool("bad", "takes a channel", func(sc sdk.SessionContext, a chan int) (string, error) { return "", nil })
	_, err := sdk.NewAgent(context.Background(), sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{bad}})
	if err == nil || !strings.Contains(err.Error(), `"bad"`) || !strings.Contains(err.Error(), "chan int") {
		t.Errorf("err = %v, want the tool and its argument type named", err)
	}
	clash := sdk.NewTool("read_file", "mine", func(sc sdk.SessionContext, a struct{}) (string, error) { return "", nil })
	_, err = sdk.NewAgent(context.Background(), sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Tools: []sdk.Tool{clash}})
	if err == nil || !strings.Contains(err.Error(), "tool read_file of sdk: gem has a tool of that name already") {
		t.Errorf("err = %v, want the clash with the core tool named", err)
	}
}

// TestApprovalModeRule: the settings' security.disableYoloMode refuses yolo alike at
// NewAgent and at SetApprovalMode (gem acp's set_mode), with the one typed error; an
// unknown mode is refused so too, and an allowed one is switched to.
func TestApprovalModeRule(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"disableYoloMode":true}}`), 0o644)
	ctx := context.Background()
	proj := filepath.Join(home, "proj")
	if _, err := sdk.NewAgent(ctx, sdk.Options{Cwd: proj, Getenv: getenv, ApprovalMode: "yolo"}); !isModeError(err, "disableYoloMode") {
		t.Errorf("NewAgent in yolo: %v, want an *ApprovalModeError naming disableYoloMode", err)
	}
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: proj, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, tt := range []struct{ mode, wantErr string }{
		{"yolo", "disableYoloMode"},
		{"wild", `approval mode "wild"`},
		{"auto_edit", ""},
	} {
		err := a.SetApprovalMode(tt.mode)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("SetApprovalMode(%s): %v", tt.mode, err)
		case tt.wantErr != "" && !isModeError(err, tt.wantErr):
			t.Errorf("SetApprovalMode(%s): %v, want an *ApprovalModeError with %q", tt.mode, err, tt.wantErr)
		}
	}
	if got := a.ApprovalMode(); got != "autoEdit" {
		t.Errorf("the mode: %s, want autoEdit", got)
	}
}

func isModeError(err error, want string) bool {
	_, ok := errors.AsType[*sdk.ApprovalModeError](err)
	return ok && strings.Contains(err.Error(), want)
}
