// Package registrytest makes hermetic registry environments for tests: a fresh home from
// internal/testhome with its project folder, and extensions written into it. It lives in
// the registry layer, beside what it builds (internal/ holds leaves only), and is linked by
// tests only.
package registrytest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
)

// Env is a hermetic environment: a fresh home (testhome.Dir) whose project folder "proj"
// is the working folder (a workspace is never the home itself), with getenv (nil: no
// variables).
func Env(t testing.TB, getenv func(string) string) registry.Env {
	t.Helper()
	home := testhome.Dir(t, "home-")
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return registry.NewEnv(home, proj, getenv)
}

// Extension writes a user extension named name into env's ~/.gemini/extensions: its
// manifest and files (relative path → content; files under bin/ are executable). It returns
// the extension's folder.
func Extension(t testing.TB, env registry.Env, name, manifest string, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(env.GeminiExtensionsDir(), name)
	write := func(rel string, data []byte) {
		path := filepath.Join(dir, rel)
		mode := os.FileMode(0o644)
		if strings.HasPrefix(rel, "bin/") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("gemini-extension.json", []byte(manifest))
	for rel, data := range files {
		write(rel, data)
	}
	return dir
}
