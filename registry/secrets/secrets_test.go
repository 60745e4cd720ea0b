package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
)

func TestSecrets(t *testing.T) {
	home := t.TempDir()
	env := registry.NewEnv(home, home, func(string) string { return "" })
	if err := Write(env, "vault", map[string]string{"VAULT_TOKEN": "s3cr3t"}); err != nil {
		t.Fatal(err)
	}
	if err := Write(env, "other", map[string]string{"KEY": "x"}); err != nil {
		t.Fatal(err)
	}
	enc := func(name string) string { return filepath.Join(env.SecretsDir(), name+".enc") }
	data, _ := os.ReadFile(enc("vault"))
	if strings.Contains(string(data), "s3cr3t") {
		t.Fatal("the secret is in the file in clear")
	}
	cases := []struct {
		name    string
		prepare func()
		want    string // a value of VAULT_TOKEN, or "error: <text>"
	}{
		{"round trip", func() {}, "s3cr3t"},
		{"none set", func() { os.Remove(enc("none")) }, ""},
		{"another extension's file copied in", func() {
			d, _ := os.ReadFile(enc("other"))
			os.WriteFile(enc("vault"), d, 0o600)
		}, "error: cannot decrypt the secrets of vault"},
		{"truncated", func() { os.WriteFile(enc("vault"), []byte("abc"), 0o600) }, "error: is damaged"},
		{"key gone", func() {
			Write(env, "vault", map[string]string{"VAULT_TOKEN": "s3cr3t"})
			os.Remove(filepath.Join(env.SecretsDir(), "key"))
		}, "error: cannot read the secrets key"},
	}
	for _, c := range cases {
		c.prepare()
		name := "vault"
		if c.name == "none set" {
			name = "none"
		}
		got, err := Read(env, name)
		switch {
		case strings.HasPrefix(c.want, "error: "):
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(c.want, "error: ")) {
				t.Errorf("%s: got %v, %v; want %s", c.name, got, err, c.want)
			}
		case err != nil || got["VAULT_TOKEN"] != c.want:
			t.Errorf("%s: got %v, %v; want %q", c.name, got, err, c.want)
		}
	}
	// An empty map removes the file; a name that is not a plain folder name is refused.
	if err := Write(env, "other", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(enc("other")); !os.IsNotExist(err) {
		t.Errorf("empty settings left %s", enc("other"))
	}
	for _, bad := range []string{"../x", "", ".."} {
		if err := Write(env, bad, map[string]string{"A": "b"}); err == nil {
			t.Errorf("Write(%q) accepted", bad)
		}
		if _, err := Read(env, bad); err == nil {
			t.Errorf("Read(%q) accepted", bad)
		}
	}
}
