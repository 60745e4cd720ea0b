package commands

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gemhost/gem/internal/fsx"
)

// What the user's git says for the git capability (gitConfig) is kept in
// $GEM_HOME/cache/gitconfig/<key>, beside the identity (device, inode, owner, mode, size,
// times) of every file git could have read it from: the system's and the user's config
// files, and at the workspace root and each folder above it, .git, .git/config,
// .git/config.worktree and a bare repository's HEAD and config. Starting git costs ≈ 2 ms,
// most of gem run's own path before its program can start; checking the identities costs a
// few dozen stats. The record is used only while every one of them is unchanged (an edit, a
// new repository, a chown all change one), for the same git, root and environment given to
// git. Nothing is kept when the answer could depend on more than these files: a config
// file that includes another (include, includeIf: conditions on the branch, the remote), a
// .git file pointing elsewhere, GIT_DIR, or a file changed within the last two seconds (an
// edit in the same clock tick could leave its times as they were).

// gitRacyWindow: a file changed this recently is not trusted to change its times again.
var gitRacyWindow = 2 * time.Second

// gitConfigCached is gitConfig, answered from the record in cache when the files it came
// from are unchanged; cache "" asks git every time.
func gitConfigCached(cache, git, root string, genv []string) map[string]string {
	if cache == "" {
		return runGitConfig(git, root, genv)
	}
	watch, ok := gitWatchList(git, root, genv)
	if !ok {
		return runGitConfig(git, root, genv)
	}
	key := gitRecordKey(git, root, genv, watch)
	if data, err := os.ReadFile(cache); err == nil {
		if head, body, found := strings.Cut(string(data), "\n\n"); found && head == key {
			return parseGitConfig(body)
		}
	}
	out := runGitConfigOutput(git, root, genv)
	if gitRecordKey(git, root, genv, watch) == key && gitCacheable(watch) {
		if os.MkdirAll(filepath.Dir(cache), 0o700) == nil {
			fsx.WriteFileAtomic(cache, []byte(key+"\n\n"+out), 0o600)
		}
	}
	return parseGitConfig(out)
}

// gitWatchList is every file and folder whose change could change what git config in root
// answers (see above); ok is false when more could (GIT_DIR, a .git file).
func gitWatchList(git, root string, genv []string) (watch []string, ok bool) {
	get := func(k string) string {
		for i := len(genv) - 1; i >= 0; i-- {
			if key, v, found := strings.Cut(genv[i], "="); found && key == k {
				return v
			}
		}
		return ""
	}
	if get("GIT_DIR") != "" || get("GIT_COMMON_DIR") != "" {
		return nil, false
	}
	real := git
	if r, err := filepath.EvalSymlinks(git); err == nil {
		real = r
	}
	// The system's file: /etc/gitconfig for a git in /usr, else under its prefix.
	watch = append(watch, real, "/etc/gitconfig", filepath.Join(filepath.Dir(filepath.Dir(real)), "etc", "gitconfig"))
	if p := get("GIT_CONFIG_SYSTEM"); p != "" {
		watch = append(watch, p)
	}
	home := get("HOME")
	if p := get("GIT_CONFIG_GLOBAL"); p != "" {
		watch = append(watch, p)
	}
	if x := get("XDG_CONFIG_HOME"); x != "" {
		watch = append(watch, filepath.Join(x, "git", "config"))
	}
	if home != "" {
		watch = append(watch, filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	for d := filepath.Clean(root); ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		watch = append(watch, dotgit, filepath.Join(d, "HEAD"), filepath.Join(d, "config"))
		if fi, err := os.Lstat(dotgit); err == nil {
			if !fi.IsDir() {
				return nil, false // a worktree's or submodule's .git file
			}
			return append(watch, filepath.Join(dotgit, "config"), filepath.Join(dotgit, "config.worktree")), true
		}
		if d == filepath.Dir(d) {
			return watch, true
		}
	}
}

// gitRecordKey is what a record is valid for: the git, root and environment, and each
// watched name's identity ("-" when absent). A folder's times are left out (a .git folder's
// change with every git command), its identity and owner kept.
func gitRecordKey(git, root string, genv []string, watch []string) string {
	env := append([]string{}, genv...)
	sort.Strings(env)
	var b strings.Builder
	fmt.Fprintf(&b, "git %q\nroot %q\nenv %q\n", git, root, env)
	for _, p := range watch {
		fmt.Fprintf(&b, "%q %s\n", p, fileIdentity(p))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func fileIdentity(p string) string {
	var st syscall.Stat_t
	stat := syscall.Stat
	if filepath.Base(p) == ".git" {
		stat = syscall.Lstat
	}
	if err := stat(p, &st); err != nil {
		if err == syscall.ENOENT || err == syscall.ENOTDIR {
			return "-"
		}
		return "? " + err.Error()
	}
	id := fmt.Sprintf("%d %d %d %o", st.Dev, st.Ino, st.Uid, st.Mode)
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return id
	}
	return fmt.Sprintf("%s %d %s", id, st.Size, fileTimes(&st))
}

// gitCacheable reports whether the watched files (gitWatchList's: the git binary first)
// allow keeping the answer: none includes another, none changed within gitRacyWindow, none
// unreadable.
func gitCacheable(watch []string) bool {
	recent := time.Now().Add(-gitRacyWindow)
	for i, p := range watch {
		fi, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) || strings.Contains(err.Error(), "not a directory") {
				continue
			}
			return false
		}
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil || statChanged(&st).After(recent) {
			return false
		}
		if i == 0 || fi.IsDir() || filepath.Base(p) == "HEAD" {
			continue // the git binary (first), folders, a HEAD: no configuration in them
		}
		data, err := os.ReadFile(p)
		if err != nil || bytes.Contains(bytes.ToLower(data), []byte("include")) {
			return false
		}
	}
	return true
}
