package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const gitIdentity = "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@gem.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@gem.invalid GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent; "

// gitWorkspace is a guarded workspace holding a repository with one commit, made by the
// user's git (outside the sandbox).
func gitWorkspace(t *testing.T) (string, Policy) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws, pol := guardedWorkspace(t)
	os.RemoveAll(filepath.Join(ws, ".git"))
	userGit(t, ws, "init -q -b main && git commit -q --allow-empty -m first")
	return ws, pol
}

// userGit runs git as the user would, outside any sandbox.
func userGit(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", gitIdentity+"git "+script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// TestGitInTheSandbox: a program with the workspace capability uses git in the workspace
// (add, commit, branch, checkout, stash, merge, rebase, git init of a new repository).
func TestGitInTheSandbox(t *testing.T) {
	ws, pol := gitWorkspace(t)
	script := gitIdentity + `set -e
echo a > a.txt && git add a.txt && git commit -qm a
git branch feature && git checkout -q feature
echo b > b.txt && git add b.txt && git commit -qm b
git checkout -q main
echo c > c.txt && git add c.txt && git commit -qm c
git merge -q --no-edit feature
git checkout -q -b topic HEAD~2
echo d > d.txt && git add d.txt && git commit -qm d
git rebase -q main
echo dirty >> a.txt && git stash -q && test "$(cat a.txt)" = a && git stash pop -q && git commit -qam dirty
git init -q fresh && cd fresh && echo n > n.txt && git add n.txt && git commit -qm n && cd ..
git gc -q
git log --format=%s | tr '\n' ' '; git -C fresh log --format=%s`
	out, err := run(t, &pol, ws, script)
	if err != nil || strings.TrimSpace(out) != "dirty d Merge branch 'feature' c b a first n" {
		t.Fatalf("git in the sandbox: %v\n%s", err, out)
	}
	if status := userGit(t, ws, "status --porcelain"); status != "?? README.md\n?? fresh/\n" {
		t.Errorf("the user's git status after the sandbox's work:\n%s", status)
	}
	config, _ := os.ReadFile(filepath.Join(ws, "fresh/.git/config"))
	if CheckGitFile("config", config) != nil || !strings.Contains(string(config), "repositoryformatversion") {
		t.Errorf("the new repository's config:\n%s", config)
	}
}

// TestGitAttacks: a program with the workspace capability tries every way git runs code
// (fsmonitor, hooks, hooksPath, includes, filters, sshCommand, aliases, a submodule's config,
// a worktree's, alternates, a .git file, a rebase's exec line); each fails, and the user's
// git status and commit in the repository run nothing planted.
func TestGitAttacks(t *testing.T) {
	ws, pol := gitWorkspace(t)
	userGit(t, ws, "config remote.origin.url https://example.invalid/x.git")
	pwned := filepath.Join(outsideTmp(t), "pwned")
	planted := "touch " + pwned
	attacks := []struct{ name, script string }{
		{"git config fsmonitor", "git config core.fsmonitor '" + planted + "'"},
		{"git config hooksPath", "mkdir -p h && printf '#!/bin/sh\\n" + planted + "\\n' > h/pre-commit && chmod +x h/pre-commit && git config core.hooksPath h"},
		{"git config alias", "git config alias.st '!" + planted + "'"},
		{"git config sshCommand", "git config core.sshCommand '" + planted + "'"},
		{"git config include", "echo '[core] fsmonitor = x' > inc && git config include.path ../inc"},
		{"git config includeIf", "git config includeIf.gitdir:/.path ../inc"},
		{"filter in config", "git config filter.evil.clean '" + planted + "'"},
		{"a config renamed into place", "printf '[core]\\n\\tfsmonitor = " + planted + "\\n' > .git/config.lock && mv .git/config.lock .git/config"},
		{"a config of init's keys over the user's", "printf '[core]\\n\\tbare = false\\n' > .git/config.lock && mv .git/config.lock .git/config"},
		{"a config written", "echo '[core] fsmonitor = x' >> .git/config"},
		{"a config linked", "printf '[core]\\n\\tfsmonitor = x\\n' > c2 && ln -f c2 .git/config"},
		{"a hook", "printf '#!/bin/sh\\n" + planted + "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"},
		{"a hook renamed in", "printf '#!/bin/sh\\n" + planted + "\\n' > e && chmod +x e && mv e .git/hooks/post-checkout"},
		{"a sample made a hook", "mv .git/hooks/pre-commit.sample .git/hooks/pre-commit"},
		{"the hooks folder replaced", "mkdir -p h2 && mv .git/hooks h3 && mv h2 .git/hooks"},
		{"attributes", "mkdir -p .git/info && echo '* filter=evil' > .git/info/attributes"},
		{"gitattributes", "echo '* filter=evil' > .gitattributes"},
		{"alternates", "mkdir -p .git/objects/info && echo /elsewhere > .git/objects/info/alternates"},
		{"a submodule's config", "mkdir -p .git/modules/lib && printf '[core]\\n\\tfsmonitor = x\\n' > .git/modules/lib/config"},
		{"a submodule's hook", "mkdir -p .git/modules/lib/hooks && echo x > .git/modules/lib/hooks/post-checkout"},
		{"a submodule prepared elsewhere", "mkdir -p m/hooks && echo x > m/hooks/post-checkout && mkdir -p .git/modules && mv m .git/modules/lib2"},
		{"a worktree's config", "mkdir -p .git/worktrees/w && echo '[core] fsmonitor = x' > .git/worktrees/w/config.worktree"},
		{"a worktree's commondir", "mkdir -p .git/worktrees/w && echo /elsewhere > .git/worktrees/w/commondir"},
		{"git worktree add", "git worktree add -q ../wt"},
		{"a .git file pointing elsewhere", "mkdir -p sub && echo 'gitdir: /elsewhere' > sub/.git"},
		{"a .git folder renamed into place", "mkdir -p p/.gitx/hooks && mv p/.gitx p/.git"},
		{"commondir", "echo /elsewhere > .git/commondir"},
		{"the hooks folder a link", "mkdir -p h && rm -f .git/hooks/* && rmdir .git/hooks && ln -s ../h .git/hooks"},
		{"a link named as a pseudo-ref", "ln -s hooks/pre-commit .git/ORIG_HEAD"},
		{"a new repository's config beyond git init's", "git init -q fresh && git -C fresh config core.fsmonitor '" + planted + "'"},
		{"a rebase's exec line", "git commit -q --allow-empty -m two && git rebase -q --exec '" + planted + "' HEAD~1"},
		{"the rebase's todo written", "mkdir -p .git/rebase-merge && echo 'exec " + planted + "' > .git/rebase-merge/git-rebase-todo"},
		{"a case variant", "echo x > .git/HOOKS/pre-commit"},
		{"a case-folded name", "echo x > .git/hooks/pre-commıt"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			out, err := run(t, &pol, ws, gitIdentity+a.script)
			if err == nil {
				t.Errorf("the attack passed: %s", out)
			}
		})
	}
	config, _ := os.ReadFile(filepath.Join(ws, ".git/config"))
	if !strings.Contains(string(config), "example.invalid") || strings.Contains(string(config), "fsmonitor") {
		t.Errorf("the repository's config changed:\n%s", config)
	}
	if fresh, err := os.ReadFile(filepath.Join(ws, "fresh/.git/config")); err == nil && CheckGitFile("config", fresh) != nil {
		t.Errorf("the new repository's config holds more than git init's keys:\n%s", fresh)
	}
	os.RemoveAll(filepath.Join(ws, ".git/rebase-merge")) // what the refused rebase left
	userGit(t, ws, "status -s && git commit -q --allow-empty -m user && git -C fresh status -s")
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the user's git ran what the program planted")
	}
}
