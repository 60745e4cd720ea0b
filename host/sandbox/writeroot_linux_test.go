package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
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

// TestReadRootSwappedBeforeStart: a read root agreed to (its identity in the policy, ReadIDs)
// that is replaced after the policy was built by a link to another folder (~/.ssh in the
// attack) is refused by the helper as it opens it, naming the root, and nothing is read
// through it (the program reads only what Landlock allows, so the key is not printed); kept as
// it was, the program reads it.
func TestReadRootSwappedBeforeStart(t *testing.T) {
	if LandlockABI() < 1 {
		t.Skip("no Landlock: the helper adds no filesystem rules here")
	}
	for _, swapped := range []bool{false, true} {
		t.Run(fmt.Sprint("swapped=", swapped), func(t *testing.T) {
			root := filepath.Join(outsideTmp(t), "granted")
			must(t, os.Mkdir(root, 0o755))
			must(t, os.WriteFile(filepath.Join(root, "id_rsa"), []byte("OWN-FILE\n"), 0o600))
			target := outsideTmp(t) // ~/.ssh
			must(t, os.WriteFile(filepath.Join(target, "id_rsa"), []byte("PRIVATE-KEY\n"), 0o600))
			var st syscall.Stat_t
			must(t, syscall.Stat(root, &st))
			sys := []string{"/usr", "/bin", "/lib", "/lib64", "/etc"}
			pol := &Policy{Read: append(sys, root), ReadIDs: map[string]string{root: fmt.Sprintf("%d:%d", st.Dev, st.Ino)}}
			if swapped {
				must(t, os.Rename(root, root+".old"))
				must(t, os.Symlink(target, root))
			}
			out, err := run(t, pol, "/", "cat "+root+"/id_rsa")
			if strings.Contains(out, "PRIVATE-KEY") {
				t.Fatalf("the program read through the link:\n%s", out)
			}
			if !swapped {
				if err != nil || !strings.Contains(out, "OWN-FILE") {
					t.Fatalf("the agreed root: %v\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(out, "read root "+root+" is not the folder agreed to") {
				t.Errorf("a swapped read root was not refused by name: %v\n%s", err, out)
			}
		})
	}
}

// TestSocketRootSwapped: the socket judge opens each write root once, an agreed one without
// following links: a root replaced by a link to a folder holding another program's socket
// (an agent's) admits none of that folder's sockets, and the folder agreed to still admits its own.
func TestSocketRootSwapped(t *testing.T) {
	root := filepath.Join(outsideTmp(t), "granted")
	must(t, os.Mkdir(root, 0o755))
	agent := outsideTmp(t)
	var st unix.Stat_t
	must(t, unix.Stat(root, &st))
	pol := Policy{Write: []string{root}, WriteIDs: map[string]string{root: fmt.Sprintf("%d:%d", st.Dev, st.Ino)}}
	if !newSocketRules(pol).reachable(filepath.Join(root, "s.sock")) {
		t.Fatal("the agreed root admits no socket of its own")
	}
	must(t, os.Rename(root, root+".old"))
	must(t, os.Symlink(agent, root))
	r := newSocketRules(pol)
	if r.reachable(filepath.Join(agent, "agent.sock")) || len(r.rootIDs) != 0 {
		t.Errorf("a root swapped for a link admits the linked folder's sockets: %+v", r)
	}
}
