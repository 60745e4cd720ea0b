package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// gitClone clones url at ref (branch, tag or commit) into dir, never prompting.
func gitClone(ctx context.Context, environ []string, url, ref, dir string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return errors.New("git is not installed: install git (for example apt-get install git) to install from git sources")
	}
	run := func(args ...string) error { return git(ctx, environ, args...) }
	args := []string{"clone", "--quiet", "--depth", "1"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if err := run(append(args, "--", url, dir)...); err != nil {
		if ref == "" {
			return fmt.Errorf("cannot clone %s: %w", url, err)
		}
		// A commit is not a branch or tag: clone everything, then check it out.
		os.RemoveAll(dir)
		if err := run("clone", "--quiet", "--", url, dir); err != nil {
			return fmt.Errorf("cannot clone %s: %w", url, err)
		}
		if err := run("-C", dir, "checkout", "--quiet", ref); err != nil {
			return fmt.Errorf("%s has no branch, tag or commit %q: %w", url, ref, err)
		}
	}
	return nil
}

// gitRemoteHead returns the commit that ref (or HEAD) names on the remote.
func gitRemoteHead(ctx context.Context, environ []string, url, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	cmd := exec.CommandContext(ctx, "git", "ls-remote", "--", url, ref)
	cmd.Env = append(slices.Clip(environ), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git ls-remote %s: %w", url, err)
	}
	line := strings.Fields(string(out))
	if len(line) == 0 {
		return ref, nil // a commit: it does not move
	}
	return line[0], nil
}

// gitHeadOf is the commit checked out in dir ("" when it is not a checkout).
func gitHeadOf(dir string) string {
	head, _ := gitLocalHead(dir)
	return head
}

func gitLocalHead(dir string) (string, error) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("%s is not a git checkout: %w", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}
