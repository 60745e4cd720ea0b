package registry

import (
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
	write(t, filepath.Join(root, "plain/.claude-plugin/plugin.json"), `{"name": "plain"}`)
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
	testuser.RunTests(t, "TestClaudePluginReadsStayInside", "TestDiscoverMixedFormats")
}
