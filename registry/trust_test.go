package registry

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFolderTrust(t *testing.T) {
	home := t.TempDir()
	env := NewEnv(home, home, func(string) string { return "" })
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(env.TrustedFoldersFile(), []byte(`{"/w/trusted": "TRUST_FOLDER", "/w/trusted/no": "DO_NOT_TRUST", "/p/child": "TRUST_PARENT"}`), 0o644)
	cases := []struct {
		dir  string
		want bool
		rule string
	}{
		{"/w/trusted", true, "/w/trusted"},
		{"/w/trusted/a/b", true, "/w/trusted"},
		{"/w/trusted/no/x", false, "/w/trusted/no"},
		{"/w/trustedx", false, ""},
		{"/w/other", false, ""},
		{"/p/sibling", true, "/p/child"},
		{"/q", false, ""},
	}
	for _, c := range cases {
		got, rule := env.FolderTrust(c.dir)
		if got != c.want || (rule == nil) != (c.rule == "") || (rule != nil && rule.Path != c.rule) {
			t.Errorf("FolderTrust(%s) = %v, %+v; want %v by %q", c.dir, got, rule, c.want, c.rule)
		}
	}
	// Setting and removing a rule round-trips in Gemini CLI's format.
	if err := SetFolderTrust(env, "/q", TrustFolder); err != nil {
		t.Fatal(err)
	}
	if !env.FolderTrusted("/q/r") {
		t.Error("/q/r not trusted after SetFolderTrust(/q)")
	}
	if err := SetFolderTrust(env, "/q", ""); err != nil {
		t.Fatal(err)
	}
	if env.FolderTrusted("/q") {
		t.Error("/q still trusted after removal")
	}
	// A corrupt file trusts nothing.
	os.WriteFile(env.TrustedFoldersFile(), []byte(`{not json`), 0o644)
	if env.FolderTrusted("/w/trusted") {
		t.Error("corrupt trust file trusted a folder")
	}
	if _, err := TrustedFolders(env); err == nil {
		t.Error("corrupt trust file: no error")
	}
}

func TestPlainName(t *testing.T) {
	for name, want := range map[string]bool{"vault": true, "my.ext_2": true, "": false, ".": false, "..": false, "../..": false, "a/b": false, `a\b`: false, "a\x00b": false, "a\nb": false} {
		if PlainName(name) != want {
			t.Errorf("PlainName(%q) = %v", name, !want)
		}
	}
}
