package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteRootSwappedBeforeStart: a write root agreed to (its identity in the policy) that is
// replaced after the policy was built, by a link to another folder (~/.ssh in the attack) or by
// another folder, is refused by the helper as it opens it, naming the root, and nothing is
// written through it; kept as it was, the program writes it.
func TestWriteRootSwappedBeforeStart(t *testing.T) {
	if LandlockABI() < 1 {
		t.Skip("no Landlock: the helper adds no filesystem rules here")
	}
	cases := []struct {
		name   string
		swap   func(t *testing.T, root, target string)
		wantOK bool
	}{
		{"kept", func(*testing.T, string, string) {}, true},
		{"a link now", func(t *testing.T, root, target string) {
			must(t, os.Rename(root, root+".old"))
			must(t, os.Symlink(target, root))
		}, false},
		{"another folder now", func(t *testing.T, root, _ string) {
			must(t, os.Rename(root, root+".old"))
			must(t, os.Mkdir(root, 0o755))
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(outsideTmp(t), "granted")
			must(t, os.Mkdir(root, 0o755))
			target := outsideTmp(t) // the folder the attack wants (~/.ssh)
			var st syscall.Stat_t
			must(t, syscall.Stat(root, &st))
			pol := &Policy{Read: []string{"/"}, Write: []string{root}, WriteIDs: map[string]string{root: fmt.Sprintf("%d:%d", st.Dev, st.Ino)}}
			c.swap(t, root, target)
			out, err := run(t, pol, "/", "echo planted > "+root+"/authorized_keys")
			if c.wantOK {
				if err != nil {
					t.Fatalf("the agreed root: %v\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(out, "write root "+root+" is not the folder agreed to") {
				t.Errorf("a swapped root was not refused by name: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(target, "authorized_keys")); err == nil {
				t.Error("the program wrote through the link")
			}
			if _, err := os.Stat(filepath.Join(root, "authorized_keys")); err == nil {
				t.Error("the program wrote the folder put in the root's place")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
