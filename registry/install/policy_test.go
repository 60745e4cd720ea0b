package install

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestSourcePolicy(t *testing.T) {
	for _, tc := range []struct {
		name         string
		policy       *SourcePolicy
		source, kind string
		setting      string // "" allowed
	}{
		{"no policy", nil, "https://github.com/a/b", "git", ""},
		{"git blocked", &SourcePolicy{BlockGit: true}, "https://github.com/a/b", "git", "security.blockGitExtensions"},
		{"release blocked", &SourcePolicy{BlockGit: true}, "https://github.com/a/b", "github-release", "security.blockGitExtensions"},
		{"folder not blocked", &SourcePolicy{BlockGit: true}, "/src/ext", "local", ""},
		{"allowed", &SourcePolicy{Allowed: []string{`^https://github\.com/acme/`}}, "https://github.com/acme/x", "git", ""},
		{"not allowed", &SourcePolicy{Allowed: []string{`^https://github\.com/acme/`}}, "https://github.com/evil/acme", "git", "security.allowedExtensions"},
		{"bad pattern matches nothing", &SourcePolicy{Allowed: []string{`(`}}, "x", "local", "security.allowedExtensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.policy.check(tc.source, tc.kind)
			var b *BlockedSourceError
			switch {
			case tc.setting == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.setting != "" && (!errors.As(err, &b) || b.Setting != tc.setting):
				t.Fatalf("error %v, want one naming %s", err, tc.setting)
			}
		})
	}
}

func TestWithoutPassword(t *testing.T) {
	for in, want := range map[string]string{
		"https://alice:tok@host/r.git": "https://alice@host/r.git",
		"https://alice@host/r.git":     "https://alice@host/r.git",
		"https://host/r.git":           "https://host/r.git",
		"git@github.com:o/r.git":       "git@github.com:o/r.git",
	} {
		if got := WithoutPassword(in); got != want {
			t.Errorf("WithoutPassword(%q) = %q, want %q", in, got, want)
		}
	}
}

// GITHUB_TOKEN reaches git as configuration in the environment, for github.com alone.
func TestGitEnvironToken(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	home := t.TempDir()
	base := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=someone"}
	f := &Fetcher{Environ: base, Token: "t0ken"}
	get := func(env []string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Env = env
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	env := f.gitEnviron()
	if got := get(env, "config", "--get-urlmatch", "http.extraheader", "https://github.com/o/r"); got != "Authorization: Basic eC1hY2Nlc3MtdG9rZW46dDBrZW4=" {
		t.Fatalf("github.com gets %q", got)
	}
	if got := get(env, "config", "--get-urlmatch", "http.extraheader", "https://example.com/o/r"); got != "" {
		t.Fatalf("another host gets %q", got)
	}
	if got := get(env, "config", "--get", "user.name"); got != "someone" {
		t.Fatalf("the user's own GIT_CONFIG_* entry was lost: %q", got)
	}
	if got := get((&Fetcher{Environ: base}).gitEnviron(), "config", "--get-urlmatch", "http.extraheader", "https://github.com/o/r"); got != "" {
		t.Fatalf("without a token: %q", got)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Fatalf("something was written to the home: %v", entries)
	}
}

func TestSplitSubfolder(t *testing.T) {
	for _, tc := range []struct {
		src, repo, sub, ref string
		ok                  bool
	}{
		{"owner/repo//tools/lint@v2", "owner/repo", "tools/lint", "v2", true},
		{"https://github.com/o/r//a", "https://github.com/o/r", "a", "", true},
		{"file:///srv/mono.git//exts/a@abc123", "file:///srv/mono.git", "exts/a", "abc123", true},
		{"https://host/o/r.git", "", "", "", false},
		{"owner/repo", "", "", "", false},
	} {
		repo, sub, ref, ok := SplitSubfolder(tc.src)
		if repo != tc.repo || sub != tc.sub || ref != tc.ref || ok != tc.ok {
			t.Errorf("SplitSubfolder(%q) = %q %q %q %v", tc.src, repo, sub, ref, ok)
		}
	}
}
