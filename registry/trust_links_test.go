package registry_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestFolderTrustLinks: trust is decided on the folders paths really are, the folder asked
// about and the rules' folders alike.
func TestFolderTrustLinks(t *testing.T) {
	env := registrytest.Env(t, nil)
	w := testhome.Dir(t, "trust-")
	for _, d := range []string{"proj", "clone/sub", "other", "twice"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"proj/vendor": "../clone", // inside a trusted project, to an untrusted clone
		"plink":       "proj",     // to a trusted project
		"olink":       "other",    // the rule below is written through it
		"tlink":       "twice",    // one folder, two rules: distrust wins
	} {
		if err := os.Symlink(target, filepath.Join(w, link)); err != nil {
			t.Fatal(err)
		}
	}
	rules := map[string]registry.TrustLevel{
		filepath.Join(w, "proj"):  registry.TrustFolder,
		filepath.Join(w, "olink"): registry.TrustFolder,
		filepath.Join(w, "twice"): registry.TrustFolder,
		filepath.Join(w, "tlink"): registry.DoNotTrust,
	}
	data, _ := json.Marshal(rules)
	os.MkdirAll(filepath.Dir(env.TrustedFoldersFile()), 0o755)
	if err := os.WriteFile(env.TrustedFoldersFile(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		want bool
		rule string
	}{
		{"proj", true, "proj"},
		{"proj/vendor", false, ""},
		{"proj/vendor/sub", false, ""},
		{"clone", false, ""},
		{"plink", true, "proj"},
		{"other", true, "olink"},
		{"olink", true, "olink"},
		{"twice", false, "tlink"},
		{"tlink", false, "tlink"},
	} {
		got, rule := env.FolderTrust(filepath.Join(w, c.dir))
		if got != c.want || (rule == nil) != (c.rule == "") || (rule != nil && rule.Path != filepath.Join(w, c.rule)) {
			t.Errorf("FolderTrust(%s) = %v, %+v; want %v by %q", c.dir, got, rule, c.want, c.rule)
		}
	}
	// A rule is recorded by the real folder, replacing another spelling's.
	if err := registry.SetFolderTrust(env, filepath.Join(w, "olink"), registry.DoNotTrust); err != nil {
		t.Fatal(err)
	}
	got, _ := registry.TrustedFolders(env)
	if _, ok := got[filepath.Join(w, "olink")]; ok || got[filepath.Join(w, "other")] != registry.DoNotTrust {
		t.Errorf("SetFolderTrust through a link: %v", got)
	}
}

// TestEnvCwdReal: the current directory enters gem resolved, so a link's spelling in $PWD
// decides nothing downstream.
func TestEnvCwdReal(t *testing.T) {
	w := testhome.Dir(t, "cwd-")
	os.MkdirAll(filepath.Join(w, "real"), 0o755)
	os.Symlink("real", filepath.Join(w, "link"))
	env := registry.NewEnv(w, filepath.Join(w, "link"), nil)
	if want, _ := filepath.EvalSymlinks(filepath.Join(w, "real")); env.Cwd != want {
		t.Errorf("Cwd = %s, want %s", env.Cwd, want)
	}
}
