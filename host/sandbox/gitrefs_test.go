package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitOut runs git in dir and returns its output, trimmed.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// gitTree is a tree made with git mktree from ls-tree lines.
func gitTree(t *testing.T, dir, lines string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "mktree")
	cmd.Stdin = strings.NewReader(lines)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git mktree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestCheckRefUpdate(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitOut(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "GEMINI.md"), []byte("ctx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "add", "GEMINI.md")
	gitOut(t, dir, "commit", "-q", "-m", "first")
	base := gitOut(t, dir, "rev-parse", "HEAD")
	baseTree := gitOut(t, dir, "ls-tree", "HEAD")
	blob := gitOut(t, dir, "hash-object", "-w", "GEMINI.md")
	commit := func(tree string, parents ...string) string {
		args := []string{"commit-tree", tree, "-m", "c"}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		return gitOut(t, dir, args...)
	}
	sub := gitTree(t, dir, "100644 blob "+blob+"\tsettings.json\n")
	evil := commit(gitTree(t, dir, baseTree+"\n040000 tree "+sub+"\t.gemini\n"), base)
	plain := commit(gitTree(t, dir, baseTree+"\n100644 blob "+blob+"\twork.txt\n"), base)
	deep := commit(gitTree(t, dir, baseTree+"\n040000 tree "+gitTree(t, dir, "100644 blob "+blob+"\t.envrc\n")+"\tsrc\n"), base)
	undone := commit(gitTree(t, dir, baseTree), evil)
	merged := commit(gitTree(t, dir, baseTree+"\n100644 blob "+blob+"\twork.txt\n"), plain, base)
	orphan := commit(gitTree(t, dir, baseTree))
	ref := filepath.Join(dir, ".git", "refs", "heads", "main")
	for _, packed := range []bool{false, true} {
		if packed { // the same objects read from a pack
			objects := gitOut(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
			cmd := exec.Command("git", "-C", dir, "pack-objects", "-q", ".git/objects/pack/pack")
			cmd.Stdin = strings.NewReader(objects + "\n")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git pack-objects: %v\n%s", err, out)
			}
			gitOut(t, dir, "prune-packed")
			if loose := gitOut(t, dir, "count-objects"); !strings.HasPrefix(loose, "0 objects") {
				t.Fatalf("objects left loose: %s", loose)
			}
		}
		checkRefCases(t, ref, packed, plain, merged, base, evil, undone, deep, orphan, blob)
	}
}

func checkRefCases(t *testing.T, ref string, packed bool, plain, merged, base, evil, undone, deep, orphan, blob string) {
	for _, c := range []struct {
		name, content string
		ok            bool
	}{
		{"a commit adding work.txt", plain + "\n", true},
		{"a merge", merged + "\n", true},
		{"an existing commit", base + "\n", true},
		{"a symbolic ref", "ref: refs/heads/other\n", true},
		{"packed refs", "# pack-refs with: peeled fully-peeled sorted \n" + plain + " refs/heads/x\n", true},
		{"a commit adding .gemini/settings.json", evil + "\n", false},
		{"a commit undoing one that added it", undone + "\n", false},
		{"a commit adding src/.envrc", deep + "\n", false},
		{"a root commit with GEMINI.md", orphan + "\n", false},
		{"packed refs naming one", base + " refs/heads/main\n" + evil + " refs/heads/x\n", false},
		{"a blob", blob + "\n", false},
		{"an object not there", strings.Repeat("ab", 20) + "\n", false},
		{"not a ref", "hello\n", false},
		{"a symbolic ref outside refs/", "ref: config\n", false},
	} {
		err := checkRefUpdate(ref, []byte(c.content))
		if (err == nil) != c.ok {
			t.Errorf("%s (packed %v): checkRefUpdate = %v, want ok %v", c.name, packed, err, c.ok)
		}
	}
}

// TestObjectStore reads every object of a repository whose objects are packed (deltas
// among them) and loose, and compares each with git cat-file.
func TestObjectStore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitOut(t, dir, "init", "-q")
	body := strings.Repeat("a line of text that stays\n", 400)
	for i := range 12 {
		if err := os.MkdirAll(filepath.Join(dir, "src", "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a.txt", "src/b.txt", "src/deep/c.txt"} {
			text := body + strings.Repeat("changed\n", i) + name
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitOut(t, dir, "add", "-A")
		gitOut(t, dir, "commit", "-q", "-m", "c")
		if i == 8 {
			gitOut(t, dir, "gc", "-q", "--aggressive") // deltas; the later commits stay loose
			gitOut(t, dir, "tag", "-a", "-m", "t", "v1")
		}
	}
	st := newObjectStore(filepath.Join(dir, ".git"))
	defer st.Close()
	all := strings.Fields(gitOut(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(deltabase)"))
	deltas := 0
	for i := 0; i+2 < len(all); i += 3 {
		id, _ := parseObjectID(all[i])
		typ, data, err := st.read(id)
		if err != nil || typ != all[i+1] {
			t.Fatalf("%s: read %s, %v; want a %s", all[i], typ, err, all[i+1])
		}
		if all[i+2] != strings.Repeat("0", 40) {
			deltas++
		}
		if typ == "blob" {
			if data != nil {
				t.Errorf("%s: a blob's content read", all[i])
			}
			continue
		}
		if want := gitOut(t, dir, "cat-file", typ, all[i]); strings.TrimSpace(string(data)) != want {
			t.Errorf("%s: read %q, want %q", all[i], data, want)
		}
	}
	if deltas == 0 || len(st.packs) == 0 {
		t.Fatalf("no deltas (%d) or no packs (%d) read", deltas, len(st.packs))
	}
}

// TestCheckRefUpdateMissingParent: a program makes a commit that adds .gemini/settings.json,
// a merge of it that changes nothing, removes the first commit's object and moves the branch
// to the merge; then writes the object back (objects/ is its to write): git reset --hard
// HEAD^2 would write the settings. A parent not in the repository is refused; one that is
// (the same merge with it there) is judged as before.
func TestCheckRefUpdateMissingParent(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitOut(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "work.txt"), []byte("w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "add", "work.txt")
	gitOut(t, dir, "commit", "-q", "-m", "first")
	base := gitOut(t, dir, "rev-parse", "HEAD")
	baseTree := gitOut(t, dir, "ls-tree", "HEAD")
	blob := gitOut(t, dir, "hash-object", "-w", "work.txt")
	sub := gitTree(t, dir, "100644 blob "+blob+"\tsettings.json\n")
	evil := gitOut(t, dir, "commit-tree", gitTree(t, dir, baseTree+"\n040000 tree "+sub+"\t.gemini\n"), "-p", base, "-m", "evil")
	merge := gitOut(t, dir, "commit-tree", gitTree(t, dir, baseTree), "-p", base, "-p", evil, "-m", "merge")
	ref := filepath.Join(dir, ".git", "refs", "heads", "main")
	if err := checkRefUpdate(ref, []byte(merge+"\n")); err == nil {
		t.Errorf("a merge of a commit adding .gemini/settings.json was accepted")
	}
	object := filepath.Join(dir, ".git", "objects", evil[:2], evil[2:])
	data, err := os.ReadFile(object)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(object)
	if err := checkRefUpdate(ref, []byte(merge+"\n")); err == nil {
		t.Errorf("a merge whose parent adding .gemini/settings.json was taken away was accepted")
	}
	os.WriteFile(object, data, 0o444)
	plain := gitOut(t, dir, "commit-tree", gitTree(t, dir, baseTree+"\n100644 blob "+blob+"\tmore.txt\n"), "-p", base, "-m", "plain")
	if err := checkRefUpdate(ref, []byte(plain+"\n")); err != nil {
		t.Errorf("a commit adding more.txt: %v", err)
	}
}
