package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/testhome"
)

// TestGitConfigCache: the git capability's read of the user's git is answered from its
// record while the files git read are unchanged, and asked of git again after any change,
// never kept when a file includes another or changed just now.
func TestGitConfigCache(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := testhome.Dir(t, "gitcache")
	home, root, bin := filepath.Join(dir, "home"), filepath.Join(dir, "proj"), filepath.Join(dir, "bin")
	count := filepath.Join(dir, "runs")
	for _, d := range []string{home, root, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A git that counts its runs, then is the real one.
	wrapper := "#!/bin/sh\necho run >> " + count + "\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(realGit, "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	system := filepath.Join(dir, "gitconfig")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(system, "")
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	environ := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_SYSTEM=" + system}
	cache := filepath.Join(dir, "gem", "cache", "gitconfig", "proj")
	gitRacyWindow = 0
	t.Cleanup(func() { gitRacyWindow = 2 * time.Second })

	steps := []struct {
		name   string
		change func()
		runs   int               // git runs so far
		want   map[string]string // what gitConfig answers
	}{
		{"first read asks git", func() { write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Ada\n") }, 1, map[string]string{"user.name": "Ada"}},
		{"nothing changed: from the record", nil, 1, map[string]string{"user.name": "Ada"}},
		{"the user's config edited", func() { write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Grace\n") }, 2, map[string]string{"user.name": "Grace"}},
		{"nothing changed again", nil, 2, map[string]string{"user.name": "Grace"}},
		{"the repository sets hooksPath", func() {
			f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("[core]\n\thooksPath = .husky\n")
			f.Close()
		}, 3, map[string]string{"user.name": "Grace", "core.hookspath": ".husky"}},
		{"the system's config changed", func() { write(system, "[user]\n\temail = a@b\n") }, 4, map[string]string{"user.name": "Grace", "user.email": "a@b", "core.hookspath": ".husky"}},
		{"the XDG config appears", func() {
			os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
			write(filepath.Join(home, ".config", "git", "config"), "[user]\n\temail = x@y\n")
		}, 5, map[string]string{"user.name": "Grace", "user.email": "x@y", "core.hookspath": ".husky"}}, // the XDG file is read before ~/.gitconfig, after the system's
		{"an include: not kept", func() {
			write(filepath.Join(home, "more"), "[user]\n\tname = Linus\n")
			write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Grace\n[include]\n\tpath = "+filepath.Join(home, "more")+"\n")
		}, 6, map[string]string{"user.name": "Linus", "user.email": "x@y", "core.hookspath": ".husky"}},
		{"an include: asked again", nil, 7, map[string]string{"user.name": "Linus", "user.email": "x@y", "core.hookspath": ".husky"}},
		{"changed just now: not kept", func() {
			gitRacyWindow = time.Hour
			write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Ken\n")
		}, 8, map[string]string{"user.name": "Ken", "user.email": "x@y", "core.hookspath": ".husky"}},
		{"changed just now: asked again", nil, 9, map[string]string{"user.name": "Ken", "user.email": "x@y", "core.hookspath": ".husky"}},
	}
	for _, s := range steps {
		if s.change != nil {
			s.change()
		}
		got := gitConfig(cache, root, environ)
		data, _ := os.ReadFile(count)
		if runs := strings.Count(string(data), "run"); runs != s.runs {
			t.Errorf("%s: git ran %d times in all, want %d", s.name, runs, s.runs)
		}
		if len(got) != len(s.want) {
			t.Errorf("%s: got %v, want %v", s.name, got, s.want)
		}
		for k, v := range s.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q (all: %v)", s.name, k, got[k], v, got)
			}
		}
	}
}
