package commands

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemhost/gem/host/sandbox"
)

// The git capability (host/sandbox/gitdir.go) comes with the workspace capability: a
// program that may change the project's files may commit them. Two things of the user's git
// are read for it when such a program starts, by the user's git itself (its includes and
// conditions applied, nothing of the repository's run: git config runs no hook or monitor):
//   - core.hooksPath (of the repository, the user's ~/.gitconfig, the system's): the folder
//     git takes hooks from is frozen (sandbox.Policy.Frozen), as .git/hooks is closed —
//     with husky's layout (.husky/_, whose stubs run the scripts in .husky) its parent too;
//   - who commits: GIT_AUTHOR_* and GIT_COMMITTER_* from gem's environment, or else the
//     user's user.name and user.email (the program sees neither the home nor
//     ~/.gitconfig), so that a commit made in the sandbox is the user's, as one made by
//     Gemini CLI's or Claude Code's shell tool is.

// gitIdentityVars are passed to a program with the workspace capability.
var gitIdentityVars = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}

// workspaceGit is what the user's git says of the workspace root: the hooks folders to
// freeze and the identity variables to set. Nothing when git is not installed. cache is
// where the answer is kept (gitcache.go; "" for nowhere).
func workspaceGit(cache, root string, environ []string) (hooks, identity []string) {
	lookup := func(k string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if key, v, ok := strings.Cut(environ[i], "="); ok && key == k {
				return v, true
			}
		}
		return "", false
	}
	values := gitConfig(cache, root, environ)
	for _, k := range gitIdentityVars {
		if v, ok := lookup(k); ok && v != "" {
			identity = append(identity, k+"="+v)
		} else if v := values["user."+strings.ToLower(k[strings.LastIndexByte(k, '_')+1:])]; v != "" {
			identity = append(identity, k+"="+v)
		}
	}
	if p := values["core.hookspath"]; p != "" {
		home, _ := lookup("HOME")
		hooks = hooksFolders(p, root, home)
	}
	return hooks, identity
}

// gitConfig reads core.hooksPath, user.name and user.email as git in root sees them (the
// last value of each), from the record in cache while the files git read them from are
// unchanged (gitcache.go; "" for none).
func gitConfig(cache, root string, environ []string) map[string]string {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	genv := append(sandbox.Env(environ, []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_DIR", "GIT_CEILING_DIRECTORIES"}), "GIT_TERMINAL_PROMPT=0")
	return gitConfigCached(cache, git, root, genv)
}

func runGitConfig(git, root string, genv []string) map[string]string {
	return parseGitConfig(runGitConfigOutput(git, root, genv))
}

// runGitConfigOutput is git config's answer in root, with genv as its environment.
func runGitConfigOutput(git, root string, genv []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "config", "--get-regexp", `^(core\.hookspath|user\.name|user\.email)$`)
	cmd.Dir, cmd.Env = root, genv
	out, _ := cmd.Output() // exit 1: none of them set
	return string(out)
}

// parseGitConfig reads git config --get-regexp's lines: the last value of each key.
func parseGitConfig(out string) map[string]string {
	values := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		values[strings.ToLower(k)] = v
	}
	return values
}

// hooksFolders is where a core.hooksPath value leads, from root: ~/ is the home, a relative
// path is relative to the work tree's top (the folder holding .git, root or above it).
func hooksFolders(value, root, home string) []string {
	p := value
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		p = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		top := workTreeTop(root)
		if real, err := filepath.EvalSymlinks(top); err == nil {
			top = real // a hooks folder not made yet is still named by its real path
		}
		p = filepath.Join(top, p)
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	out := []string{p}
	if filepath.Base(p) == "_" {
		out = append(out, filepath.Dir(p)) // husky: .husky/_/pre-commit runs .husky/pre-commit
	}
	return out
}

// workTreeTop is the nearest folder at or above root that holds .git (root when none does).
func workTreeTop(root string) string {
	for dir := filepath.Clean(root); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if dir == filepath.Dir(dir) {
			return root
		}
	}
}
