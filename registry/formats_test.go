package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testuser"
)

// TestClaudePluginReadsStayInside: what a Claude Code plugin's plugin.json names (its
// servers' and hooks' files), and its .mcp.json, are read inside its folder only: a path
// out, a link out, are refused and said; a plugin without hooks has none, silently.
func TestClaudePluginReadsStayInside(t *testing.T) {
	env := testEnv(t)
	root := filepath.Join(env.Home, ".gemini/extensions")
	outside := filepath.Join(env.Home, "outside.json")
	write(t, outside, `{"mcpServers": {"stolen": {"command": "x"}}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`)
	write(t, filepath.Join(root, "named/.claude-plugin/plugin.json"), `{"name": "named", "mcpServers": "../../outside.json", "hooks": "../../outside.json"}`)
	write(t, filepath.Join(root, "linked/.claude-plugin/plugin.json"), `{"name": "linked"}`)
	os.MkdirAll(filepath.Join(root, "linked/hooks"), 0o755)
	os.Symlink(outside, filepath.Join(root, "linked/.mcp.json"))
	os.Symlink(outside, filepath.Join(root, "linked/hooks/hooks.json"))
	write(t, filepath.Join(root, "plain/.claude-plugin/plugin.json"), `{"name": "plain", "version": "1.0.0"}`)
	d := Discover(env, Providers)
	if len(d.All) != 3 {
		t.Fatalf("found %d", len(d.All))
	}
	for _, x := range d.All {
		if m := x.Manifest(); len(m.MCPServers) != 0 {
			t.Errorf("%s: servers read from outside: %+v", x.Name, m.MCPServers)
		}
		hooks, err := x.Hooks()
		var notes []string
		for _, n := range x.FormatNotes() {
			notes = append(notes, n.String())
		}
		switch x.Name {
		case "plain":
			if hooks != nil || err != nil || len(notes) != 0 {
				t.Errorf("plain: %s %v %q", hooks, err, notes)
			}
		case "named":
			if hooks != nil || err == nil || !strings.Contains(err.Error(), "../../outside.json") || !strings.Contains(strings.Join(notes, "\n"), "mcpServers: dropped (../../outside.json cannot be read") {
				t.Errorf("named: %s %v %q", hooks, err, notes)
			}
		case "linked":
			if hooks != nil || err == nil || !strings.Contains(err.Error(), "hooks/hooks.json") || !strings.Contains(strings.Join(notes, "\n"), "mcpServers: dropped (.mcp.json cannot be read") {
				t.Errorf("linked: %s %v %q", hooks, err, notes)
			}
		}
	}
}

// TestRegistryAsNormalUser runs the format tests again as an unprivileged user.
func TestRegistryAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestClaudePluginReadsStayInside", "TestDiscoverMixedFormats", "TestAntigravityPlugins")
}

// TestAntigravityPlugins: an Antigravity plugin is found with its manifest at its root or in
// .antigravity-plugin/, its mcp_config.json, rules and hooks.json converted; a folder that
// carries three formats is one extension, read as the first (gem's own), the others said;
// a rules folder or hooks.json that links out is not read.
func TestAntigravityPlugins(t *testing.T) {
	env := testEnv(t)
	root := filepath.Join(env.Home, ".gemini/extensions")
	write(t, filepath.Join(root, "agy/plugin.json"), `{"name": "agy", "description": "an Antigravity plugin"}`)
	write(t, filepath.Join(root, "agy/mcp_config.json"), `{"mcpServers": {"s": {"command": "node", "args": ["s.js"]}, "r": {"serverUrl": "http://127.0.0.1:1/mcp"}}}`)
	write(t, filepath.Join(root, "agy/rules/style.md"), "---\ntrigger: always_on\n---\nUse tabs.\n")
	write(t, filepath.Join(root, "agy/hooks.json"), `{"guard": {"enabled": true, "PreToolUse": [{"matcher": "run_command", "command": "./check.sh", "timeout": 3}]}}`)
	write(t, filepath.Join(root, "alt/.antigravity-plugin/plugin.json"), `{"name": "alt"}`)
	write(t, filepath.Join(root, "three/gemini-extension.json"), `{"name": "three", "version": "1.0.0"}`)
	write(t, filepath.Join(root, "three/.claude-plugin/plugin.json"), `{"name": "three-claude"}`)
	write(t, filepath.Join(root, "three/plugin.json"), `{"name": "three-agy"}`)
	outside := filepath.Join(env.Home, "outside")
	write(t, filepath.Join(outside, "secret.md"), "stolen rule")
	write(t, filepath.Join(outside, "hooks.json"), `{"g": {"Stop": [{"command": "stolen"}]}}`)
	write(t, filepath.Join(root, "linked/plugin.json"), `{"name": "linked"}`)
	os.Symlink(outside, filepath.Join(root, "linked/rules"))
	os.Symlink(filepath.Join(outside, "hooks.json"), filepath.Join(root, "linked/hooks.json"))

	d := Discover(env, Providers)
	byName := map[string]*Extension{}
	for _, x := range d.All {
		byName[x.Name] = x
	}
	if len(d.All) != 4 || byName["agy"] == nil || byName["alt"] == nil || byName["three"] == nil || byName["linked"] == nil {
		t.Fatalf("found %v", byName)
	}
	agy := byName["agy"]
	m := agy.Manifest()
	if agy.Format.ID != "antigravity" || len(m.MCPServers) != 2 || m.Description != "an Antigravity plugin" {
		t.Errorf("agy: %s %+v", agy.Format.ID, m)
	}
	if got := strings.Join(m.ContextFiles(), ","); got != "rules/style.md" {
		t.Errorf("agy context: %s", got)
	}
	hooks, err := agy.Hooks()
	if err != nil || !strings.Contains(string(hooks), `"BeforeTool"`) || !strings.Contains(string(hooks), `"matcher": "run_shell_command"`) || !strings.Contains(string(hooks), `"timeout": 3000`) {
		t.Errorf("agy hooks: %s %v", hooks, err)
	}
	if alt := byName["alt"]; alt.Format.ID != "antigravity" || alt.ManifestPath != filepath.Join(root, "alt/.antigravity-plugin/plugin.json") {
		t.Errorf("alt: %s %s", alt.Format.ID, alt.ManifestPath)
	}
	three := byName["three"]
	var said []string
	for _, n := range three.FormatNotes() {
		said = append(said, n.String())
	}
	if three.Format.ID != "gemini" || len(said) != 2 || !strings.Contains(said[0], "also a Claude Code plugin: read once, as a Gemini CLI extension") || !strings.Contains(said[1], "Antigravity plugin") {
		t.Errorf("three: %s %q", three.Format.ID, said)
	}
	linked := byName["linked"]
	if strings.Contains(strings.Join(linked.Manifest().ContextFiles(), ","), "secret") {
		t.Errorf("linked: rules read through a link out: %v", linked.Manifest().ContextFiles())
	}
	if hooks, err := linked.Hooks(); hooks != nil || err == nil {
		t.Errorf("linked: hooks read through a link out: %s %v", hooks, err)
	}
}

// TestInstallRoot: gem installs what Gemini CLI loads in Gemini CLI's roots, and what only
// gem reads (Claude Code and Antigravity plugins) in its own; any level but the project's is
// the user's.
func TestInstallRoot(t *testing.T) {
	env := testEnv(t)
	for _, tt := range []struct {
		level Level
		f     *Format
		want  string
	}{
		{LevelUser, nil, filepath.Join(env.Home, ".gemini/extensions")},
		{LevelUser, FormatGemini, filepath.Join(env.Home, ".gemini/extensions")},
		{"", FormatOf("claude"), filepath.Join(env.GemHome, "extensions")},
		{LevelUser, FormatOf("antigravity"), filepath.Join(env.GemHome, "extensions")},
		{LevelProject, FormatGemini, filepath.Join(env.Cwd, ".gemini/extensions")},
		{LevelProject, FormatOf("claude"), filepath.Join(env.Cwd, ".gem/extensions")},
	} {
		if got := env.InstallRoot(tt.level, tt.f); got != tt.want {
			t.Errorf("InstallRoot(%q, %v) = %s, want %s", tt.level, tt.f, got, tt.want)
		}
	}
	if got := env.InstallRoots(LevelUser); len(got) != 2 || got[0] != filepath.Join(env.Home, ".gemini/extensions") || got[1] != filepath.Join(env.GemHome, "extensions") {
		t.Errorf("InstallRoots(user) = %q", got)
	}
}

// TestRecordedVersion: a plugin naming no version has the one its install recorded, else
// "unversioned", and its converted manifest carries it; a Gemini extension gets none; a
// folder named <name>@<marketplace> is known by that name.
func TestRecordedVersion(t *testing.T) {
	env := testEnv(t)
	root := filepath.Join(env.GemHome, "extensions")
	write(t, filepath.Join(root, "rec/.claude-plugin/plugin.json"), `{"name": "rec"}`)
	write(t, filepath.Join(root, "rec/.gemini-extension-install.json"), `{"source": "rec@m", "type": "marketplace", "version": "2.5.0"}`)
	write(t, filepath.Join(root, "bare/plugin.json"), `{"name": "bare"}`)
	write(t, filepath.Join(root, "own/.claude-plugin/plugin.json"), `{"name": "own", "version": "1.0.0"}`)
	write(t, filepath.Join(root, "own@m2/.claude-plugin/plugin.json"), `{"name": "own", "version": "2.0.0"}`)
	write(t, filepath.Join(env.Home, ".gemini/extensions/gx/gemini-extension.json"), `{"name": "gx"}`)
	old := racyWindow
	racyWindow = 0 // the second discovery reads the heads from the index
	t.Cleanup(func() { racyWindow = old })
	for range 2 {
		got := map[string]string{}
		for _, x := range Discover(env, Providers).All {
			got[x.Name] = fmt.Sprintf("%s %v %s", x.Version, x.VersionRecorded, x.Manifest().Version)
		}
		want := map[string]string{"rec": "2.5.0 true 2.5.0", "bare": "unversioned true unversioned", "own": "1.0.0 false 1.0.0",
			"own@m2": "2.0.0 false 2.0.0", "gx": " false "}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("got %v, want %v", got, want)
		}
	}
}
