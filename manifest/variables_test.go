package manifest

import (
	"reflect"
	"testing"
)

func TestExpand(t *testing.T) {
	vars := Vars{ExtensionPath: "/ext", WorkspacePath: "/ws", ExtensionData: "/gem/data/x", PathSeparator: "/", Platform: Platform{OS: "linux", Arch: "x64"}}
	settings := func(n string) (string, bool) {
		if n == "API_KEY" {
			return "from-settings", true
		}
		return "", false
	}
	env := func(n string) (string, bool) {
		switch n {
		case "API_KEY":
			return "from-env", true
		case "HOME":
			return "/home/u", true
		case "EMPTY":
			return "", true
		}
		return "", false
	}
	e := Expander{Vars: vars, Lookups: []Lookup{settings, env}}
	tests := []struct{ in, want string }{
		{"${extensionPath}/bin/${platform}/${arch}/x", "/ext/bin/linux/x64/x"},
		{"${extensionPath}${/}x", "/ext/x"},
		{"${extensionPath}${pathSeparator}x", "/ext/x"},
		{"${workspacePath}", "/ws"},
		{"${extensionData}/notes.json", "/gem/data/x/notes.json"},
		{"${unknownVar}", "${unknownVar}"},
		{"$API_KEY", "from-settings"},
		{"${API_KEY}", "from-settings"},
		{"$HOME/x", "/home/u/x"},
		{"${NOPE:-fallback}", "fallback"},
		{"${HOME:-fallback}", "/home/u"},
		{"$NOPE", "$NOPE"},
		{"${NOPE}", "${NOPE}"},
		{"$", "$"},
		{"a$1b", "a$1b"},
		{"${unterminated", "${unterminated"},
		{"${EMPTY}x", "x"},
		{"price $5", "price $5"},
		{"日本 ${extensionPath}", "日本 /ext"},
	}
	for _, tt := range tests {
		if got := e.Expand(tt.in); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlatforms(t *testing.T) {
	tests := []struct {
		goos, goarch string
		want         []Platform
	}{
		{"linux", "amd64", []Platform{{"linux", "x64", "node"}, {"linux", "amd64", "go"}}},
		{"darwin", "arm64", []Platform{{"darwin", "arm64", "node"}}},
		{"windows", "386", []Platform{{"win32", "ia32", "node"}, {"windows", "386", "go"}}},
	}
	for _, tt := range tests {
		got := PlatformsFor(tt.goos, tt.goarch)
		if len(got) != len(tt.want) {
			t.Fatalf("%s/%s: %v", tt.goos, tt.goarch, got)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s/%s[%d] = %v, want %v", tt.goos, tt.goarch, i, got[i], tt.want[i])
			}
		}
	}
	env := map[string]string{"GEM_PLATFORM": "win32", "GEM_ARCH": "x64"}
	got := HostPlatforms(func(k string) string { return env[k] })
	if got[0] != (Platform{"win32", "x64", "node"}) || got[1] != (Platform{"windows", "amd64", "go"}) {
		t.Errorf("override: %v", got)
	}
}

func TestResolvedAppliesToEveryProgramString(t *testing.T) {
	m, _, err := Parse([]byte(`{"name":"n","commands":{"c":{"type":"executable","binary":"${extensionPath}/c","env":{"X":"${workspacePath}"}}},
	  "plugins":{"p":{"binary":"${extensionPath}/p","sandbox":{"write":["${workspacePath}/out"]}}},
	  "mcpServers":{"s":{"command":"${extensionPath}/s","args":["$HOME"],"cwd":"${extensionPath}","env":{"A":"${extensionPath}"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	home := func(n string) (string, bool) { return "/h", n == "HOME" }
	r := m.Resolved(Expander{Vars: Vars{ExtensionPath: "/e", WorkspacePath: "/w"}, Lookups: []Lookup{home}})
	checks := map[string]string{
		r.Commands[0].Binary: "/e/c", r.Commands[0].Env[0].Value: "/w", r.Plugins[0].Binary: "/e/p",
		r.Plugins[0].Sandbox.Write[0]: "/w/out", r.MCPServers[0].Command: "/e/s", r.MCPServers[0].Args[0]: "/h",
		r.MCPServers[0].Cwd: "/e", r.MCPServers[0].Env[0].Value: "/e",
	}
	for got, want := range checks {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if m.Commands[0].Binary != "${extensionPath}/c" {
		t.Errorf("Resolved changed the original: %q", m.Commands[0].Binary)
	}
}

func TestMask(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"TOKEN", "sk-live-1234", "****"},
		{"TOKEN", "${GEMINI_API_KEY}", "${GEMINI_API_KEY}"},
		{"AUTH", "Bearer $GITHUB_TOKEN", "****$GITHUB_TOKEN"},
		{"API_KEY", "sk-${X}-tail", "****${X}****"},
		{"API_KEY", "${not a name}", "****"},
		{"URL", "https://x/${HOST}", "https://x/${HOST}"},
		{"TOKEN", "", ""},
	} {
		if got := Mask(tt.name, tt.value); got != tt.want {
			t.Errorf("Mask(%s, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}

func TestVarUses(t *testing.T) {
	got := VarUses(`{"name": "n", "mcpServers": {"s": {"command": "x", "args": ["--t", "$GITHUB_TOKEN"],
	  "env": {"TOKEN": "${GEMINI_API_KEY}", "GH": "${GITHUB_TOKEN}"}}},
	  "commands": {"c": {"type": "executable", "binary": "${extensionPath}/c", "env": {"K": "${GEMINI_API_KEY}"}}}}`)
	want := []VarUse{
		{Name: "GEMINI_API_KEY", Fields: []string{"commands.c.env.K", "mcpServers.s.env.TOKEN"}},
		{Name: "GITHUB_TOKEN", Fields: []string{"mcpServers.s.args[1]", "mcpServers.s.env.GH"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("VarUses = %+v, want %+v", got, want)
	}
	if got := VarUses(`not json $X`); len(got) != 1 || got[0].Name != "X" || got[0].Fields[0] != "the manifest" {
		t.Errorf("not JSON: %+v", got)
	}
}
