// Package testhome makes hermetic folders for tests (registry/registrytest builds
// environments in them). They live under the user's cache folder
// ($(os.UserCacheDir)/gem-testwork), never under /tmp or /var/tmp: the sandbox lets every
// program write those, so a test there could pass for the wrong reason. Nor inside the
// repository, whose .git would make it every test's workspace.
package testhome

import (
	"os"
	"path/filepath"
	"testing"
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

// Binary reads a built test binary, for Extension's files.
func Binary(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
