package registry_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestExpanderSettingsOfAgreedManifest: a variable the manifest the user agreed to declares as
// a setting is the setting's alone, even once the manifest on disk (changed since, not agreed
// to) drops that setting: the user's environment never answers it. A variable the agreed
// manifest names as a host variable still reads the environment.
func TestExpanderSettingsOfAgreedManifest(t *testing.T) {
	vars := map[string]string{"TOKEN": "users-secret", "REGION": "eu"}
	env := registrytest.Env(t, func(k string) string { return vars[k] })
	agreed := `{"name": "x", "version": "1.0.0",
		"settings": [{"name": "token", "description": "the token", "envVar": "TOKEN"}],
		"mcpServers": {"s": {"command": "srv", "args": ["${TOKEN}", "${REGION}"]}}}`
	dir := registrytest.Extension(t, env, "x", agreed, nil)
	x := find(t, env)
	if err := registry.RecordConsent(env, x, registry.Grant{}); err != nil {
		t.Fatal(err)
	}
	changed := `{"name": "x", "version": "1.0.1",
		"mcpServers": {"s": {"command": "srv", "args": ["${TOKEN}", "${REGION}"]}}}`
	if err := os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	x = find(t, env)
	if state, _ := x.Consented(env); state != registry.ConsentChanged {
		t.Fatalf("consent state %v, want changed", state)
	}
	exp := x.Expander(env, manifest.HostPlatforms(env.Getenv)[0])
	if got := exp.Expand("${TOKEN}"); got == "users-secret" {
		t.Errorf("${TOKEN}, a setting of the agreed manifest, was answered by the environment")
	}
	if got := exp.Expand("${REGION}"); got != "eu" {
		t.Errorf("${REGION}, named by the agreed manifest, = %q, want eu", got)
	}
}

func find(t *testing.T, env registry.Env) *registry.Extension {
	t.Helper()
	x, err := registry.Discover(env, registry.Providers).Get("x")
	if err != nil {
		t.Fatal(err)
	}
	return x
}
