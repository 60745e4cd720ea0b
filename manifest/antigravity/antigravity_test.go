package antigravity

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/gemhost/gem/manifest"
)

// folder is a plugin folder in memory.
type folder map[string]string

func (f folder) read(rel string) ([]byte, error) {
	if s, ok := f[rel]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func (f folder) list(dir string) ([]string, error) {
	var out []string
	for k := range f {
		if path.Dir(k) == dir {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func notesText(notes []Note) string {
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintln(&b, n)
	}
	return b.String()
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name, plugin string
		files        folder
		want         []string // in the converted manifest's JSON
		notes        []string // in the notes
		not          []string // in neither
	}{
		{"name only", `{"name":"tiny"}`, nil, []string{`"name": "tiny"`}, nil, []string{"contextFileName", "mcpServers"}},
		{"other keys discarded", `{"name":"x","description":"d","version":"1.0.0","$schema":"s"}`, nil,
			[]string{`"description": "d"`, `"version": "1.0.0"`}, nil, []string{"$schema"}},
		{"disabled and logo said", `{"name":"x","disabled":true,"logo":"l.png"}`, nil, nil,
			[]string{"disabled: dropped (not applied: gem ext disable", "logo: dropped"}, nil},
		{"mcp servers", `{"name":"x"}`, folder{"mcp_config.json": `{"mcpServers": {
			"local": {"command": "node", "args": ["server.js"], "env": {"A": "1"}, "disabledTools": ["rm"]},
			"remote": {"serverUrl": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
			"off": {"command": "x", "disabled": true},
			"odd": {"command": "y", "trust": true}}}`},
			[]string{`"command": "node"`, `"excludeTools": [`, `"httpUrl": "https://mcp.example/mcp"`, `"Authorization": "Bearer ${TOKEN}"`},
			[]string{"mcpServers.local: MCP server local", "mcpServers.off: dropped (disabled in mcp_config.json)", "mcpServers.odd.trust: dropped (not a field gem reads)"},
			[]string{`"disabled"`, `"off"`, `"serverUrl"`}},
		{"mcp_config.json not JSON", `{"name":"x"}`, folder{"mcp_config.json": `{`}, nil, []string{"mcp_config.json: dropped (not JSON"}, []string{"mcpServers"}},
		{"rules", `{"name":"x"}`, folder{
			"rules/style.md":  "---\ntrigger: always_on\n---\nUse tabs.\n",
			"rules/plain.md":  "Always answer briefly.\n",
			"rules/db.md":     "---\ntrigger: model_decision\ndescription: databases\n---\nx",
			"rules/go.md":     "---\ntrigger: glob\nglobs: '*.go'\n---\nx",
			"rules/notes.txt": "not a rule"},
			[]string{`"contextFileName": [`, `"rules/plain.md"`, `"rules/style.md"`},
			[]string{"rules/style.md: context file (always_on rule)", "rules/db.md: dropped (gem has no rules the model picks: write it as a skill)", "rules/go.md: dropped (gem has no glob rules)"},
			[]string{"rules/db.md\"", "rules/go.md\"", "notes.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, notes, err := Convert([]byte(tt.plugin), tt.files.read, tt.files.list)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := manifest.Parse(doc); err != nil {
				t.Fatalf("not a manifest: %v\n%s", err, doc)
			}
			said := notesText(notes)
			for _, w := range tt.want {
				if !strings.Contains(string(doc), w) {
					t.Errorf("%s lacks %s", doc, w)
				}
			}
			for _, w := range tt.notes {
				if !strings.Contains(said, w) {
					t.Errorf("notes lack %q:\n%s", w, said)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(string(doc), w) {
					t.Errorf("%s has %s", doc, w)
				}
			}
		})
	}
	if _, _, err := Convert([]byte(`[1]`), folder{}.read, folder{}.list); err == nil || !strings.Contains(err.Error(), "plugin.json") {
		t.Errorf("a plugin.json that is not an object: %v", err)
	}
}

func TestConvertHooks(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string][]gemGroup
		notes    []string
		err      string
	}{
		{"groups keyed by name, enabled", `{
			"guard": {"enabled": true, "PreToolUse": [{"matcher": "run_command|write_to_file", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 10}]}]},
			"off": {"enabled": false, "Stop": [{"command": "never"}]}}`,
			map[string][]gemGroup{"BeforeTool": {{Matcher: "run_shell_command|write_file", Hooks: []gemHook{{Type: "command", Command: `cd "${extensionPath}" && (./check.sh)`, Timeout: 10000}}}}},
			[]string{"guard.PreToolUse[0].0: BeforeTool command hook, run in the plugin's folder, timeout 10s = 10000ms", "hooks.json off: dropped (enabled is false)"}, ""},
		{"hooks directly in the event's list", `{"resume": {"PreInvocation": [{"command": "node bin/resume.js", "timeout": 2.5}], "PostToolUse": [{"matcher": "view_file", "command": "log"}]}}`,
			map[string][]gemGroup{
				"BeforeAgent": {{Hooks: []gemHook{{Type: "command", Command: `cd "${extensionPath}" && (node bin/resume.js)`, Timeout: 2500}}}},
				"AfterTool":   {{Matcher: "read_file", Hooks: []gemHook{{Type: "command", Command: `cd "${extensionPath}" && (log)`}}}}},
			nil, ""},
		{"keyed by events, Claude's wrapper", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "start"}]}], "PostInvocation": [{"command": "end"}]}}`,
			map[string][]gemGroup{
				"SessionStart": {{Hooks: []gemHook{{Type: "command", Command: `cd "${extensionPath}" && (start)`}}}},
				"AfterAgent":   {{Hooks: []gemHook{{Type: "command", Command: `cd "${extensionPath}" && (end)`}}}}},
			nil, ""},
		{"unknown event and type said", `{"g": {"OnError": [{"command": "x"}], "Stop": [{"type": "prompt", "command": "y"}]}}`,
			map[string][]gemGroup{}, []string{"hooks.json g.OnError: dropped (gem has no OnError event)", "g.Stop[0].0: dropped (a prompt hook: gem runs command hooks only)"}, ""},
		{"not JSON", `{`, nil, nil, "unexpected end"},
		{"group not an object", `{"g": 3}`, nil, nil, "g: a hook group is an object of events"},
		{"enabled not a bool", `{"g": {"enabled": "yes"}}`, nil, nil, "g.enabled: use true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, notes, err := ConvertHooks([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Hooks map[string][]gemGroup `json:"hooks"`
			}
			if err := json.Unmarshal(doc, &got); err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got.Hooks)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) {
				t.Errorf("hooks\n got %s\nwant %s", g, w)
			}
			said := notesText(notes)
			for _, n := range tt.notes {
				if !strings.Contains(said, n) {
					t.Errorf("notes lack %q:\n%s", n, said)
				}
			}
		})
	}
}

func TestHooksFile(t *testing.T) {
	doc, _, err := Hooks(folder{}.read)
	if doc != nil || err != nil {
		t.Errorf("no hooks.json: %s, %v", doc, err)
	}
	if _, _, err := Hooks(folder{"hooks.json": "[]"}.read); err == nil || !strings.HasPrefix(err.Error(), "hooks.json: ") {
		t.Errorf("a bad hooks.json is named: %v", err)
	}
}

func TestMatcher(t *testing.T) {
	for in, want := range map[string]string{
		"run_command": "run_shell_command",
		"replace_file_content|multi_replace_file_content": "replace|replace",
		"^view_file$":       "^read_file$",
		"mcp_run_command_x": "mcp_run_command_x", // not a word of its own
		".*":                ".*",
	} {
		if got := Matcher(in); got != want {
			t.Errorf("Matcher(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"name":"x","logo":"l"}`), []byte(`{"mcpServers":{"a":{"serverUrl":"u","disabledTools":["t"]}}}`), []byte("---\ntrigger: always_on\n---\nx"))
	f.Add([]byte(`{"name":1}`), []byte(`[]`), []byte("---\n"))
	f.Fuzz(func(t *testing.T, plugin, mcp, rule []byte) {
		files := folder{"mcp_config.json": string(mcp), "rules/r.md": string(rule)}
		doc, _, err := Convert(plugin, files.read, files.list)
		if err != nil {
			return
		}
		if _, _, err := manifest.Parse(doc); err != nil {
			t.Fatalf("Convert made invalid JSON: %v\n%s", err, doc)
		}
	})
}

func FuzzConvertHooks(f *testing.F) {
	f.Add([]byte(`{"g":{"enabled":true,"PreToolUse":[{"matcher":"run_command","hooks":[{"type":"command","command":"x","timeout":5}]}]}}`))
	f.Add([]byte(`{"Stop":[{"command":"y"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, _, err := ConvertHooks(data)
		if err != nil {
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("ConvertHooks made invalid JSON: %s", doc)
		}
	})
}
