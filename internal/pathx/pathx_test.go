package pathx

import "testing"

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
