package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testEnv(t testing.TB) Env {
	dir := t.TempDir()
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(cwd, 0o755)
	return NewEnv(home, cwd, func(string) string { return "" })
}

func TestDiscoverShadowing(t *testing.T) {
	env := testEnv(t)
	m := func(name, v string) string { return fmt.Sprintf(`{"name":%q,"version":%q}`, name, v) }
	write(t, filepath.Join(env.GemHome, "extensions/a/gemini-extension.json"), m("a", "native-user"))
	write(t, filepath.Join(env.Cwd, ".gem/extensions/a/gemini-extension.json"), m("a", "native-project"))
	write(t, filepath.Join(env.Home, ".gemini/extensions/a/gemini-extension.json"), m("a", "gemini-user"))
	write(t, filepath.Join(env.Cwd, ".gemini/extensions/a/gemini-extension.json"), m("a", "gemini-project"))
	write(t, filepath.Join(env.Home, ".gemini/extensions/b/gemini-extension.json"), m("b", "gemini-user"))
	write(t, filepath.Join(env.Cwd, ".gemini/extensions/b/gemini-extension.json"), m("b", "gemini-project"))

	d := Discover(env, Providers)
	var got []string
	for _, x := range d.All {
		s := x.Name + ":" + x.Version
		if x.Shadowed {
			s += "<" + x.ShadowedBy.Version
		}
		got = append(got, s)
	}
	// A project extension never shadows a user one (a cloned repository must not take an
	// installed extension's place): native's project "a" loses to native's user "a" and is
	// marked as a conflict; otherwise priority and scan order decide.
	want := "a:native-project<native-user|a:native-user|a:gemini-user<native-user|b:gemini-user|a:gemini-project<native-user|b:gemini-project<gemini-user"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if n := len(d.Effective()); n != 2 {
		t.Errorf("effective = %d", n)
	}
	for _, x := range d.All {
		if x.Conflict != (x.Level == LevelProject) {
			t.Errorf("%s %s: conflict = %v", x.Name, x.Version, x.Conflict)
		}
	}
}

func TestDiscoverProvidersAreData(t *testing.T) {
	env := testEnv(t)
	write(t, filepath.Join(env.Home, ".agent/ext/a/gemini-extension.json"), `{"name":"a","version":"third"}`)
	write(t, filepath.Join(env.Home, ".gemini/extensions/a/gemini-extension.json"), `{"name":"a","version":"gemini"}`)
	providers := append([]Provider{{ID: "agent", Name: "Agent", Priority: 80,
		Roots: []RootSpec{{Base: BaseGeminiHome, Path: ".agent/ext", Level: LevelUser}}}}, Providers...)
	d := Discover(env, providers)
	if x := d.Find("a"); x == nil || x.Provider.ID != "agent" {
		t.Fatalf("want the agent provider's a, got %+v", x)
	}
}

func TestDiscoverSameFolderTwice(t *testing.T) {
	env := testEnv(t)
	env.Cwd = env.Home // <cwd>/.gemini/extensions is the user root
	write(t, filepath.Join(env.Home, ".gemini/extensions/a/gemini-extension.json"), `{"name":"a"}`)
	d := Discover(env, Providers)
	if len(d.All) != 1 || d.All[0].Level != LevelUser {
		t.Fatalf("want one user item, got %d", len(d.All))
	}
}

// setupMany creates n extensions under the Gemini user root, a fifth of them installed with
// install metadata, as a real ~/.gemini looks.
func setupMany(b testing.TB, n int) Env {
	env := testEnv(b)
	root := filepath.Join(env.Home, ".gemini/extensions")
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("ext-%04d", i))
		write(b, filepath.Join(dir, "gemini-extension.json"), fmt.Sprintf(`{
  "name": "ext-%04d",
  "version": "1.%d.0",
  "description": "Extension number %d, with an MCP server and a command",
  "mcpServers": {"srv": {"command": "node", "args": ["${extensionPath}/dist/server.js"], "env": {"A": "b"}}},
  "contextFileName": "GEMINI.md",
  "commands": {"c%d": {"type": "executable", "binary": "${extensionPath}/bin/${platform}/${arch}/c"}}
}`, i, i, i, i))
		if i%5 == 0 {
			write(b, filepath.Join(dir, InstallMetadataFile), `{"source": "https://github.com/o/r", "type": "git"}`)
		}
	}
	return env
}

func TestDiscoverMany(t *testing.T) {
	env := setupMany(t, 300)
	d := Discover(env, Providers)
	if len(d.All) != 300 || d.All[299].Name != "ext-0299" || d.All[0].Install() == nil || d.All[1].Install() != nil {
		t.Fatalf("got %d items", len(d.All))
	}
}

// BenchmarkDiscover1000 discovers 1,000 extensions (budget: under 10 ms), with
// the discovery index warm (the usual case) and without it (first run, or no $GEM_HOME).
func BenchmarkDiscover1000(b *testing.B) {
	defer setRacyWindow(0)()
	env := setupMany(b, 1000)
	Discover(env, Providers) // writes the index
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			if d := Discover(env, Providers); len(d.All) != 1000 {
				b.Fatal(len(d.All))
			}
		}
	})
	b.Run("noindex", func(b *testing.B) {
		env := env
		env.GemHome = "/proc/gem-cannot-write-here"
		for b.Loop() {
			if d := Discover(env, Providers); len(d.All) != 1000 {
				b.Fatal(len(d.All))
			}
		}
	})
}

// mixFormats turns every third extension of setupMany's into a Claude Code plugin (its
// plugin.json, .mcp.json and no gemini-extension.json).
func mixFormats(b testing.TB, env Env, n int) {
	root := filepath.Join(env.Home, ".gemini/extensions")
	for i := 0; i < n; i += 3 {
		dir := filepath.Join(root, fmt.Sprintf("ext-%04d", i))
		os.Remove(filepath.Join(dir, "gemini-extension.json"))
		write(b, filepath.Join(dir, ".claude-plugin", "plugin.json"), fmt.Sprintf(`{"name": "ext-%04d", "version": "1.%d.0", "description": "Plugin number %d"}`, i, i, i))
		write(b, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/server"}}}`)
	}
}

// TestDiscoverMixedFormats: a Claude Code plugin is found beside Gemini extensions, in its
// format, with its head (name, version, description) and no executable commands.
func TestDiscoverMixedFormats(t *testing.T) {
	env := setupMany(t, 6)
	mixFormats(t, env, 6)
	d := Discover(env, Providers)
	if len(d.All) != 6 {
		t.Fatalf("found %d", len(d.All))
	}
	for i, x := range d.All {
		want := "gemini"
		if i%3 == 0 {
			want = "claude"
		}
		if x.Format.ID != want || x.Name != fmt.Sprintf("ext-%04d", i) || (want == "claude" && (x.Version != fmt.Sprintf("1.%d.0", i) || len(x.CommandNames) > 0)) {
			t.Errorf("%d: %s %s %s %v", i, x.Format.ID, x.Name, x.Version, x.CommandNames)
		}
	}
	if m := d.All[0].Manifest(); len(m.MCPServers) != 1 || m.MCPServers[0].Command != "${extensionPath}/server" {
		t.Errorf("the plugin's manifest: %+v", m.MCPServers)
	}
}

// BenchmarkDiscover1000Mixed: 1,000 extensions, a third of them Claude Code plugins, against
// 1,000 Gemini extensions in the same run (mixed-ratio: the target is about 1).
func BenchmarkDiscover1000Mixed(b *testing.B) {
	defer setRacyWindow(0)()
	gemini := setupMany(b, 1000)
	mixed := setupMany(b, 1000)
	mixFormats(b, mixed, 1000)
	Discover(gemini, Providers)
	Discover(mixed, Providers)
	var tg, tm time.Duration
	for b.Loop() {
		t0 := time.Now()
		if d := Discover(gemini, Providers); len(d.All) != 1000 {
			b.Fatal(len(d.All))
		}
		t1 := time.Now()
		if d := Discover(mixed, Providers); len(d.All) != 1000 {
			b.Fatal(len(d.All))
		}
		tg, tm = tg+t1.Sub(t0), tm+time.Since(t1)
	}
	b.ReportMetric(float64(tm)/float64(tg), "mixed-ratio")
}

func setRacyWindow(d time.Duration) (restore func()) {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}

func TestDiscoveryIndex(t *testing.T) {
	defer setRacyWindow(0)()
	env := testEnv(t)
	root := filepath.Join(env.Home, ".gemini/extensions")
	write(t, filepath.Join(root, "a/gemini-extension.json"), `{"name":"a","version":"1.0.0"}`)
	write(t, filepath.Join(root, "b/gemini-extension.json"), `{"name":"b","version":"1.0.0"}`)
	names := func() string {
		d := Discover(env, Providers)
		var s []string
		for _, x := range d.All {
			s = append(s, x.Name+"@"+x.Version)
		}
		return strings.Join(s, ",")
	}
	if got := names(); got != "a@1.0.0,b@1.0.0" {
		t.Fatalf("first: %s", got)
	}
	ixPath := indexPath(env, root)
	if _, err := os.Stat(ixPath); err != nil {
		t.Fatalf("index not written: %v", err)
	}
	if got := names(); got != "a@1.0.0,b@1.0.0" {
		t.Fatalf("from index: %s", got)
	}
	// same size, mtime put back: the change time still tells
	p := filepath.Join(root, "a/gemini-extension.json")
	fi, _ := os.Stat(p)
	write(t, p, `{"name":"a","version":"9.0.0"}`)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	// a new child, a removed child, a child turned invalid
	write(t, filepath.Join(root, "c/gemini-extension.json"), `{"name":"c","version":"1.0.0"}`)
	write(t, filepath.Join(root, "b/gemini-extension.json"), `{"name":"b",`)
	if got := names(); got != "a@9.0.0,c@1.0.0" {
		t.Fatalf("after changes: %s", got)
	}
	if d := Discover(env, Providers); len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "Invalid JSON in") {
		t.Fatalf("invalid JSON must warn on every run, got %v", d.Warnings)
	}
	// a corrupt index is ignored and rewritten
	os.WriteFile(ixPath, []byte("gemidx1\n\xff\xff"), 0o600)
	if got := names(); got != "a@9.0.0,c@1.0.0" {
		t.Fatalf("corrupt index: %s", got)
	}
	// racily clean entries are not stored
	racyWindow = time.Hour
	os.Remove(ixPath)
	names()
	if ix := loadRootIndex(ixPath); len(ix.entries) != 0 {
		t.Fatalf("racy entries were cached: %d", len(ix.entries))
	}
}

func TestCommandNamesFromIndex(t *testing.T) {
	defer setRacyWindow(0)()
	env := testEnv(t)
	write(t, filepath.Join(env.Home, ".gemini/extensions/a/gemini-extension.json"),
		`{"name":"a","commands":{"zeta":{"type":"executable","binary":"z"},"alpha":{"type":"executable","binary":"a"}}}`)
	for i := range 2 { // read, then from the index
		d := Discover(env, Providers)
		if got := strings.Join(d.All[0].CommandNames, ","); got != "alpha,zeta" {
			t.Fatalf("run %d: command names %q", i, got)
		}
	}
}
