package sandbox

import (
	"strings"
	"testing"
)

// TestWorkspaceRule: the git capability's table, as the guard asks it: what git writes as
// it works is open, what git obeys is closed (at the top, in submodules and worktrees, by
// every name a case-folding file system gives it), and a protected name stays closed.
func TestWorkspaceRule(t *testing.T) {
	const (
		content = changeContent
		file    = changeMakeFile
		dir     = changeMakeDir
		link    = changeMakeOther
		remove  = changeRemove
		mvFile  = changeRenameFile
		mvDir   = changeRenameDir
		mode    = changeMode
	)
	type row struct {
		rel     string
		allow   []change
		checked string
	}
	every := []change{content, file, dir, link, remove, mvFile, mvDir, mode}
	write := []change{content, file, dir, remove, mvFile, mvDir, mode}
	nested := []change{content, file, dir, remove, mvFile, mode}
	folder := []change{dir, remove}
	ref := []change{dir, remove} // and put in place by a checked rename
	for _, r := range []row{
		// outside any repository folder
		{"src/main.go", every, ""},
		{"gitignore", every, ""},
		{".gitignore", every, ""},
		{".github/workflows/ci.yml", every, ""},
		// protected names, by every name
		{".gitattributes", nil, ""},
		{"sub/.gitmodules", nil, ""},
		{"GEMINI.md", nil, ""},
		{"AGENTſ.md", nil, ""},      // ſ folds to s
		{"bunﬁg.toml", nil, ""},     // ﬁ folds to fi (full folding)
		{"docs/CLAUDE.MD", nil, ""}, //
		{".vscode/tasks.json", nil, ""},
		{".ENVRC", nil, ""},
		{".env\u200c.local", nil, ""}, // a zero-width non-joiner HFS+ ignores
		{".gemini/settings.json", nil, ""},
		{".GIT/HEAD", nil, ""},  // a case variant is no folder git makes
		{".git./HEAD", nil, ""}, // nor a trailing dot
		{".gem/policies.toml", nil, ""},
		// the repository's folder itself: made by git init, nothing else
		{".git", []change{dir}, ""},
		{"sub/.git", []change{dir}, ""},
		// what git writes as it works
		{".git/index", []change{remove}, "index"},
		{".git/index.lock", write, ""},
		{".git/HEAD", ref, "ref"},
		{".git/HEAD.lock", write, ""},
		{".git/ORIG_HEAD", ref, "ref"},
		{".git/FETCH_HEAD", write, ""},
		{".git/MERGE_HEAD", write, ""},
		{".git/MERGE_MSG", write, ""},
		{".git/AUTO_MERGE", write, ""},
		{".git/COMMIT_EDITMSG", write, ""},
		{".git/next-index-4242.lock", write, ""},
		{".git/index.stash.4242", write, ""},
		{".git/packed-refs", ref, "ref"},
		{".git/packed-refs.lock", write, ""},
		{".git/description", write, ""},
		{".git/refs", ref, "ref"},
		{".git/refs/heads/main", ref, "ref"},
		{".git/refs/heads/feature/x.lock", write, ""},
		{".git/refs/stash", ref, "ref"},
		{".git/packed-refs.new", write, ""},
		{".git/reftable/tables.list", nil, ""},
		{".git/logs/refs/stash", write, ""},
		{".git/objects/ab/cdef0123", write, ""},
		{".git/objects/pack/pack-1.pack", write, ""},
		{".git/objects/info/commit-graph", write, ""},
		{".git/rebase-merge/done", write, ""},
		{".git/rebase-merge/head-name", write, ""},
		{".git/rebase-apply/patch", write, ""},
		{".git/sequencer/todo", write, ""},
		{".git/info/exclude", write, ""},
		{"lib/.git/refs/heads/main", ref, "ref"}, // a nested repository
		{".git/config.lock", write, ""},          // data until the checked rename
		{".git/rebase-merge/git-rebase-todo.lock", write, ""},
		// folders that hold closed names: made, never renamed
		{".git/objects", folder, ""},
		{".git/objects/info", folder, ""},
		{".git/info", folder, ""},
		{".git/hooks", folder, ""},
		{".git/modules", folder, ""},
		{".git/modules/lib", folder, ""},
		{".git/worktrees/wt", folder, ""},
		// git init: its samples and its probe
		{".git/hooks/pre-commit.sample", []change{content, file}, ""},
		{".git/tAb12Cd", []change{file, link, remove}, ""},
		// only through a checked rename
		{".git/config", []change{mode}, "config"},
		{"lib/.git/config", []change{mode}, "config"},
		{".git/rebase-merge/git-rebase-todo", []change{remove}, "todo"},
		// what git obeys
		{".git/hooks/pre-commit", nil, ""},
		{".git/hooks/pre-commit.lock", nil, ""},
		{".git/HOOKS/post-checkout", nil, ""},
		{".git/hooks/sub/x", nil, ""},
		{".git/config.worktree", nil, ""},
		{".git/commondir", nil, ""},
		{".git/gitdir", nil, ""},
		{".git/info/attributes", nil, ""},
		{".git/objects/info/alternates", nil, ""},
		{".git/objects/info/http-alternates", nil, ""},
		{".git/rebase-merge/strategy", nil, ""},
		{".git/sequencer/opts", nil, ""},
		{".git/remotes/origin", nil, ""},
		{".git/branches/origin", nil, ""},
		{".git/unknown", nil, ""},
		{".git/Config", []change{mode}, "config"}, // the same file on a case-folding file system
		{".git/conſig", nil, ""},
		{".git/refs/heads/GEMINI.md", nil, ""}, // a protected name deeper in
		{".git/refs/x/.git/config", nil, ""},
		{".git/refs/../config", nil, ""},
		// submodules' and worktrees' repositories
		{".git/modules/lib/config", nil, ""},
		{".git/modules/lib/hooks/pre-commit", nil, ""},
		{".git/modules/lib/objects/info/alternates", nil, ""},
		{".git/modules/a/b/config", nil, ""},                // a name with a slash
		{".git/modules/a/refs/x/hooks/pre-commit", nil, ""}, // read as the repository a/refs/x
		{".git/modules/a/refs/x/hooks", folder, ""},         // ... never renamed into place
		{".git/modules/lib/objects/ab/cd", nested, ""},
		{".git/modules/lib/refs/heads/main", ref, "ref"},
		{".git/modules/lib/HEAD", ref, "ref"},
		{".git/modules/lib/index", []change{remove}, "index"},
		{".git/modules/lib/tAb12Cd", nil, ""},
		{".git/worktrees/wt/HEAD", ref, "ref"},
		{".git/worktrees/wt/index", []change{remove}, "index"},
		{".git/worktrees/wt/config.worktree", nil, ""},
		{".git/worktrees/wt/commondir", nil, ""},
		{".git/worktrees/wt/gitdir", nil, ""},
		{".git/worktrees/wt/config", nil, ""},
		{".git/worktrees/wt/locked", nil, ""},
	} {
		got := WorkspaceRule(r.rel)
		var gotAllow []change
		for k := content; k <= mode; k++ {
			if got.Allows(k) {
				gotAllow = append(gotAllow, k)
			}
		}
		if !sameChanges(gotAllow, r.allow) || got.Checked() != r.checked {
			t.Errorf("WorkspaceRule(%q) allows %v, checked %q (%s); want %v, %q", r.rel, gotAllow, got.Checked(), got.Why, r.allow, r.checked)
		}
		if len(r.allow) == 0 && got.Why == "" {
			t.Errorf("WorkspaceRule(%q) closes it without saying why", r.rel)
		}
	}
}

func sameChanges(a, b []change) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCheckGitFile: a config passes with git init's keys alone, by every version and flag of
// git init; any key that runs or names a program, an include, a subsection or a quoted or
// continued value fails; a rebase todo passes without exec lines.
func TestCheckGitFile(t *testing.T) {
	for _, c := range []struct {
		what, content string
		ok            bool
	}{
		{"config", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", true},
		{"config", "[core]\n\trepositoryformatversion = 1\n\tfilemode = false\n\tbare = false\n\tlogallrefupdates = true\n\tsymlinks = false\n\tignorecase = true\n[extensions]\n\tobjectformat = sha256\n", true},
		{"config", "[core]\n\trepositoryformatversion = 0\n", true},
		{"config", "", true},
		{"config", "# a comment\n[CORE]\n\tBare\n", true},
		{"config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", false},
		{"config", "[core]\n\thooksPath = .husky\n", false},
		{"config", "[core]\n\tsshCommand = sh -c evil\n", false},
		{"config", "[alias]\n\tst = !evil\n", false},
		{"config", "[filter \"x\"]\n\tclean = evil\n", false},
		{"config", "[include]\n\tpath = ../evil\n", false},
		{"config", "[includeIf \"gitdir:/\"]\n\tpath = ../evil\n", false},
		{"config", "[core]\n\tworktree = /elsewhere\n", false},
		{"config", "[core]\n\tbare = false # fsmonitor\n", false},
		{"config", "[core]\n\tbare = \"false\"\n", false},
		{"config", "[core]\n\tbare = fal\\\nse\n", false},
		{"config", "[core.x]\n\tbare = false\n", false},
		{"config", "bare = false\n", false},
		{"config", "[core]\n\tfilemode = maybe\n", false},
		{"todo", "pick 1234567 one\npick 89abcde two\n# exec make is a comment\n", true},
		{"todo", "pick 1234567 one\nexec touch /tmp/pwned\n", false},
		{"todo", "pick 1234567 one\n  x touch /tmp/pwned\n", false},
		{"hooks", "", false},
	} {
		err := CheckGitFile(c.what, []byte(c.content))
		if (err == nil) != c.ok {
			t.Errorf("CheckGitFile(%s, %q) = %v, want ok %v", c.what, c.content, err, c.ok)
		}
	}
}

// TestFoldName: the names a case-folding file system gives one file fold alike.
func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{
		"AGENTS.md": "agents.md", "AGENTſ.md": "agents.md", "\u212Aey": "key", ".Git": ".git",
		".git.": ".git", ".git ": ".git", ".g\u200dit": ".git", "\ufeff.envrc": ".envrc", "ẞ": "ss",
		"bunﬁg.toml": "bunfig.toml", ".proﬁle": ".profile", ".pnpmﬁle.cjs": ".pnpmfile.cjs", ".git/conﬁg": ".git/config",
	} {
		if got := foldName(in); got != want {
			t.Errorf("foldName(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.EqualFold("ſ", "s") {
		t.Fatal("Go's folding changed")
	}
}
