package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/registry"
)

func TestParseSubagent(t *testing.T) {
	cases := []struct {
		name, text, err string
	}{
		{"complete", "---\nname: reviewer\ndescription: Reviews code\ntools: [Read, search_file_content, Bash, mcp_*]\nmodel: gemini-pro\ntemperature: 0.2\nmax_turns: 5\ntimeout_mins: 2\n---\nYou review.", ""},
		{"no front matter", "You review.", "starts with YAML front matter"},
		{"bad name", "---\nname: Code Reviewer\ndescription: x\n---\n", `name "Code Reviewer"`},
		{"no description", "---\nname: r\n---\n", "description is missing"},
		{"remote", "---\nname: r\nkind: remote\ndescription: x\n---\n", "remote agents"},
		{"hot", "---\nname: r\ndescription: x\ntemperature: 3\n---\n", "temperature 3"},
		{"inline servers", "---\nname: r\ndescription: x\nmcpServers:\n  s: {command: x}\n---\n", "mcpServers inside an agent file"},
		{"bad yaml", "---\nname: [r\n---\n", "front matter"},
		{"claude code's comma list", "---\nname: reviewer\ndescription: Reviews code\ntools: Read, search_file_content, Bash, mcp_*\nmodel: gemini-pro\ntemperature: 0.2\nmax_turns: 5\ntimeout_mins: 2\n---\nYou review.", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa, err := parseSubagent(c.text)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sa.Name != "reviewer" || sa.Model != "gemini-pro" || *sa.Temperature != 0.2 || sa.MaxTurns != 5 || sa.Timeout.Minutes() != 2 || sa.Prompt != "You review." {
				t.Errorf("%+v", sa)
			}
			if !sa.allows("grep_search") || !sa.allows("read_file") || !sa.allows("run_shell_command") || !sa.allows("mcp_notes_add") || sa.allows("write_file") {
				t.Errorf("tools %v", sa.Tools)
			}
		})
	}
	for _, model := range []string{"sonnet", "opus", "haiku", "inherit", "claude-sonnet-4-5"} { // Claude Code's: the session's model
		if sa, err := parseSubagent("---\nname: r\ndescription: x\nmodel: " + model + "\n---\n"); err != nil || sa.Model != "" {
			t.Errorf("model %s: %+v, %v", model, sa, err)
		}
	}
	if _, err := parseSubagent("---\nname: r\nkind: remote\ndescription: x\n---\n"); !errors.Is(err, ErrRemoteAgent) {
		t.Errorf("remote: %v", err)
	}
}

// TestSubagentsPrecedence: the workspace's agent (trusted folders only) wins over the
// user's, which wins over an extension's.
func TestSubagentsPrecedence(t *testing.T) {
	w := newWorld(t, "", "")
	write := func(dir, source string) {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "r.md"), []byte("---\nname: reviewer\ndescription: from "+source+"\n---\nbody"), 0o644)
	}
	write(filepath.Join(w.env.GeminiExtensionsDir(), "kit", "agents"), "kit")
	d := registry.Discover(w.env, registry.Providers)
	if list, errs := Subagents(w.env, d); len(errs) > 0 || len(list) != 1 || list[0].Description != "from kit" {
		t.Fatalf("%v %v", list, errs)
	}
	write(filepath.Join(w.env.GeminiHome, ".gemini", "agents"), "user")
	write(filepath.Join(w.env.Cwd, ".gemini", "agents"), "workspace")
	if list, _ := Subagents(w.env, d); list[0].Description != "from user" {
		t.Errorf("untrusted workspace: %s", list[0].Description)
	}
	if err := registry.SetFolderTrust(w.env, w.env.Cwd, registry.TrustFolder); err != nil {
		t.Fatal(err)
	}
	if list, _ := Subagents(w.env, d); list[0].Description != "from workspace" {
		t.Errorf("trusted workspace: %s", list[0].Description)
	}
}

// TestSubagentRun: the model hands a task to a subagent; the subagent's requests carry its
// own instructions, model, temperature and tool subset (no echo, no subagents); a call
// outside its subset is refused; its answer comes back as the tool's result.
func TestSubagentRun(t *testing.T) {
	w := newWorld(t, "", "")
	a, srv := w.agent(t, []fakegemini.Reply{
		chunks(call("reviewer", `{"query":"count the words of 'a b c'"}`)),
		chunks(call("echo", `{"text":"sneaky"}`)),
		chunks(text("found 3 words")),
		chunks(text("The reviewer found 3.")),
	})
	sa, err := parseSubagent("---\nname: reviewer\ndescription: Counts things\ntools: [count]\nmodel: gemini-sub\ntemperature: 0.5\nmax_turns: 4\n---\nYou are a careful counter.")
	if err != nil {
		t.Fatal(err)
	}
	a.Subagents = []*Subagent{sa}
	var calls []string
	a.Events.ToolCall = func(_, name string, _ json.RawMessage) { calls = append(calls, name) }
	s := Sessions{Dir: t.TempDir()}.New("m")
	out, st, err := a.Turn(context.Background(), s, "review it")
	if err != nil || out != "The reviewer found 3." {
		t.Fatalf("%q %v", out, err)
	}
	if !strings.Contains(string(srv.Requests[0].Body), `"name":"reviewer"`) {
		t.Errorf("the subagent is not offered: %s", srv.Requests[0].Body)
	}
	sub := srv.Requests[1]
	body := string(sub.Body)
	if !strings.Contains(sub.Path, "/models/gemini-sub:") || !strings.Contains(body, "You are a careful counter.") || !strings.Contains(body, `"temperature":0.5`) ||
		!strings.Contains(body, `"name":"count"`) || strings.Contains(body, `"name":"echo"`) || strings.Contains(body, `"name":"reviewer"`) || strings.Contains(body, "review it") {
		t.Errorf("the subagent's request %s: %s", sub.Path, body)
	}
	if !strings.Contains(string(srv.Requests[2].Body), "is not among the subagent reviewer") {
		t.Errorf("the call outside its tools: %s", srv.Requests[2].Body)
	}
	if !strings.Contains(string(srv.Requests[3].Body), "found 3 words") {
		t.Errorf("the answer did not come back: %s", srv.Requests[3].Body)
	}
	if st.Requests != 4 || strings.Join(calls, ",") != "reviewer,reviewer/echo" {
		t.Errorf("stats %+v, calls %v", st, calls)
	}
}

// FuzzParseSubagent: no agent file makes the reader panic; an agent it accepts is valid.
func FuzzParseSubagent(f *testing.F) {
	for _, seed := range []string{"---\nname: r\ndescription: d\n---\nbody", "---\nname: r\ndescription: d\ntools: [\"*\"]\ntemperature: 1.5\n---\n",
		"---\r\nname: r\r\ndescription: d\r\n---\r\n", "---\nname: [x\n---\n", "no front matter", "---\n---\n", "---\nkind: remote\n---\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sa, err := parseSubagent(text)
		if err != nil {
			return
		}
		if !slug.MatchString(sa.Name) || sa.Description == "" || sa.MaxTurns < 0 {
			t.Fatalf("accepted %+v", sa)
		}
		sa.allows("read_file")
	})
}

// TestSubagentUnknownTools: Claude Code's tool names map to the core tools; a name no tool
// has is reported (patterns are not).
func TestSubagentUnknownTools(t *testing.T) {
	sa, err := parseSubagent("---\nname: r\ndescription: x\ntools: [Read, Grep, NotebookEdit, mcp_*, frobnicate]\n---\n")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sa.Tools, []string{"read_file", "grep_search", "NotebookEdit", "mcp_*", "frobnicate"}) {
		t.Errorf("tools %v", sa.Tools)
	}
	known := map[string]bool{"read_file": true, "grep_search": true}
	if got := sa.UnknownTools(func(n string) bool { return known[n] }); !slices.Equal(got, []string{"NotebookEdit", "frobnicate"}) {
		t.Errorf("unknown %v", got)
	}
}
