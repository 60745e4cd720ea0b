package registry_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestBlockGitExtensions: with security.blockGitExtensions set (by the user's file, or the
// system file over it), extensions installed from git or a GitHub release are blocked, the
// others not; a later file's false turns it off again, as settings merge.
func TestBlockGitExtensions(t *testing.T) {
	for _, tc := range []struct {
		name, user, system string
		blocked            bool
	}{
		{"unset", ``, ``, false},
		{"the user's file", "{\"security\": {\"blockGitExtensions\": true}} // JSONC\n", ``, true},
		{"the system file", ``, `{"security": {"blockGitExtensions": true,}}`, true},
		{"the system file turns it off", `{"security": {"blockGitExtensions": true}}`, `{"security": {"blockGitExtensions": false}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			system := filepath.Join(t.TempDir(), "system.json")
			env := registrytest.Env(t, func(k string) string {
				if k == "GEMINI_CLI_SYSTEM_SETTINGS_PATH" {
					return system
				}
				return ""
			})
			root := env.GeminiExtensionsDir()
			for name, typ := range map[string]string{"fromgit": "git", "release": "github-release", "folder": "local"} {
				dir := filepath.Join(root, name)
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name": "`+name+`", "version": "1.0.0"}`), 0o644)
				os.WriteFile(filepath.Join(dir, registry.InstallMetadataFile), []byte(`{"source": "x", "type": "`+typ+`"}`), 0o644)
			}
			os.MkdirAll(filepath.Dir(env.GeminiSettingsFile()), 0o755)
			os.WriteFile(env.GeminiSettingsFile(), []byte(tc.user), 0o644)
			os.WriteFile(system, []byte(tc.system), 0o644)
			d := registry.Discover(env, registry.Providers)
			for _, x := range d.All {
				want := registry.BlockNone
				if tc.blocked && x.Name != "folder" {
					want = registry.BlockSettings
				}
				if x.Blocked != want {
					t.Errorf("%s: blocked %q, want %q", x.Name, x.Blocked, want)
				}
			}
			if len(d.All) != 3 {
				t.Fatalf("found %d", len(d.All))
			}
		})
	}
}
