package registry_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestGrantRootIdentity: a folder the user granted is recorded with its real path and
// identity (or absent), and a start refuses it once it leads elsewhere (a link to ~/.ssh) or
// is another folder; a folder absent when granted is taken as found at its real path. A grant
// recorded without roots (an older gem's) gets them at its first use.
func TestGrantRootIdentity(t *testing.T) {
	for _, tc := range []struct {
		name    string
		field   string
		exists  bool                              // the folder exists when granted
		change  func(t *testing.T, p, ssh string) // what happens to it after
		old     bool                              // recorded without roots (WithRoots at first use)
		refused bool
	}{
		{"write, unchanged", registry.GrantWriteField, true, nil, false, false},
		{"read, unchanged", registry.GrantReadField, true, nil, false, false},
		{"write, swapped for a link to ~/.ssh", registry.GrantWriteField, true, swapLink, false, true},
		{"read, swapped for a link to ~/.ssh", registry.GrantReadField, true, swapLink, false, true},
		{"write, replaced by another folder", registry.GrantWriteField, true, swapFolder, false, true},
		{"write, absent then made", registry.GrantWriteField, false, makeFolder, false, false},
		{"write, absent then a link to ~/.ssh", registry.GrantWriteField, false, makeLink, false, true},
		{"older record, swapped after its first use", registry.GrantWriteField, true, swapLink, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := registrytest.Env(t, nil)
			ssh := filepath.Join(env.Home, ".ssh")
			p := filepath.Join(env.Home, "cache")
			for _, d := range []string{ssh, p} {
				if d != p || tc.exists {
					if err := os.MkdirAll(d, 0o700); err != nil {
						t.Fatal(err)
					}
				}
			}
			g := registry.Grant{Read: []string{p}}
			if tc.field == registry.GrantWriteField {
				g = registry.Grant{Write: []string{p}}
			}
			if !tc.old {
				var added bool
				if g, added = g.WithRoots(env); !added || len(g.Roots) != 1 || g.Roots[0].Real != p || (g.Roots[0].ID != "") != tc.exists {
					t.Fatalf("recorded %+v (added %v), want %s with its identity when it exists", g.Roots, added, p)
				}
			}
			if g.Roots == nil {
				g, _ = g.WithRoots(env) // the first use of an older record
			}
			if tc.change != nil {
				tc.change(t, p, ssh)
			}
			read, write, err := g.CheckRoots(env, "tool")
			var changed *registry.RootChangedError
			if got := errors.As(err, &changed); got != tc.refused {
				t.Fatalf("check: %v, want refused %v", err, tc.refused)
			}
			if tc.refused {
				return
			}
			if roots := append(read, write...); len(roots) != 1 || roots[0].Real != p || roots[0].ID != registry.FileStamp(p) {
				t.Errorf("found %+v, want %s with its identity now", roots, p)
			}
		})
	}
}

func swapLink(t *testing.T, p, ssh string) {
	t.Helper()
	if err := os.Rename(p, p+".old"); err != nil {
		t.Fatal(err)
	}
	makeLink(t, p, ssh)
}

func makeLink(t *testing.T, p, ssh string) {
	t.Helper()
	if err := os.Symlink(ssh, p); err != nil {
		t.Fatal(err)
	}
}

func swapFolder(t *testing.T, p, ssh string) {
	t.Helper()
	if err := os.Rename(p, p+".old"); err != nil {
		t.Fatal(err)
	}
	makeFolder(t, p, ssh)
}

func makeFolder(t *testing.T, p, _ string) {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
}
