package claude

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/gemhost/gem/manifest"
)

// files is a plugin folder in memory.
func files(m map[string]string) Reader {
	return func(rel string) ([]byte, error) {
		if s, ok := m[rel]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name, plugin string
		files        map[string]string
		want         []string // in the converted manifest's JSON
		notes        []string // in the notes
	}{
		{"name only", `{"name":"tiny"}`, nil, []string{`"name": "tiny"`}, nil},
		{"head", `{"name":"db","version":"1.2.0","description":"Databases","author":{"name":"x"}}`, nil,
			[]string{`"version": "1.2.0"`, `"description": "Databases"`}, nil},
		{".mcp.json servers and variables", `{"name":"db"}`, map[string]string{".mcp.json": `{"mcpServers": {
			"pg": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/pg", "args": ["--db", "${DB_URL:-postgres://localhost}"], "env": {"ROOT": "${CLAUDE_PROJECT_DIR}"}},
			"remote": {"type": "http", "url": "https://mcp.example/api", "headers": {"Authorization": "Bearer ${TOKEN}"}},
			"events": {"type": "sse", "url": "https://mcp.example/sse"}}}`},
			[]string{`"command": "${extensionPath}/bin/pg"`, `"${DB_URL:-postgres://localhost}"`, `"ROOT": "${workspacePath}"`, `"httpUrl": "https://mcp.example/api"`,
				`"url": "https://mcp.example/sse"`, `"Authorization": "Bearer ${TOKEN}"`},
			[]string{"mcpServers.pg: MCP server pg", "mcpServers.remote: MCP server remote"}},
		{"inline servers", `{"name":"x","mcpServers":{"a":{"command":"a"}}}`, nil, []string{`"command": "a"`}, []string{"mcpServers.a: MCP server a"}},
		{"servers from a named file", `{"name":"x","mcpServers":"./config/mcp.json"}`, map[string]string{"config/mcp.json": `{"b":{"command":"b"}}`},
			[]string{`"command": "b"`}, nil},
		{"a named file missing", `{"name":"x","mcpServers":"gone.json"}`, nil, nil, []string{"mcpServers: dropped (gone.json cannot be read"}},
		{"unsupported parts said", `{"name":"x","lspServers":{},"monitors":[]}`, nil, nil,
			[]string{"lspServers: dropped (gem runs no language servers)", "monitors: dropped"}},
		{"options are settings", `{"name":"x","userConfig":{"api_key":{"title":"API key","description":"the key","sensitive":true},"region":{"description":"where"}},
			"mcpServers":{"a":{"command":"a","env":{"KEY":"${user_config.api_key}"}}}}`, nil,
			[]string{`"envVar": "CLAUDE_PLUGIN_OPTION_API_KEY"`, `"name": "API key"`, `"sensitive": true`, `"envVar": "CLAUDE_PLUGIN_OPTION_REGION"`, `"KEY": "${CLAUDE_PLUGIN_OPTION_API_KEY}"`},
			[]string{"userConfig.api_key: setting CLAUDE_PLUGIN_OPTION_API_KEY (sensitive: sealed)", "userConfig.region: setting CLAUDE_PLUGIN_OPTION_REGION"}},
		{"an empty url is a setting to fill in", `{"name":"x"}`, map[string]string{".mcp.json": `{"mcpServers": {
			"api": {"type": "http", "url": ""}, "feed": {"type": "sse"}, "blank": {"url": "  "}}}`},
			[]string{`"httpUrl": "${MCP_API_URL}"`, `"url": "${MCP_FEED_URL}"`, `"url": "${MCP_BLANK_URL}"`, `"envVar": "MCP_API_URL"`, `"name": "api URL"`},
			[]string{"mcpServers.api.url: empty in the plugin: the setting MCP_API_URL; the server starts once it is set", "mcpServers.feed.url: empty"}},
		{"plugin data is the extension's data folder", `{"name":"x","mcpServers":{"a":{"command":"a","env":{"D":"${CLAUDE_PLUGIN_DATA}/db"}}}}`, nil,
			[]string{`"D": "${extensionData}/db"`}, nil},
	}
	for _, tt := range tests {
		doc, notes, err := Convert([]byte(tt.plugin), files(tt.files))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(doc), w) {
				t.Errorf("%s: %s lacks %s", tt.name, doc, w)
			}
		}
		var said []string
		for _, n := range notes {
			said = append(said, n.String())
		}
		for _, w := range tt.notes {
			if !strings.Contains(strings.Join(said, "\n"), w) {
				t.Errorf("%s: notes %q lack %q", tt.name, said, w)
			}
		}
		// what it makes is a manifest gem reads without problems
		m, problems, err := manifest.Parse(doc)
		if err != nil || len(problems) > 0 || m.Name == "" {
			t.Errorf("%s: the converted manifest: %v %v\n%s", tt.name, err, problems, doc)
		}
	}
	if _, _, err := Convert([]byte(`["not", "an", "object"]`), files(nil)); err == nil {
		t.Error("a plugin.json that is not an object was taken")
	}
}

func TestHooks(t *testing.T) {
	doc, notes, err := Hooks([]byte(`{"hooks": {
		"PreToolUse": [{"matcher": "Bash|Edit|MultiEdit", "hooks": [
			{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/check.sh", "timeout": 30},
			{"type": "prompt", "prompt": "is it safe?"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "log"}]}],
		"SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}],
		"Stop": [{"hooks": [{"type": "http", "url": "https://x"}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       float64
			}
		}
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	bt := got.Hooks["BeforeTool"]
	if len(bt) != 1 || bt[0].Matcher != "run_shell_command|replace|replace" || len(bt[0].Hooks) != 1 ||
		bt[0].Hooks[0].Command != "${extensionPath}/check.sh" || bt[0].Hooks[0].Timeout != 30000 {
		t.Errorf("BeforeTool: %+v", bt)
	}
	if ba := got.Hooks["BeforeAgent"]; len(ba) != 1 || ba[0].Hooks[0].Command != "log" || ba[0].Hooks[0].Timeout != 0 {
		t.Errorf("BeforeAgent: %+v", ba)
	}
	if _, ok := got.Hooks["AfterAgent"]; ok || len(got.Hooks) != 2 {
		t.Errorf("hooks left: %s", doc)
	}
	var said []string
	for _, n := range notes {
		said = append(said, n.String())
	}
	for _, w := range []string{"timeout 30s = 30000ms", "a prompt hook: gem runs command hooks only", "hooks.SubagentStop: dropped (gem has no SubagentStop event)", "a http hook"} {
		if !strings.Contains(strings.Join(said, "\n"), w) {
			t.Errorf("notes %q lack %q", said, w)
		}
	}
	if _, _, err := Hooks([]byte(`{"hooks": {"PreToolUse": "not a list"}}`)); err == nil {
		t.Error("a malformed hooks file was taken")
	}
	if _, _, err := HooksOf([]byte(`{"name":"x"}`), files(map[string]string{"hooks/hooks.json": `{"hooks": 3}`})); err == nil || !strings.HasPrefix(err.Error(), "hooks/hooks.json: ") {
		t.Errorf("a malformed hooks file's error: %v", err)
	}
}

func TestHooksOf(t *testing.T) {
	tests := []struct {
		name, plugin string
		files        map[string]string
		event        string // "" for no hooks
	}{
		{"hooks/hooks.json", `{"name":"x"}`, map[string]string{"hooks/hooks.json": `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"}]}]}}`}, "AfterAgent"},
		{"inline", `{"name":"x","hooks":{"PreCompact":[{"hooks":[{"type":"command","command":"a"}]}]}}`, nil, "PreCompress"},
		{"a named file", `{"name":"x","hooks":"./h.json"}`, map[string]string{"h.json": `{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]}`}, "SessionStart"},
		{"none", `{"name":"x"}`, nil, ""},
	}
	for _, tt := range tests {
		doc, _, err := HooksOf([]byte(tt.plugin), files(tt.files))
		if err != nil || (tt.event == "") != (doc == nil) || (doc != nil && !strings.Contains(string(doc), `"`+tt.event+`"`)) {
			t.Errorf("%s: %s, %v", tt.name, doc, err)
		}
	}
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name, md, description, prompt string
		notes                         []string
	}{
		{"front matter and $ARGUMENTS", "---\ndescription: Review a file\nargument-hint: <file>\nallowed-tools: Read, Grep\n---\nReview $ARGUMENTS carefully.\n",
			"Review a file", "Review {{args}} carefully.", []string{"argument-hint is not applied", "allowed-tools is not applied"}},
		{"no front matter", "Explain the code.\n", "", "Explain the code.", nil},
		{"bash execution", "Status: !`git status`\n", "", "Status: !`git status`", []string{"is not run"}},
		{"positional", "---\ndescription: \"Fix\"\n---\nFix issue $1 in $2\n", "Fix", "Fix issue $1 in $2", []string{"positional arguments"}},
		{"unterminated front matter", "---\ndescription: x\nbody", "", "---\ndescription: x\nbody", nil},
	}
	for _, tt := range tests {
		d, p, notes := Command([]byte(tt.md))
		if d != tt.description || p != tt.prompt || len(notes) != len(tt.notes) {
			t.Errorf("%s: %q %q %q", tt.name, d, p, notes)
		}
		for _, w := range tt.notes {
			if !strings.Contains(strings.Join(notes, "|"), w) {
				t.Errorf("%s: notes %q lack %q", tt.name, notes, w)
			}
		}
	}
}

func TestVariables(t *testing.T) {
	tests := []struct{ in, out string }{
		{"${CLAUDE_PLUGIN_ROOT}/x", "${extensionPath}/x"},
		{"${CLAUDE_PROJECT_DIR}", "${workspacePath}"},
		{"${HOME:-/root}/y", "${HOME:-/root}/y"},
		{"${CLAUDE_PLUGIN_DATA}/db", "${extensionData}/db"},
		{"${PLAIN}", "${PLAIN}"},
		{"$NOT_BRACED", "$NOT_BRACED"},
		{"${user_config.api_key}", "${CLAUDE_PLUGIN_OPTION_API_KEY}"},
	}
	for _, tt := range tests {
		if got, _ := Variables(tt.in); got != tt.out {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.out)
		}
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"name":"x","mcpServers":{"a":{"command":"${CLAUDE_PLUGIN_ROOT}/a","type":"http","url":"u"}}}`), []byte(`{"mcpServers":{}}`))
	f.Add([]byte(`{"name":1,"lspServers":{}}`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, plugin, mcp []byte) {
		doc, _, err := Convert(plugin, files(map[string]string{".mcp.json": string(mcp)}))
		if err != nil {
			return
		}
		if _, _, err := manifest.Parse(doc); err != nil {
			t.Fatalf("Convert made invalid JSON: %v\n%s", err, doc)
		}
	})
}

func FuzzHooks(f *testing.F) {
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":5}]}]}}`))
	f.Add([]byte(`{"Stop":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, _, err := Hooks(data)
		if err != nil {
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("Hooks made invalid JSON: %s", doc)
		}
	})
}

func FuzzCommand(f *testing.F) {
	f.Add([]byte("---\ndescription: x\n---\nDo $ARGUMENTS\n"))
	f.Add([]byte("---\n---"))
	f.Fuzz(func(t *testing.T, md []byte) {
		_, p, _ := Command(md)
		if strings.Contains(p, "$ARGUMENTS") {
			t.Fatalf("$ARGUMENTS left in %q", p)
		}
	})
}

// TestVersion: a plugin.json without a version gets its marketplace entry's, else its
// commit's first 12 hex digits, else none.
func TestVersion(t *testing.T) {
	for _, tt := range []struct{ entry, commit, want string }{
		{"2.5.0", "0123456789abcdef0123456789abcdef01234567", "2.5.0"},
		{"", "0123456789abcdef0123456789abcdef01234567", "0123456789ab"},
		{"", "abc1234", "abc1234"},
		{"", "", ""},
	} {
		if got := Version(tt.entry, tt.commit); got != tt.want {
			t.Errorf("Version(%q, %q) = %q, want %q", tt.entry, tt.commit, got, tt.want)
		}
	}
}
