package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestPlaceOf: where a lock entry's source is, by its text alone, whatever the spelling.
func TestPlaceOf(t *testing.T) {
	why := func(p sourcePlace) bool { return p.Why != "" }
	for _, c := range []struct {
		typ, src string
		want     sourcePlace
		refused  bool
	}{
		{"local", "inside", sourcePlace{Path: "inside"}, false},
		{"local", "/abs/ext", sourcePlace{Path: "/abs/ext"}, false},
		{"local", "../up", sourcePlace{Path: "../up"}, false},
		{"local", "https://host/x.tar.gz", sourcePlace{Remote: true}, false},
		{"local", "HTTP://host/x.zip?t=1", sourcePlace{Remote: true}, false},
		{"local", "x://../../../home/.gemini/extensions/github", sourcePlace{}, true},
		{"local", "file:///home/u/.gemini/extensions/github", sourcePlace{}, true},
		{"local", "https://host/folder", sourcePlace{}, true},
		{"git", "https://host/r.git", sourcePlace{Remote: true}, false},
		{"git", "ssh://git@host/r", sourcePlace{Remote: true}, false},
		{"git", "git://host/r", sourcePlace{Remote: true}, false},
		{"git", "git@github.com:o/r.git", sourcePlace{Remote: true}, false},
		{"git", "https://host/mono.git//exts/a@v1", sourcePlace{Remote: true}, false},
		{"git", "file:///srv/r", sourcePlace{Path: "/srv/r", Head: "file://"}, false},
		{"git", "file://localhost/srv/r//exts/a", sourcePlace{Path: "/srv/r", Head: "file://", Tail: "//exts/a"}, false},
		{"git", "file://otherhost/srv/r", sourcePlace{}, true},
		{"git", "/home/u/.gemini/extensions/github", sourcePlace{Path: "/home/u/.gemini/extensions/github"}, false},
		{"git", "sub/r.git//exts/a@v2", sourcePlace{Path: "sub/r.git", Tail: "//exts/a@v2"}, false},
		{"git", "ext::sh -c touch% /tmp/x", sourcePlace{}, true},
		{"git", "fd::17", sourcePlace{}, true},
		{"git", "x://../../home", sourcePlace{}, true},
		{"git", "--upload-pack=touch /tmp/x", sourcePlace{}, true},
		{"github-release", "https://github.com/o/r", sourcePlace{Remote: true}, false},
		{"oci", "oci://host/r", sourcePlace{Remote: true}, false},
		{"marketplace", "p@m", sourcePlace{Remote: true}, false},
	} {
		got := placeOf(&lockfile.Entry{Type: c.typ, Source: c.src})
		if why(got) != c.refused || (!c.refused && got != c.want) {
			t.Errorf("placeOf(%s %q) = %+v; want %+v (refused %v)", c.typ, c.src, got, c.want, c.refused)
		}
	}
}

// TestLockEntryUsersOwn: a project's lock never names the user's own folders, even from
// inside the project (a project that holds them), nor through a link; a folder of the
// project is spelled as the folder it really is.
func TestLockEntryUsersOwn(t *testing.T) {
	env := registrytest.Env(t, nil)
	env.GemHome = filepath.Join(env.Cwd, "state") // a project that holds gem's state
	for _, d := range []string{"state/extensions/x", "ext", ".gemini/extensions/y"} {
		os.MkdirAll(filepath.Join(env.Cwd, d), 0o755)
	}
	os.MkdirAll(env.GeminiExtensionsDir(), 0o755)
	os.Symlink(env.GeminiExtensionsDir(), filepath.Join(env.Cwd, "link"))
	in := &Installer{Env: env}
	for _, c := range []struct {
		typ, src, want string
	}{
		{"local", "ext", filepath.Join(env.Cwd, "ext")},
		{"local", filepath.Join(env.Cwd, "ext"), filepath.Join(env.Cwd, "ext")},
		{"git", "ext//sub@v1", filepath.Join(env.Cwd, "ext") + "//sub@v1"},
		{"git", "file://" + filepath.Join(env.Cwd, "ext"), "file://" + filepath.Join(env.Cwd, "ext")},
		{"local", "state/extensions/x", ""},
		{"git", "file://" + filepath.Join(env.Cwd, "state"), ""},
		{"local", "link", ""},
		{"local", "../", ""},
		{"local", "missing", ""},
		{"local", "x://../../..", ""},
	} {
		got, err := in.lockEntry(registry.LevelProject, "n", &lockfile.Entry{Type: c.typ, Source: c.src})
		var le *LocalSourceError
		switch {
		case c.want == "" && !errors.As(err, &le):
			t.Errorf("lockEntry(%s %q) = %v, %v; want a *LocalSourceError", c.typ, c.src, got, err)
		case c.want != "" && (err != nil || got.Source != c.want):
			t.Errorf("lockEntry(%s %q) = %v, %v; want source %s", c.typ, c.src, got, err, c.want)
		}
	}
	// The user's own lock is the user's: not checked.
	if _, err := in.lockEntry(registry.LevelUser, "n", &lockfile.Entry{Type: "local", Source: "/anywhere"}); err != nil {
		t.Errorf("user scope: %v", err)
	}
}

// TestSyncAsksBeforeFetching: a lock's sources are fetched only once the user agreed, and a
// project's lock only in a trusted folder; nobody to ask, nothing is fetched.
func TestSyncAsksBeforeFetching(t *testing.T) {
	env := registrytest.Env(t, nil)
	lock := &lockfile.File{LockVersion: 1, Extensions: map[string]*lockfile.Entry{"x": {Source: "https://host.invalid/x.git", Type: "git"}}}
	sources := &countingSources{}
	refuse := &prompt.Refuse{Why: prompt.NotAskedError{Reason: prompt.NoTerminal, Flag: "--consent", Verb: "agree"}}
	for _, c := range []struct {
		name    string
		scope   registry.Level
		trusted bool
		ask     prompt.Prompter
		want    any
	}{
		{"untrusted project", registry.LevelProject, false, yes{}, new(*UntrustedLockError)},
		{"nobody to ask", registry.LevelProject, true, refuse, new(*prompt.NotAskedError)},
		{"declined", registry.LevelUser, false, no{}, &ErrDeclined},
		{"user's lock, nobody to ask", registry.LevelUser, false, refuse, new(*prompt.NotAskedError)},
	} {
		level := registry.TrustLevel("")
		if c.trusted {
			level = registry.TrustFolder
		}
		if err := registry.SetFolderTrust(env, env.Cwd, level); err != nil {
			t.Fatal(err)
		}
		in := &Installer{Env: env, Sources: sources, Prompt: c.ask}
		_, err := in.Sync(context.Background(), lock, SyncOptions{Scope: c.scope})
		ok := false
		switch w := c.want.(type) {
		case **UntrustedLockError:
			ok = errors.As(err, w)
		case **prompt.NotAskedError:
			ok = errors.As(err, w)
		case *error:
			ok = errors.Is(err, *w)
		}
		if !ok {
			t.Errorf("%s: Sync = %v; want %T", c.name, err, c.want)
		}
		if sources.n != 0 {
			t.Fatalf("%s: %d source(s) resolved before the user agreed", c.name, sources.n)
		}
	}
}

// countingSources counts the sources resolved for fetching (none may be, here).
type countingSources struct{ n int }

func (s *countingSources) Parse(string, Options) (Source, error) {
	s.n++
	return nil, errors.New("not fetched in this test")
}

func (s *countingSources) Installed(registry.InstallMetadata) (Source, error) {
	s.n++
	return nil, errors.New("not fetched in this test")
}

type no struct{}

func (no) Confirm(context.Context, prompt.Question) (bool, error)            { return false, nil }
func (no) Choose(context.Context, string, []prompt.Choice, int) (int, error) { return 0, nil }
func (no) Input(context.Context, string) (string, error)                     { return "", nil }
func (no) CanPrompt() bool                                                   { return true }
