package manifest

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRealWorldShapes(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		wantSyntax  string // substring of the syntax error, "" for none
		line, col   int
		wantName    string
		wantVersion string
		wantContext []string
		wantProblem string // substring of a load problem
	}{
		{name: "minimal", in: `{"name":"a","version":"1.0.0"}`, wantName: "a", wantVersion: "1.0.0"},
		{name: "comment", in: "{\n  // note\n  \"name\": \"a\"\n}", wantSyntax: "comments are not allowed", line: 2, col: 3},
		{name: "block comment", in: "/* x */ {}", wantSyntax: "comments are not allowed", line: 1, col: 1},
		{name: "trailing comma object", in: "{\"name\": \"a\",\n}", wantSyntax: "trailing comma before }", line: 2, col: 1},
		{name: "trailing comma array", in: `{"excludeTools": ["a",]}`, wantSyntax: "trailing comma before ]", line: 1, col: 23},
		{name: "single quotes", in: `{'name': 'a'}`, wantSyntax: "double quotes", line: 1, col: 2},
		{name: "empty file", in: "", wantSyntax: "the file is empty", line: 1, col: 1},
		{name: "unterminated", in: "{\"name\": \"a\"", wantSyntax: "ends early", line: 1, col: 13},
		{name: "bom", in: "\xef\xbb\xbf{}", wantSyntax: "byte-order mark", line: 1, col: 1},
		{name: "context as array", in: `{"name":"a","version":"1","contextFileName":["A.md","B.md"]}`, wantName: "a", wantVersion: "1", wantContext: []string{"A.md", "B.md"}},
		{name: "context as string", in: `{"name":"a","contextFileName":"X.md"}`, wantName: "a", wantContext: []string{"X.md"}},
		{name: "context default", in: `{"name":"a"}`, wantName: "a", wantContext: []string{"GEMINI.md"}},
		{name: "missing version", in: `{"name":"a"}`, wantName: "a", wantVersion: ""},
		{name: "non-ascii", in: `{"name":"a","description":"日本語 ünï","version":"1.0.0"}`, wantName: "a", wantVersion: "1.0.0"},
		{name: "non-ascii column", in: "{\"d\": \"日本\" x}", wantSyntax: "invalid character 'x'", line: 1, col: 12},
		{name: "unknown keys kept", in: `{"name":"a","whatever":{"deep":[1,2]}}`, wantName: "a"},
		{name: "name number", in: `{"name":42}`, wantName: "42", wantProblem: "name: must be a string"},
		{name: "wrong types", in: `{"name":"a","mcpServers":[],"settings":{}}`, wantName: "a", wantProblem: "mcpServers: must be an object, not array"},
		{name: "not an object", in: `[1,2]`, wantProblem: "must be a JSON object"},
		{name: "duplicate keys last wins", in: `{"name":"a","name":"b"}`, wantName: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, problems, err := Parse([]byte(tt.in))
			if tt.wantSyntax != "" {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("want syntax error, got %v", err)
				}
				if !strings.Contains(se.Error(), tt.wantSyntax) || se.Line != tt.line || se.Column != tt.col {
					t.Fatalf("got %q at %d:%d, want %q at %d:%d", se.Error(), se.Line, se.Column, tt.wantSyntax, tt.line, tt.col)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if m.Name != tt.wantName || m.Version != tt.wantVersion {
				t.Errorf("name/version = %q/%q, want %q/%q", m.Name, m.Version, tt.wantName, tt.wantVersion)
			}
			if tt.wantContext != nil && strings.Join(m.ContextFiles(), ",") != strings.Join(tt.wantContext, ",") {
				t.Errorf("context files = %v, want %v", m.ContextFiles(), tt.wantContext)
			}
			if tt.wantProblem != "" && !strings.Contains(problems.Error(), tt.wantProblem) {
				t.Errorf("problems %q lack %q", problems.Error(), tt.wantProblem)
			}
			if tt.wantProblem == "" && len(problems) > 0 {
				t.Errorf("unexpected problems: %v", problems)
			}
		})
	}
}

func TestLoadAllFields(t *testing.T) {
	in := `{
	  "name": "full", "version": "1.2.3", "description": "d",
	  "mcpServers": {"s": {"command": "node", "args": ["x.js"], "env": {"K": "v"}, "cwd": "/c", "timeout": 5000,
	     "includeTools": ["a"], "excludeTools": ["b"], "headers": {"H": "1"}, "httpUrl": "http://h", "trust": true}},
	  "excludeTools": ["run_shell_command(rm -rf)"],
	  "settings": [{"name": "Key", "description": "k", "envVar": "API_KEY", "sensitive": true}],
	  "themes": [{"name": "t"}], "plan": {"directory": "p"}, "migratedTo": "https://example.invalid/x",
	  "commands": {"g": {"type": "executable", "binary": "b", "subcommands": ["list"], "requireConfirm": true,
	     "env": {"E": "1"}, "sha256": {"linux/x64": "00"}}},
	  "plugins": {"p": {"binary": "pb", "description": "pd", "sandbox": {"network": true, "read": ["/r"]}}},
	  "sandbox": {"network": true, "read": ["/a"], "write": ["/b"], "env": ["TOKEN"]},
	  "engines": {"gem": ">=1"}
	}`
	m, problems, err := Parse([]byte(in))
	if err != nil || len(problems) > 0 {
		t.Fatalf("err=%v problems=%v", err, problems)
	}
	s := m.MCPServers[0]
	if s.Command != "node" || s.Args[0] != "x.js" || s.Env[0] != (KV{"K", "v"}) || s.Timeout != 5000 || !s.Trust || s.HTTPURL != "http://h" {
		t.Errorf("mcp server: %+v", s)
	}
	if m.Settings[0] != (Setting{Name: "Key", Description: "k", EnvVar: "API_KEY", Sensitive: true}) {
		t.Errorf("settings: %+v", m.Settings)
	}
	c := m.Command("g")
	if c == nil || !c.RequireConfirm || c.Subcommands[0] != "list" || c.SHA256[0].Key != "linux/x64" {
		t.Errorf("command: %+v", c)
	}
	if !m.Plugins[0].Sandbox.Network || m.Sandbox.Env[0] != "TOKEN" || m.Engines.Gem != ">=1" {
		t.Errorf("plugins/sandbox/engines: %+v %+v %+v", m.Plugins, m.Sandbox, m.Engines)
	}
	if string(m.Plan) != `{"directory":"p"}` || m.MigratedTo == "" {
		t.Errorf("plan/migratedTo: %s %s", m.Plan, m.MigratedTo)
	}
}

// TestGemContextFiles: the context files of gem-only parts, in order, once each, never one
// contextFileName already names; a mistyped one is a problem naming its field.
func TestGemContextFiles(t *testing.T) {
	tests := []struct {
		name, in, want, problem string
	}{
		{"none", `{"name":"a"}`, "", ""},
		{"command and plugin", `{"name":"a","commands":{"c":{"type":"executable","binary":"b","context":"C.md"}},"plugins":{"p":{"binary":"b","context":"P.md"}}}`, "C.md,P.md", ""},
		{"shared file once", `{"name":"a","commands":{"c":{"type":"executable","binary":"b","context":"GEM.md"}},"plugins":{"p":{"binary":"b","context":"GEM.md"}}}`, "GEM.md", ""},
		{"already a context file", `{"name":"a","contextFileName":"GEMINI.md","plugins":{"p":{"binary":"b","context":"GEMINI.md"}}}`, "", ""},
		{"default context file", `{"name":"a","plugins":{"p":{"binary":"b","context":"GEMINI.md"}}}`, "", ""},
		{"mistyped", `{"name":"a","plugins":{"p":{"binary":"b","context":["X.md"]}}}`, "", "plugins.p.context: must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, problems, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(m.GemContextFiles(), ","); got != tt.want {
				t.Errorf("GemContextFiles = %q, want %q", got, tt.want)
			}
			if tt.problem != "" && !strings.Contains(problems.Error(), tt.problem) {
				t.Errorf("problems %v, want %q", problems, tt.problem)
			}
		})
	}
}
