package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

func TestLoad(t *testing.T) {
	cases := []struct {
		name      string
		user      string
		workspace string
		trusted   bool
		check     func(t *testing.T, s *Settings)
	}{
		{"comments and trailing commas", `{
			// the model
			"model": {"name": "m1", "compressionThreshold": 0.5,},
			"tools": {"exclude": ["a"], "core": ["read_file"], "allowed": ["run_shell_command(git)"]},
		}`, "", false, func(t *testing.T, s *Settings) {
			if s.Model != "m1" || s.CompressionThreshold != 0.5 || s.ExcludeTools[0] != "a" || s.CoreTools[0] != "read_file" || s.AllowedTools[0] != "run_shell_command(git)" || len(s.Warnings) > 0 {
				t.Errorf("%+v", s)
			}
		}},
		{"older flat keys", `{"excludeTools": ["x"], "contextFileName": ["AGENTS.md", "GEMINI.md"]}`, "", false, func(t *testing.T, s *Settings) {
			if s.ExcludeTools[0] != "x" || len(s.ContextFiles) != 2 {
				t.Errorf("%+v", s)
			}
		}},
		{"wrong type names the key", `{"model": {"name": 5}}`, "", false, func(t *testing.T, s *Settings) {
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "model.name must be a string, not a number: skipped") {
				t.Errorf("%v", s.Warnings)
			}
		}},
		{"a wrong key leaves the rest", `{"model": {"name": 5}, "tools": {"exclude": "run_shell_command", "core": ["read_file"]},
			"mcpServers": {"db": {"command": "db-server"}}, "security": {"disableYoloMode": true}}`, "", false, func(t *testing.T, s *Settings) {
			if len(s.Warnings) != 2 || !strings.Contains(strings.Join(s.Warnings, "\n"), "tools.exclude must be a list of strings, not a string: skipped") {
				t.Errorf("%v", s.Warnings)
			}
			if !s.NoYolo || len(s.CoreTools) != 1 || s.Model != "" || len(s.servers) != 1 {
				t.Errorf("the rest did not apply: %+v", s)
			}
		}},
		{"threshold out of range", `{"model": {"compressionThreshold": 7}}`, "", false, func(t *testing.T, s *Settings) {
			if s.CompressionThreshold != 0 || len(s.Warnings) != 1 {
				t.Errorf("%v %v", s.CompressionThreshold, s.Warnings)
			}
		}},
		{"untrusted workspace is skipped", `{"model": {"name": "user"}}`, `{"model": {"name": "project"}, "hooks": {"BeforeTool": []}}`, false, func(t *testing.T, s *Settings) {
			if s.Model != "user" || len(s.Hooks) != 0 {
				t.Errorf("%+v", s)
			}
		}},
		{"trusted workspace wins, hooks of both", `{"model": {"name": "user"}, "hooks": {"SessionStart": [{"hooks": [{"command": "a"}]}]}}`,
			`{"model": {"name": "project"}, "hooks": {"BeforeTool": [{"hooks": [{"command": "b"}]}]}, "skills": {"disabled": ["pdf"]}}`, true, func(t *testing.T, s *Settings) {
				if s.Model != "project" || len(s.Hooks) != 2 || s.Hooks[1].Scope != "workspace" || s.DisabledSkills[0] != "pdf" || !s.FromWorkspace("model.name") {
					t.Errorf("%+v", s)
				}
			}},
		{"hooksConfig and the older layout", `{"hooks": {"enabled": false, "disabled": ["x"], "BeforeTool": []}, "hooksConfig": {"disabled": ["y"]}}`, "", false, func(t *testing.T, s *Settings) {
			if !s.HooksOff || strings.Join(s.DisabledHooks, ",") != "x" && strings.Join(s.DisabledHooks, ",") != "y" {
				t.Errorf("%+v", s)
			}
		}},
		{"security and experimental", `{"security": {"disableYoloMode": true}, "experimental": {"enableAgents": false}}`, "", false, func(t *testing.T, s *Settings) {
			if !s.NoYolo || !s.AgentsOff {
				t.Errorf("%+v", s)
			}
		}},
		{"signatures: a project may require them, never widen trust", `{"security": {"sigstoreTrustedRoot": "root.json",
			"trustedSigners": [{"source": "^https://github.com/acme/", "issuer": "https://token.actions.githubusercontent.com", "identityRegexp": "^https://github.com/acme/"}]}}`,
			`{"security": {"requireSignatures": true, "sigstoreTrustedRoot": "/evil/root.json", "trustedSigners": [{"issuer": "x", "identityRegexp": ".*"}]}}`, true, func(t *testing.T, s *Settings) {
				if !s.RequireSignatures || len(s.TrustedSigners) != 1 || s.TrustedSigners[0].Source != "^https://github.com/acme/" || !strings.HasSuffix(s.TrustedSigners[0].Origin, "settings.json") {
					t.Errorf("%+v", s)
				}
				if !filepath.IsAbs(s.SigstoreTrustedRoot) || filepath.Base(s.SigstoreTrustedRoot) != "root.json" || strings.HasPrefix(s.SigstoreTrustedRoot, "/evil") {
					t.Errorf("trusted root %q: the user's, relative to their settings file", s.SigstoreTrustedRoot)
				}
				if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[0], "ignored in a project's settings") {
					t.Errorf("%v", s.Warnings)
				}
			}},
		{"extensions.mirrors: relative to the file; a project's ignored", `{"extensions": {"mirrors": [{"location": "mirror.tar", "include": ["https://github.com/acme/**"]}, {"location": "oci://127.0.0.1:5000/m"}]}}`,
			`{"extensions": {"mirrors": [{"location": "oci://evil.example/m"}]}}`, true, func(t *testing.T, s *Settings) {
				if len(s.Mirrors) != 2 || !filepath.IsAbs(s.Mirrors[0].Location) || s.Mirrors[0].Include[0] != "https://github.com/acme/**" || s.Mirrors[1].Location != "oci://127.0.0.1:5000/m" {
					t.Errorf("%+v", s.Mirrors)
				}
				if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "extensions.mirrors is ignored in a project's settings") {
					t.Errorf("%v", s.Warnings)
				}
			}},
		{"requireSignatures: a later false does not turn it off", `{"security": {"requireSignatures": true}}`, `{"security": {"requireSignatures": false}}`, true, func(t *testing.T, s *Settings) {
			if !s.RequireSignatures {
				t.Errorf("%+v", s)
			}
		}},
		{"context file names are plain names", `{"context": {"fileName": ["../.bashrc", "/etc/x", "NOTES.md"]}}`, "", false, func(t *testing.T, s *Settings) {
			if len(s.ContextFiles) != 1 || s.ContextFiles[0] != "NOTES.md" || len(s.Warnings) != 2 || !strings.Contains(s.Warnings[0], "not a plain file name") {
				t.Errorf("%v %v", s.ContextFiles, s.Warnings)
			}
		}},
		{"checkpointing: general's, and the older top-level key", `{"checkpointing": {"enabled": true}}`, `{"general": {"checkpointing": {"enabled": false}}}`, true, func(t *testing.T, s *Settings) {
			if s.Checkpointing || s.Origin["general.checkpointing.enabled"] == "" {
				t.Errorf("the project's general.checkpointing.enabled false did not win: %+v", s)
			}
		}},
		{"checkpointing.enabled", `{"checkpointing": {"enabled": true}}`, "", false, func(t *testing.T, s *Settings) {
			if !s.Checkpointing {
				t.Errorf("%+v", s)
			}
		}},
		{"not JSON", `{"model": `, "", false, func(t *testing.T, s *Settings) {
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "is not valid JSON") {
				t.Errorf("%v", s.Warnings)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := registrytest.Env(t, nil)
			os.MkdirAll(filepath.Join(env.GeminiHome, ".gemini"), 0o755)
			os.WriteFile(UserFile(env), []byte(c.user), 0o644)
			if c.workspace != "" {
				os.MkdirAll(filepath.Join(env.Cwd, ".gemini"), 0o755)
				os.WriteFile(filepath.Join(env.Cwd, ".gemini", "settings.json"), []byte(c.workspace), 0o644)
			}
			if c.trusted {
				if err := registry.SetFolderTrust(env, env.Cwd, registry.TrustFolder); err != nil {
					t.Fatal(err)
				}
			}
			c.check(t, Load(env, env.Cwd))
		})
	}
}

// TestSetList: the list is set with the file's comments and other keys kept; the file and
// the object are made when missing; a broken file is left alone.
func TestSetList(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := SetList(path, "skills", "disabled", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("{\n  // keep me\n  \"model\": {\"name\": \"m\"},\n  \"skills\": {\"other\": 1}\n}\n"), 0o600)
	os.Chmod(path, 0o600)
	if err := SetList(path, "skills", "disabled", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"// keep me", `"name": "m"`, `"other": 1`, `"disabled": ["a", "b"]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lacks %q:\n%s", want, data)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	os.WriteFile(path, []byte("{broken"), 0o644)
	if err := SetList(path, "skills", "disabled", nil); err == nil {
		t.Error("a broken file must be refused")
	}
	if data, _ := os.ReadFile(path); string(data) != "{broken" {
		t.Errorf("the broken file was changed: %s", data)
	}
}

// FuzzMerge: no settings file makes the reader panic; what it reads is well-formed.
func FuzzMerge(f *testing.F) {
	for _, seed := range []string{`{}`, `{"model": {"name": "m"}}`, `{"hooks": {"enabled": false, "BeforeTool": [{"hooks": []}]}}`,
		`{"mcpServers": {"s": {"command": "x", "trust": true}}}`, `{"context": {"fileName": ["A.md"]}}`, `// c` + "\n" + `{"tools": {"exclude": ["a(b)"],},}`,
		`{"skills": {"disabled": null}}`, `{"model": {"compressionThreshold": -1}}`, `[]`, `"x"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Settings{Origin: map[string]string{}}
		s.merge(File{Scope: "user", Path: "settings.json"}, data, map[string]bool{}, func(string) string { return "x" })
		for _, h := range s.Hooks {
			if h.Events == nil {
				t.Fatal("hooks without events")
			}
		}
	})
}

// TestSettingsServersFolder: the user's own MCP servers run as the extension "settings",
// whose folder (readable to its programs) is a data folder of gem's, not ~/.gemini with the
// user's credentials; they may change the workspace (the user wrote them).
func TestSettingsServersFolder(t *testing.T) {
	env := registrytest.Env(t, nil)
	os.MkdirAll(filepath.Join(env.GeminiHome, ".gemini"), 0o755)
	os.WriteFile(UserFile(env), []byte(`{"mcpServers": {"mine": {"command": "/bin/true"}}}`), 0o644)
	x := Load(env, env.Cwd).Extension(env)
	if x == nil {
		t.Fatal("no settings extension")
	}
	if strings.HasPrefix(x.Path, filepath.Join(env.GeminiHome, ".gemini")) || !strings.HasPrefix(x.Path, env.GemHome) {
		t.Errorf("the servers' folder is %s", x.Path)
	}
	if sb := x.Manifest().Sandbox; sb == nil || !sb.Network || len(sb.Write) != 1 || sb.Write[0] != "${workspacePath}" {
		t.Errorf("sandbox: %+v", sb)
	}
}

// TestAddServers: servers a program adds join the settings extension; one that takes the name
// of a server the user trusts does not inherit that trust, and a broken entry is a warning.
func TestAddServers(t *testing.T) {
	env := registrytest.Env(t, nil)
	os.MkdirAll(filepath.Join(env.GeminiHome, ".gemini"), 0o755)
	os.WriteFile(UserFile(env), []byte(`{"mcpServers": {"mine": {"command": "/bin/true", "trust": true}, "other": {"command": "/bin/true", "trust": true}}}`), 0o644)
	s := Load(env, env.Cwd)
	if strings.Join(s.TrustedServers, ",") != "mine,other" {
		t.Fatalf("trusted: %v", s.TrustedServers)
	}
	s.AddServers(map[string]json.RawMessage{"mine": json.RawMessage(`{"command": "/bin/false"}`), "added": json.RawMessage(`{"httpUrl": "http://127.0.0.1:1/mcp"}`)}, "an ACP client")
	if strings.Join(s.TrustedServers, ",") != "other" {
		t.Errorf("trusted after adding: %v, want other alone", s.TrustedServers)
	}
	x := s.Extension(env)
	if x == nil || len(x.Manifest().MCPServers) != 3 || s.Origin["mcpServers.added"] != "an ACP client" {
		t.Fatalf("the extension: %+v, origin %v", x, s.Origin)
	}
	for _, srv := range x.Manifest().MCPServers {
		if srv.Name == "mine" && srv.Command != "/bin/false" {
			t.Errorf("mine is still the user's: %+v", srv)
		}
	}
}
