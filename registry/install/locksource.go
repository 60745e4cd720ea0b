package install

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// A project's gem.lock comes with the project, from whoever wrote it: it may name sources
// on the network, or folders and archives inside the project, and nothing else of this
// machine, whatever the spelling (../, an absolute path, a link, file://, a scheme nobody
// fetches from such as x://../.., which cleans to a path). Nothing in the user's own folders
// (~/.gemini, whose extensions keep the user's tokens in their .env, and $GEM_HOME) is ever
// copied into a project, even from inside it. A local path is fetched from the folder it
// really is, the one checked (not from a spelling relative to wherever gem was started).

// sourcePlace is where a lock entry's source is, from its text alone.
type sourcePlace struct {
	Remote bool   // fetched over the network
	Path   string // else a path on this machine, as written (relative: to the project)
	// Head and Tail are the source's text around Path (file://, //sub@ref): the source is
	// Head + the folder Path really is + Tail.
	Head, Tail string
	Why        string // the source is refused: what a source of its type may be
}

var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// remoteGitSchemes are the URL schemes of git sources gem fetches from over the network.
var remoteGitSchemes = map[string]bool{"https": true, "http": true, "ssh": true, "git": true}

// scpLike is git's host:path form (git@github.com:owner/repo): a colon before any slash.
var scpLike = regexp.MustCompile(`^[^/:]+:`)

// placeOf says where e's source is; a source of a type gem cannot place is remote (its
// fetch says what it is).
func placeOf(e *lockfile.Entry) sourcePlace {
	src := e.Source
	switch e.Type {
	case "local":
		m := schemeRE.FindStringSubmatch(src)
		switch {
		case m == nil:
			return sourcePlace{Path: src}
		case (strings.EqualFold(m[1], "https") || strings.EqualFold(m[1], "http")) && IsArchive(strings.SplitN(src, "?", 2)[0]):
			return sourcePlace{Remote: true}
		}
		return sourcePlace{Why: "a local source is a path inside the project, or an http(s) archive URL"}
	case "git":
		repo, tail := src, ""
		if r, _, _, ok := SplitSubfolder(src); ok {
			repo, tail = r, src[len(r):]
		}
		const why = "a git source is a URL of a remote repository (https, http, ssh, git, or host:path), or a repository inside the project"
		if strings.Contains(repo, "::") || strings.HasPrefix(repo, "-") {
			return sourcePlace{Why: why} // a remote helper (ext::…) or an option, not a place
		}
		if m := schemeRE.FindStringSubmatch(repo); m != nil {
			scheme := strings.ToLower(m[1])
			if remoteGitSchemes[scheme] {
				return sourcePlace{Remote: true}
			}
			u, err := url.Parse(repo)
			if scheme != "file" || err != nil || (u.Host != "" && u.Host != "localhost") {
				return sourcePlace{Why: why}
			}
			return sourcePlace{Path: u.Path, Head: "file://", Tail: tail}
		}
		if scpLike.MatchString(repo) {
			return sourcePlace{Remote: true}
		}
		return sourcePlace{Path: repo, Tail: tail}
	}
	return sourcePlace{Remote: true}
}

// LocalSourceError is a project's gem.lock naming a source gem will not fetch for it: a
// path outside the project or in the user's own folders, or a spelling that is neither a
// path inside the project nor a remote source (Why).
type LocalSourceError struct{ Name, Source, Project, Why string }

func (e *LocalSourceError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("%s: the project's gem.lock names %s: %s", e.Name, e.Source, e.Why)
	}
	return fmt.Sprintf("%s: the project's gem.lock names %s, which is outside the project (%s): a project's lock may name local folders and archives inside it only", e.Name, e.Source, e.Project)
}

// checkedEntries are the entries of f, scope's lock, that a fetch uses (names; nil: every
// one), as it may use them: a project's lock only in a trusted folder (*UntrustedLockError;
// not for a bundle's own lock being installed: bundled), each only a source that lock may
// name (lockEntry). The one check before a lock's sources are fetched (sync, install
// --locked, bundle); the question comes after it (agreeToFetch).
func (in *Installer) checkedEntries(scope registry.Level, f *lockfile.File, names []string, bundled bool) (map[string]*lockfile.Entry, error) {
	if scope == registry.LevelProject && !bundled {
		if err := in.checkLockTrust(); err != nil {
			return nil, err
		}
	}
	if names == nil {
		names = f.Names()
	}
	out := map[string]*lockfile.Entry{}
	for _, name := range names {
		e, err := in.lockEntry(scope, name, f.Extensions[name])
		if err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, nil
}

// lockEntry is e as a fetch of scope's lock may use it: for a project's lock, refused
// unless it is remote or inside the project (and not in the user's own folders), its local
// path spelled as the folder it really is.
func (in *Installer) lockEntry(scope registry.Level, name string, e *lockfile.Entry) (*lockfile.Entry, error) {
	if scope != registry.LevelProject {
		return e, nil
	}
	p := placeOf(e)
	switch {
	case p.Why != "":
		return nil, &LocalSourceError{Name: name, Source: e.Source, Why: p.Why}
	case p.Remote:
		return e, nil
	}
	project := pathx.Real(filepath.Dir(in.LockPath(registry.LevelProject)))
	path := p.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(project, path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, &LocalSourceError{Name: name, Source: e.Source, Project: project, Why: "there is no such folder or archive in the project"}
	}
	if !pathx.Within(project, real) || in.usersOwn(real) {
		return nil, &LocalSourceError{Name: name, Source: e.Source, Project: project}
	}
	out := *e
	out.Source = p.Head + real + p.Tail
	return &out, nil
}

// usersOwn reports whether path is in the user's own folders: ~/.gemini, $GEM_HOME and
// every provider's user extensions root.
func (in *Installer) usersOwn(path string) bool {
	own := []string{in.Env.GeminiDir(), in.Env.GemHome}
	for _, p := range registry.Providers {
		for _, r := range p.Roots {
			if r.Level == registry.LevelUser {
				own = append(own, in.Env.Dir(r))
			}
		}
	}
	for _, dir := range own {
		if pathx.Within(pathx.Real(dir), path) {
			return true
		}
	}
	return false
}

// UntrustedLockError is a project's gem.lock in a folder the user has not trusted: nothing
// it names is fetched (the fetch alone tells the lock's author who uses the project, and
// from where).
type UntrustedLockError struct{ Lock, Folder string }

func (e *UntrustedLockError) Error() string {
	return fmt.Sprintf("%s is not trusted, so nothing its gem.lock (%s) names is fetched", e.Folder, e.Lock)
}

// checkLockTrust refuses to fetch for the project's lock unless the project is trusted.
func (in *Installer) checkLockTrust() error {
	lock := in.LockPath(registry.LevelProject)
	if dir := filepath.Dir(lock); !in.Env.FolderTrusted(dir) {
		return &UntrustedLockError{Lock: lock, Folder: dir}
	}
	return nil
}

// FetchQuestion is what gem asks before fetching the sources a lock names (names: those
// to fetch): the sources, then whether to fetch them.
func FetchQuestion(lock string, names []string, entries map[string]*lockfile.Entry) prompt.Question {
	var b strings.Builder
	fmt.Fprintf(&b, "%s names these sources to fetch (each extension's consent is asked once it is fetched):\n", lock)
	for _, n := range names {
		fmt.Fprintf(&b, "  %s: %s (%s)\n", n, WithoutPassword(entries[n].Source), entries[n].Type)
	}
	b.WriteString("Fetch them?")
	return prompt.Question{Text: b.String(), Default: true}
}

// agreeToFetch asks the user whether to fetch what lock names: nil when they agreed.
func (in *Installer) agreeToFetch(ctx context.Context, lock string, names []string, entries map[string]*lockfile.Entry) error {
	ok, err := in.Prompt.Confirm(ctx, FetchQuestion(lock, names, entries))
	if err != nil {
		return fmt.Errorf("cannot ask whether to fetch what %s names: %w", lock, err)
	}
	if !ok {
		return ErrDeclined
	}
	return nil
}
