package checkpoint

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

// TestCheckpointRestore: a snapshot, then edits, a new file, a removed one; restoring brings
// the snapshot's files back, removes the new one, leaves ignored files alone; a project's own
// git hooks, fsmonitor and the user's git config never run.
func TestCheckpointRestore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := testhome.Dir(t, "checkpoint")
	work, state := filepath.Join(home, "work"), filepath.Join(home, "state")
	marker := filepath.Join(home, "ran")
	t.Setenv("HOME", home)
	t.Setenv("GIT_DIR", filepath.Join(home, "elsewhere")) // the caller's GIT_* are not obeyed
	script := "#!/bin/sh\necho \"$0\" >> " + marker + "\n"
	// the project's own repository: a hook and an fsmonitor that would record that they ran
	if out, err := exec.Command("git", "init", "-q", work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	write(t, filepath.Join(work, ".git/hooks/pre-commit"), script)
	write(t, filepath.Join(work, ".git/hooks/post-commit"), script)
	write(t, filepath.Join(work, "fsmon.sh"), script)
	write(t, filepath.Join(work, ".git/config"), "[core]\n\tfsmonitor = "+filepath.Join(work, "fsmon.sh")+"\n\thooksPath = .git/hooks\n")
	// the user's: a global hooks path
	write(t, filepath.Join(home, "hooks/pre-commit"), script)
	write(t, filepath.Join(home, "hooks/post-commit"), script)
	write(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = "+filepath.Join(home, "hooks")+"\n\tfsmonitor = "+filepath.Join(work, "fsmon.sh")+"\n")

	write(t, filepath.Join(work, ".gitignore"), "secret.env\nbuild/\n")
	write(t, filepath.Join(work, "a.txt"), "one\n")
	write(t, filepath.Join(work, "sub/b.txt"), "bee\n")
	write(t, filepath.Join(work, "secret.env"), "KEY=1\n")

	ctx := context.Background()
	s := Open(state, work, os.Environ())
	c, err := s.Save(ctx, Checkpoint{Tool: "write_file", File: filepath.Join(work, "a.txt"), History: []byte(`[{"role":"user"}]`), Prompt: "edit a"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Commit == "" || c.ID == "" {
		t.Fatalf("saved %+v", c)
	}

	write(t, filepath.Join(work, "a.txt"), "two\n")
	os.Remove(filepath.Join(work, "sub/b.txt"))
	write(t, filepath.Join(work, "new.txt"), "new\n")
	write(t, filepath.Join(work, "secret.env"), "KEY=2\n")
	write(t, filepath.Join(work, "build/out"), "bin\n")
	if _, err := s.Save(ctx, Checkpoint{Tool: "replace", File: "a.txt"}); err != nil {
		t.Fatal(err)
	}

	list, err := s.List()
	if err != nil || len(list) != 2 || list[0].ID != c.ID || list[1].Tool != "replace" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	got, err := s.Restore(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Prompt != "edit a" || string(got.History) != `[{"role":"user"}]` {
		t.Errorf("restored checkpoint %+v", got)
	}
	for path, want := range map[string]string{
		"a.txt":      "one\n",
		"sub/b.txt":  "bee\n",
		"secret.env": "KEY=2\n", // ignored: as it is now
		"build/out":  "bin\n",
		"new.txt":    "<open " + filepath.Join(work, "new.txt") + ": no such file or directory>",
	} {
		if got := read(t, filepath.Join(work, path)); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a hook or fsmonitor of the project or the user ran: %s", read(t, marker))
	}
	if out, err := exec.Command("git", "-C", work, "-c", "core.fsmonitor=false", "log", "--oneline").CombinedOutput(); err == nil {
		t.Errorf("the project's repository got commits: %s", out)
	}
	if _, err := s.Restore(ctx, "../x"); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("Restore(../x) = %v, want NotFoundError", err)
	}
}
