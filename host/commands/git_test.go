package commands

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

// TestHooksFolders: where core.hooksPath leads, from a workspace inside a repository: a
// relative path from the work tree's top, ~/ from the home, husky's .husky/_ with .husky.
func TestHooksFolders(t *testing.T) {
	top := testhome.Dir(t, "hooks-")
	top, _ = filepath.EvalSymlinks(top)
	os.MkdirAll(filepath.Join(top, ".git"), 0o755)
	ws := filepath.Join(top, "pkg", "app")
	os.MkdirAll(ws, 0o755)
	for _, c := range []struct {
		value string
		want  []string
	}{
		{".githooks", []string{filepath.Join(top, ".githooks")}},
		{".husky/_", []string{filepath.Join(top, ".husky/_"), filepath.Join(top, ".husky")}},
		{"~/hooks", []string{"/home/u/hooks"}},
		{"/srv/hooks", []string{"/srv/hooks"}},
	} {
		if got := hooksFolders(c.value, ws, "/home/u"); !slices.Equal(got, c.want) {
			t.Errorf("hooksFolders(%q) = %v, want %v", c.value, got, c.want)
		}
	}
}
