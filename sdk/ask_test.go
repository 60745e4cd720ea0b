package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/pluginsdk/plugintest"
	"github.com/gemhost/gem/sdk"
)

// script is a test's Options.Ask: it records the questions and answers them from a table
// keyed by the question's text.
type script struct {
	mu      sync.Mutex
	asked   []sdk.Question
	answers map[string]sdk.Answer
}

func (s *script) ask(_ context.Context, q sdk.Question) (sdk.Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, q)
	a, ok := s.answers[q.Text]
	if !ok {
		return sdk.Answer{}, errors.New("the script has no answer to " + q.Text)
	}
	return a, nil
}

// TestToolSeesCancellation: a tool's SessionContext is the turn's context: it carries the
// turn's deadline, ends when the program cancels the turn mid-call, and FS and Shell given
// it stop with it.
func TestToolSeesCancellation(t *testing.T) {
	_, getenv := fakeModel(t, chunks(call("wait", `{}`)), chunks(text("never")))
	started := make(chan struct{})
	var seen, shellErr error
	var deadline time.Time
	wait := sdk.NewTool("wait", "Waits until the turn is cancelled", func(sc sdk.SessionContext, _ struct{}) (string, error) {
		deadline, _ = sc.Deadline()
		close(started)
		<-sc.Done()
		seen = sc.Err()
		_, shellErr = sc.Shell().Exec(sc, "true", sdk.ShellOptions{})
		return "", sc.Err()
	})
	a, err := sdk.NewAgent(context.Background(), sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
		Tools: []sdk.Tool{wait}, ApprovalMode: "yolo"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want := time.Now().Add(time.Hour).Truncate(time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), want)
	defer cancel()
	s, err := a.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-started; cancel() }()
	_, err = s.Send(ctx, "wait for it")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Send: %v; want the turn cancelled", err)
	}
	if !errors.Is(seen, context.Canceled) {
		t.Errorf("the tool saw %v; want context.Canceled", seen)
	}
	if !deadline.Equal(want) {
		t.Errorf("the tool's deadline %v; want the turn's %v", deadline, want)
	}
	if shellErr == nil {
		t.Error("Shell.Exec ran with a cancelled SessionContext")
	}
}

// TestAskThroughOptions: a tool's Ask and Confirm, pluginsdk.Confirm from the same tool (also
// through a context derived from its SessionContext) and the model's ask_user all go to
// Options.Ask; pluginsdk.Logger writes to the program's slog logger. Without Options.Ask, Ask
// is ErrNoAsk and ask_user fails for the model to decide.
func TestAskThroughOptions(t *testing.T) {
	srv, getenv := fakeModel(t,
		chunks(call("deploy", `{}`)),
		chunks(call("ask_user", `{"questions":[{"question":"Which auth?","header":"Auth","type":"choice","options":[{"label":"OAuth","description":"a browser login"},{"label":"Key","description":"an API key"}]},{"question":"Go on?","header":"Go","type":"yesno"}]}`)),
		chunks(text("Done.")))
	sc := &script{answers: map[string]sdk.Answer{
		"Which region?":  {Choices: []string{"eu"}},
		"Deploy to eu?":  {Yes: true},
		"Really?":        {Text: "yes"},
		"Which auth?":    {Text: "OAuth"},
		"Go on?":         {Yes: false},
		"Tag the image?": {Declined: true},
	}}
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	var got []string
	deploy := sdk.NewTool("deploy", "Deploys", func(sc sdk.SessionContext, _ struct{}) (string, error) {
		region, err := sc.Ask(sdk.Question{Header: "Region", Text: "Which region?", Options: []sdk.Option{{Label: "us"}, {Label: "eu"}}})
		if err != nil {
			return "", err
		}
		ok, err := sc.Confirm("Deploy to "+region.Text+"?", "the image goes live")
		if err != nil {
			return "", err
		}
		ctx, cancel := context.WithTimeout(sc, time.Minute)
		defer cancel()
		really, err := pluginsdk.Confirm(ctx, "Really?", "")
		if err != nil {
			return "", err
		}
		tag, err := sc.Ask(sdk.Question{Type: sdk.AskYesNo, Text: "Tag the image?"})
		if err != nil {
			return "", err
		}
		pluginsdk.Logger(sc).Info("deploying", "region", region.Text)
		got = append(got, region.Text, strings.Join(region.Choices, ","), boolText(ok), boolText(really), boolText(tag.Declined))
		return "deployed", nil
	})
	a, err := sdk.NewAgent(context.Background(), sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
		Tools: []sdk.Tool{deploy}, ApprovalMode: "yolo", Ask: sc.ask})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(context.Background())
	res, err := s.Send(context.Background(), "deploy")
	if err != nil || res.Text != "Done." {
		t.Fatalf("Send: %+v, %v", res, err)
	}
	if want := []string{"eu", "eu", "yes", "yes", "yes"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the tool got %q; want %q", got, want)
	}
	if len(sc.asked) != 6 || sc.asked[0].Type != sdk.AskChoice || sc.asked[1].Details != "the image goes live" || sc.asked[4].Header != "Auth" ||
		len(sc.asked[4].Options) != 2 || sc.asked[4].Options[0].Description != "a browser login" || sc.asked[5].Type != sdk.AskYesNo {
		t.Errorf("asked %+v", sc.asked)
	}
	if body := string(srv.Requests[2].Body); !strings.Contains(body, `Auth: OAuth\nGo: no`) {
		t.Errorf("ask_user's answers are not in the next request:\n%s", body)
	}
	if !strings.Contains(logs.String(), `msg="deploying region=eu" session=`+s.ID()) {
		t.Errorf("pluginsdk.Logger's record is not in the program's log:\n%s", logs.String())
	}

	bare, err := sdk.NewAgent(context.Background(), sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	bs, _ := bare.Session(context.Background())
	if _, err := bs.Context().Ask(sdk.Question{Text: "Anyone?"}); !errors.Is(err, sdk.ErrNoAsk) {
		t.Errorf("Ask without Options.Ask: %v; want ErrNoAsk", err)
	}
	c, err := bs.CallTool(context.Background(), "ask_user", json.RawMessage(`{"questions":[{"question":"?","header":"h","type":"text"}]}`))
	if err != nil || c.Err == nil || !strings.Contains(c.Err.Error(), "decide yourself") {
		t.Errorf("ask_user without Options.Ask: %+v, %v", c, err)
	}
}

func boolText(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }

// confirmer asks before it acts, through pluginsdk.Confirm and SessionContext.Confirm: one
// tool, three hosts.
var confirmer = sdk.NewTool("wipe", "Wipes", func(sc sdk.SessionContext, _ struct{}) (string, error) {
	first, err := pluginsdk.Confirm(sc, "Wipe?", "everything goes")
	if err != nil {
		return "", err
	}
	second, err := sc.Confirm("Sure?", "")
	if err != nil {
		return "", err
	}
	pluginsdk.Log(sc, "info", "wiping")
	return boolText(first) + " " + boolText(second), nil
})

// TestConfirmThreeWays: the same tool's confirmations reach the agent's Options.Ask, a
// plugin's host and an MCP client's elicitation; its log line the plugin's host.
func TestConfirmThreeWays(t *testing.T) {
	_, getenv := fakeModel(t)
	ctx := context.Background()
	sc := &script{answers: map[string]sdk.Answer{"Wipe?": {Yes: true}, "Sure?": {Text: "no"}}}
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings,
		Tools: []sdk.Tool{confirmer}, ApprovalMode: "yolo", Ask: sc.ask})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	if c, err := s.CallTool(ctx, "wipe", json.RawMessage(`{}`)); err != nil || c.Output != "yes no" {
		t.Errorf("in process: %+v, %v", c, err)
	}

	p := plugintest.InProcess(t, pluginsdk.Plugin{Name: "wipe", Tools: []pluginsdk.Tool{confirmer.Plugin()}})
	p.Host.Approve = true
	if res := p.Call(t, "wipe", `{}`); res.Text != "yes yes" || len(p.Host.Asked) != 2 || p.Host.Asked[0] != "Wipe?: everything goes" ||
		len(p.Host.Logs) != 1 || p.Host.Logs[0] != "info: wiping" {
		t.Errorf("as a plugin: %+v, asked %q, logs %q", res, p.Host.Asked, p.Host.Logs)
	}

	srv, err := sdk.MCPServer("wipe", "1.0.0", confirmer)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	var elicited []string
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited = append(elicited, r.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": r.Params.Message == "Wipe?\neverything goes"}}, nil
		}})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "yes no" || len(elicited) != 2 {
		t.Errorf("over MCP: %+v, %v; elicited %q", res.Content[0], err, elicited)
	}
}

// TestQuestionForms: a question as a form (MCP's and ACP's elicitation) and the answer read
// back from the form's reply.
func TestQuestionForms(t *testing.T) {
	choice := sdk.Question{Header: "Auth", Text: "Which auth?", Options: []sdk.Option{{Label: "OAuth"}, {Label: "Key", Description: "an API key"}}}
	multi := choice
	multi.MultiSelect = true
	for _, tc := range []struct {
		name    string
		q       sdk.Question
		schema  string
		action  string
		content map[string]any
		want    sdk.Answer
	}{
		{"choice", choice, `{"properties":{"answer":{"enum":["OAuth","Key"],"title":"Auth","type":"string"}},"required":["answer"],"type":"object"}`,
			"accept", map[string]any{"answer": "Key"}, sdk.Answer{Text: "Key"}},
		{"several", multi, `{"properties":{"answer":{"items":{"enum":["OAuth","Key"],"type":"string"},"title":"Auth","type":"array"}},"required":["answer"],"type":"object"}`,
			"accept", map[string]any{"answer": []any{"OAuth", "Key"}}, sdk.Answer{Choices: []string{"OAuth", "Key"}}},
		{"yes/no", sdk.Question{Type: sdk.AskYesNo, Text: "Go on?"}, `{"properties":{"answer":{"title":"Answer","type":"boolean"}},"required":["answer"],"type":"object"}`,
			"accept", map[string]any{"answer": true}, sdk.Answer{Yes: true}},
		{"text", sdk.Question{Text: "Name?", Placeholder: "a word"}, `{"properties":{"answer":{"description":"a word","title":"Answer","type":"string"}},"required":["answer"],"type":"object"}`,
			"decline", nil, sdk.Answer{Declined: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := json.Marshal(tc.q.Schema()); string(got) != tc.schema {
				t.Errorf("schema %s; want %s", got, tc.schema)
			}
			if got := tc.q.FormAnswer(tc.action, tc.content); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("answer %+v; want %+v", got, tc.want)
			}
		})
	}
	if m := choice.Message(); m != "Which auth?\nKey: an API key" {
		t.Errorf("message %q", m)
	}
}
