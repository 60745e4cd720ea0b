package sandbox

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckIndex: the indexes real git writes (versions 2, 3 and 4, SHA-1 and SHA-256, a
// sparse index's folder entries) pass; an index with an entry in a .git folder (which git
// checkout -- . wrote into .git/hooks and ran), a split one, or one that is not an index
// does not.
func TestCheckIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo := func(args ...string) string {
		dir := t.TempDir()
		git(dir, append([]string{"init", "-q"}, args...)...)
		for _, f := range []string{"a.txt", "src/deep/name-long-enough-to-share-a-prefix.go", "src/deep/name-long-enough-to-share-a-prefix2.go", ".gitignore"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
			os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
		}
		git(dir, "add", "-A")
		return dir
	}
	index := func(dir string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	sha1Repo, sha256Repo := repo(), repo("--object-format=sha256")
	for _, dir := range []string{sha1Repo, sha256Repo} {
		for _, v := range []string{"2", "3", "4"} {
			git(dir, "update-index", "--index-version", v)
			if err := checkIndex(index(dir)); err != nil {
				t.Errorf("git's index version %s (%s): %v", v, dir, err)
			}
		}
	}
	if err := checkIndex(index(sha1Repo)); err != nil {
		t.Fatal(err)
	}
	git(sha1Repo, "update-index", "--split-index")
	if checkIndex(index(sha1Repo)) == nil {
		t.Error("a split index passed")
	}
	for _, name := range []string{".git/hooks/post-checkout", "sub/.git/config", ".GIT/hooks/x", ".git./hooks/x", "a/../b", "/abs"} {
		for _, v := range []uint32{2, 4} {
			if checkIndex(craftedIndex(v, "a.txt", name)) == nil {
				t.Errorf("an index (version %d) with the entry %s passed", v, name)
			}
		}
	}
	if err := checkIndex(craftedIndex(2, "a.txt", "src/x.go")); err != nil {
		t.Errorf("a plain crafted index: %v", err)
	}
	for _, junk := range [][]byte{nil, []byte("DIRC"), []byte(strings.Repeat("x", 100)), craftedIndex(2, "a")[:40]} {
		if checkIndex(junk) == nil {
			t.Errorf("%q passed", junk)
		}
	}
}

// craftedIndex is an index (version 2 or 4, SHA-1) of the given paths, written by hand as a
// program could.
func craftedIndex(version uint32, names ...string) []byte {
	b := []byte("DIRC")
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(names)))
	prev := ""
	for _, name := range names {
		e := make([]byte, 40+20)
		binary.BigEndian.PutUint32(e[24:], 0o100755)
		e = binary.BigEndian.AppendUint16(e, uint16(min(len(name), 0xfff)))
		if version == 4 {
			e = append(append(append(e, byte(len(prev))), name...), 0) // strip the whole previous name (short names)
		} else {
			e = append(e, name...)
			e = append(e, make([]byte, 8-(len(e)%8))...)
		}
		b, prev = append(b, e...), name
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

// TestProtectedEntriesKept: an index a program puts in place keeps every protected name's
// entry as the replaced index had it (a repository with GEMINI.md committed keeps working),
// and adds or changes none (git checkout -- . would write it into the work tree).
func TestProtectedEntriesKept(t *testing.T) {
	gemini := indexEntry{name: "GEMINI.md", mode: 0o100644, object: "a"}
	work := indexEntry{name: "src/x.go", mode: 0o100644, object: "b"}
	with := func(e indexEntry, f func(*indexEntry)) indexEntry { f(&e); return e }
	tests := []struct {
		name          string
		before, after []indexEntry
		ok            bool
	}{
		{"plain entries", nil, []indexEntry{work}, true},
		{"a plain entry changed", []indexEntry{work}, []indexEntry{with(work, func(e *indexEntry) { e.object = "c" })}, true},
		{"a protected entry kept", []indexEntry{gemini, work}, []indexEntry{gemini}, true},
		{"a protected entry removed", []indexEntry{gemini}, nil, true},
		{"a protected entry added", []indexEntry{work}, []indexEntry{work, gemini}, false},
		{"into a protected folder", nil, []indexEntry{{name: ".gemini/settings.json", mode: 0o100644, object: "a"}}, false},
		{"a protected name folded", nil, []indexEntry{{name: ".ENVRC", mode: 0o100644, object: "a"}}, false},
		{"its object changed", []indexEntry{gemini}, []indexEntry{with(gemini, func(e *indexEntry) { e.object = "c" })}, false},
		{"made executable", []indexEntry{gemini}, []indexEntry{with(gemini, func(e *indexEntry) { e.mode = 0o100755 })}, false},
		{"made a link", []indexEntry{gemini}, []indexEntry{with(gemini, func(e *indexEntry) { e.mode = 0o120000 })}, false},
		{"a conflict's side", []indexEntry{gemini}, []indexEntry{with(gemini, func(e *indexEntry) { e.stage = 3 })}, false},
		{"renamed into a protected name", []indexEntry{with(gemini, func(e *indexEntry) { e.name = "notes.md" })}, []indexEntry{gemini}, false},
	}
	for _, tt := range tests {
		if err := protectedEntriesKept(tt.before, tt.after); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

// TestCheckIndexUpdate reads both indexes: crafted ones (versions 2 and 4) and git's own,
// a protected entry added by git update-index refused, an unchanged one kept.
func TestCheckIndexUpdate(t *testing.T) {
	for _, v := range []uint32{2, 4} {
		if err := checkIndexUpdate(nil, craftedIndex(v, "a.txt")); err != nil {
			t.Errorf("version %d, a plain index: %v", v, err)
		}
		if checkIndexUpdate(nil, craftedIndex(v, "a.txt", ".gemini/settings.json")) == nil {
			t.Errorf("version %d, a protected entry added to no index passed", v)
		}
		if checkIndexUpdate(craftedIndex(v, "a.txt"), craftedIndex(v, ".envrc", "a.txt")) == nil {
			t.Errorf("version %d, a protected entry added passed", v)
		}
		if err := checkIndexUpdate(craftedIndex(v, "GEMINI.md"), craftedIndex(v, "GEMINI.md", "b.txt")); err != nil {
			t.Errorf("version %d, a protected entry kept: %v", v, err)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	read := func() []byte {
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	git("init", "-q")
	for _, f := range []string{"GEMINI.md", "a.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "GEMINI.md", "a.txt")
	before := read()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	if err := checkIndexUpdate(before, read()); err != nil {
		t.Errorf("git add of a plain file, GEMINI.md kept: %v", err)
	}
	before = read()
	git("update-index", "--add", "--cacheinfo", "100644,"+strings.Repeat("0", 39)+"1,.gemini/settings.json")
	if checkIndexUpdate(before, read()) == nil {
		t.Error("git update-index adding .gemini/settings.json passed")
	}
}

// BenchmarkCheckIndexUpdate: what the guard adds to each index a program puts in place (a
// 10,000-file project's index checked, and compared with the one it replaces).
func BenchmarkCheckIndexUpdate(b *testing.B) {
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("src/d%02d/f%04d.go", i/100, i)
	}
	index := craftedIndex(2, names...)
	for _, job := range []struct {
		name  string
		check func() error
	}{
		{"entries", func() error { return checkIndex(index) }},
		{"protected", func() error { return checkIndexUpdate(index, index) }},
	} {
		b.Run(job.name, func(b *testing.B) {
			b.SetBytes(int64(len(index)))
			for b.Loop() {
				if err := job.check(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
