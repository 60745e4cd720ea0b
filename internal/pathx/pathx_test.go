package pathx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		root, path string
		want       bool
	}{
		{"/a", "/a", true}, {"/a", "/a/b", true}, {"/a/", "/a/b", true}, {"/", "/x", true},
		{"/a", "/ab", false}, {"/a", "/", false}, {"/a/b", "/a", false}, {"/a", "/a/../b", false},
		{"/a", "/a/b/../c", true}, {"a", "a/b", true},
	} {
		if got := Within(c.root, c.path); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.root, c.path, got)
		}
	}
}

// TestReal: a path is resolved as the kernel walks it: links in order, ".." after a link
// from where the link leads, the part that does not exist taken as written.
func TestReal(t *testing.T) {
	dir := testhome.Dir(t, "roots-")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "a/b/c"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "secret"), 0o755))
	must(os.Symlink(filepath.Join(dir, "secret"), filepath.Join(dir, "a/abs")))
	must(os.Symlink("b/c", filepath.Join(dir, "a/rel")))
	must(os.Symlink("loop", filepath.Join(dir, "a/loop")))
	for _, tc := range []struct{ in, want string }{
		{"a/b/c", "a/b/c"},
		{"a/b/../b/c", "a/b/c"},
		{"a/abs", "secret"},
		{"a/abs/x/y", "secret/x/y"}, // below a link, not there yet
		{"a/rel/..", "a/b"},         // ".." from where the link leads
		{"a/b/c/../../../secret", "secret"},
		{"a/none/../b", "a/b"},
		{"a/loop/x", "a/loop/x"}, // a loop: the kernel refuses it too
	} {
		if got := Real(dir + "/" + tc.in); got != filepath.Join(realDir(t, dir), tc.want) {
			t.Errorf("Real(%s) = %s, want %s", tc.in, got, filepath.Join(dir, tc.want))
		}
	}
	if got := Real("${UNSET}/x"); got != "${UNSET}/x" {
		t.Errorf("Real of a relative path = %q", got)
	}
}

func realDir(t *testing.T, dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
