package sdk_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/sdk"
)

// TestCommandsWithoutAgent: sdk.Commands lists the built-in commands, /clear, /skills and
// /skill among them, and the prompt commands, without an agent (no model key needed); a
// Session's Commands list the same first.
func TestCommandsWithoutAgent(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	os.MkdirAll(filepath.Join(home, ".gemini", "commands"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "commands", "greet.toml"), []byte("description = \"Greets\"\nprompt = \"Say hello to {{args}}\"\n"), 0o644)
	noKey := withoutKey(getenv)
	for _, tc := range []struct {
		name string
		opts sdk.Options
		want []string
	}{
		{"settings loaded", sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: noKey}, []string{"clear", "skills", "skill", "compress", "greet"}},
		{"no settings", sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: noKey, Settings: sdk.NoSettings}, []string{"clear", "skills", "skill", "compress"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds, err := sdk.Commands(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range cmds {
				names = append(names, c.Name)
			}
			for _, w := range tc.want {
				if !slices.Contains(names, w) {
					t.Errorf("%s missing from %v", w, names)
				}
			}
			if tc.opts.Settings == sdk.NoSettings && slices.Contains(names, "greet") {
				t.Errorf("a bare agent's commands list the user's prompt command: %v", names)
			}
		})
	}
}

// TestSessionBuiltinsSkillAndClear: /skill activates a skill for the next request, /skills
// lists and disables one in the user's settings, /clear starts a new session (the last one
// saved): built-ins of the SDK, as gem shell and gem acp run them.
func TestSessionBuiltinsSkillAndClear(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(text("Tidy.")), chunks(text("Fresh.")))
	home := getenv("HOME")
	os.MkdirAll(filepath.Join(home, ".gemini", "skills", "tidy"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "skills", "tidy", "SKILL.md"), []byte("---\nname: tidy\ndescription: Tidies up\n---\nTIDY-NOW\n"), 0o644)
	ctx := context.Background()
	s := openSession(t, sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: getenv})
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := s.RunCommand(ctx, name, args)
		if err != nil {
			t.Fatalf("/%s: %v", name, err)
		}
		return out
	}
	if out := run("skills"); !strings.Contains(out, "tidy") || strings.Contains(out, "[disabled]") {
		t.Errorf("/skills: %q", out)
	}
	if out := run("skill", "tidy"); !strings.Contains(out, "Skill tidy is active") {
		t.Errorf("/skill tidy: %q", out)
	}
	if _, err := s.RunCommand(ctx, "skill", []string{"nosuch"}); err == nil || !strings.Contains(err.Error(), `no skill "nosuch"`) {
		t.Errorf("/skill nosuch: %v", err)
	}
	if _, err := s.Send(ctx, "tidy up"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(srv.Requests[0].Body), "TIDY-NOW") {
		t.Error("the active skill's instructions are not in the request")
	}
	if out := run("skills", "disable", "tidy"); !strings.Contains(out, "Skill tidy disabled in") {
		t.Errorf("/skills disable: %q", out)
	}
	if out := run("skills"); !strings.Contains(out, "tidy (") || !strings.Contains(out, "[disabled]") {
		t.Errorf("/skills after disabling: %q", out)
	}
	if data, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json")); !strings.Contains(string(data), "tidy") {
		t.Errorf("settings.json: %s", data)
	}
	first := s.ID()
	if out := run("clear"); !strings.Contains(out, "New conversation "+s.ID()) || s.ID() == first {
		t.Errorf("/clear: %q (id %s, before %s)", out, s.ID(), first)
	}
	if _, err := s.Send(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests[1].Body); strings.Contains(body, "tidy up") {
		t.Errorf("the cleared conversation's history went to the model: %s", body)
	}
	saved, _ := sdk.ListSessions(sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: getenv})
	if !slices.ContainsFunc(saved, func(i sdk.SessionInfo) bool { return i.ID == first && i.Messages == 2 && i.Title == "tidy up" }) {
		t.Errorf("the session before /clear is not saved: %+v", saved)
	}
}

// TestPlanModeKeepsPlan: in plan mode the model is told it plans and the turn's answer is
// kept as the plan file (Result.PlanFile), as gem -p --approval-mode plan does.
func TestPlanModeKeepsPlan(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(text("Step 1: add a cache.")))
	s := openSession(t, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, ApprovalMode: "plan"})
	res, err := s.Send(context.Background(), "add a cache")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.PlanFile)
	if err != nil || !strings.Contains(string(data), "Request: add a cache") || !strings.Contains(string(data), "Step 1: add a cache.") {
		t.Errorf("the plan file %q: %s, %v", res.PlanFile, data, err)
	}
	if !strings.Contains(string(srv.Requests[0].Body), "Plan mode") {
		t.Error("the model is not told it plans")
	}
}

// TestHostWarnOutsideTurn: a problem found while a session opens (a prompt command that
// does not parse) reaches Host.Warn; without a Host it is not lost in a turn either.
func TestHostWarnOutsideTurn(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	os.MkdirAll(filepath.Join(home, ".gemini", "commands"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "commands", "bad.toml"), []byte("prompt = [not toml"), 0o644)
	var warned []string
	openSession(t, sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: getenv,
		Host: &sdk.Host{Warn: func(err error) { warned = append(warned, err.Error()) }}})
	if !slices.ContainsFunc(warned, func(w string) bool { return strings.Contains(w, "bad.toml") }) {
		t.Errorf("warnings: %q", warned)
	}
}

// TestHostAskUser: with a Host's tools services (a terminal program's own prompter), the
// model's questions still go to Options.Ask — the one way to ask the user — and the policy's
// to the Host's prompter.
func TestHostAskUser(t *testing.T) {
	srv, getenv := fakeModel(t, chunks(call("ask_user", `{"questions":[{"question":"Which auth?","header":"Auth","type":"choice","options":[{"label":"OAuth","description":"a browser login"},{"label":"Key","description":"an API key"}]}]}`)),
		chunks(text("Key it is.")))
	var asked []string
	ask := func(_ context.Context, q sdk.Question) (sdk.Answer, error) {
		asked = append(asked, q.Terminal())
		return q.TypedAnswer("2"), nil
	}
	s := openSession(t, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Ask: ask,
		Host: &sdk.Host{Services: &tools.Services{Prompt: &prompt.Refuse{Why: prompt.NotAskedError{Reason: "the host's prompter"}}}}})
	if _, err := s.Send(context.Background(), "set up auth"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "[Auth] Which auth?\n  1. OAuth — a browser login\n  2. Key — an API key\n") {
		t.Errorf("asked: %q", asked)
	}
	if body := string(srv.Requests[1].Body); !strings.Contains(body, "Auth: Key") {
		t.Errorf("the answer is not in the next request: %s", body)
	}
}

// TestQuestionTypedAnswer: what a person types at Question.Terminal's question.
func TestQuestionTypedAnswer(t *testing.T) {
	choice := sdk.Question{Text: "Which?", Options: []sdk.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}, MultiSelect: true}
	for _, tc := range []struct {
		q    sdk.Question
		line string
		want sdk.Answer
	}{
		{choice, "2", sdk.Answer{Text: "B", Choices: []string{"B"}}},
		{choice, "1, 3", sdk.Answer{Text: "A, C", Choices: []string{"A", "C"}}},
		{choice, "neither", sdk.Answer{Text: "neither"}},
		{choice, "  ", sdk.Answer{Declined: true}},
		{sdk.Question{Text: "Go on?", Type: sdk.AskYesNo}, "yes", sdk.Answer{Text: "yes"}},
		{sdk.Question{Text: "Name?"}, "gem", sdk.Answer{Text: "gem"}},
	} {
		if got := tc.q.TypedAnswer(tc.line); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q: %+v, want %+v", tc.q.Text, tc.line, got, tc.want)
		}
	}
}
