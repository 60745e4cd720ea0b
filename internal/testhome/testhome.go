// Package testhome makes hermetic homes for tests. They live under the user's cache folder
// ($(os.UserCacheDir)/gem-testwork), never under /tmp or /var/tmp: the sandbox lets every
// program write those, so a test there could pass for the wrong reason. Nor inside the
// repository, whose .git would make it every test's workspace.
package testhome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
)

// Dir is a fresh folder outside /tmp, removed when the test ends; prefix names it.
func Dir(t testing.TB, prefix string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = "/var/cache" // no HOME: a system cache folder, still outside /tmp
	}
	base := filepath.Join(cache, "gem-testwork")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Env is a hermetic environment: a fresh home (Dir) whose project folder "proj" is the
// working folder (a workspace is never the home itself), with getenv (nil: no variables).
func Env(t testing.TB, getenv func(string) string) registry.Env {
	t.Helper()
	home := Dir(t, "home-")
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

// Binary reads a built test binary, for Extension's files.
func Binary(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
