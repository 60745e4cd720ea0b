package commands

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestIsolationCarriesWriteRootIdentities: a manifest's read and write roots reach the sandbox with
// their identities, which the helper compares again on the folder it opens: as agreed to, and
// for a path in the workspace as gem's check finds it at this start (a folder swapped for a link
// between the check and the helper is refused: sandbox_paths.txtar); one absent is
// sandbox.RootAbsent.
func TestIsolationCarriesWriteRootIdentities(t *testing.T) {
	env := registrytest.Env(t, nil)
	notes := filepath.Join(env.Home, "notes")
	docs := filepath.Join(env.Home, "docs")
	for _, d := range []string{notes, docs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0", "sandbox": {"read": ["`+docs+`"], "write": ["`+notes+`", "${workspacePath}", "${workspacePath}/not-yet"]}}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	if x == nil {
		t.Fatal("tool not discovered")
	}
	if err := registry.RecordConsent(env, x, registry.Grant{}); err != nil {
		t.Fatal(err)
	}
	pol, err := Isolation(env, x, env.Cwd, manifest.HostPlatforms(env.Getenv)[0], "")
	if err != nil {
		t.Fatal(err)
	}
	real := pathx.Real(notes)
	if got, want := pol.WriteIDs[real], registry.FileStamp(real); got == "" || got != want {
		t.Errorf("identity of %s: %q, want %q (all: %v)", real, got, want, pol.WriteIDs)
	}
	ws := env.Cwd
	if got, want := pol.WriteIDs[ws], registry.FileStamp(ws); len(pol.WriteIDs) != 3 || got == "" || got != want || pol.WriteIDs[filepath.Join(ws, "not-yet")] != sandbox.RootAbsent {
		t.Errorf("identities %v, want the notes folder's, the workspace's (%s) and %s for one absent", pol.WriteIDs, want, sandbox.RootAbsent)
	}
	if real := pathx.Real(docs); len(pol.ReadIDs) != 1 || pol.ReadIDs[real] != registry.FileStamp(real) {
		t.Errorf("read identities %v, want the docs folder's (%s) alone", pol.ReadIDs, registry.FileStamp(real))
	}
}

// TestIsolationCarriesGrantIdentities: the folders the user granted (gem ext grant) reach the
// sandbox by their real paths with their identities, as a manifest's roots do (one absent is
// sandbox.RootAbsent); a grant recorded without them (an older gem's) gets them at its first
// use, kept in grants.json; a granted folder swapped for a link to ~/.ssh stops the start.
func TestIsolationCarriesGrantIdentities(t *testing.T) {
	env := registrytest.Env(t, nil)
	cache, docs, later := filepath.Join(env.Home, "cache"), filepath.Join(env.Home, "docs"), filepath.Join(env.Home, "later")
	for _, d := range []string{cache, docs, filepath.Join(env.Home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	if x == nil {
		t.Fatal("tool not discovered")
	}
	// An older record: paths without roots.
	if err := registry.SetGrant(env, "tool", registry.Grant{Read: []string{docs}, Write: []string{cache, later}, For: registry.TargetOf(x)}); err != nil {
		t.Fatal(err)
	}
	pol, err := Isolation(env, x, env.Cwd, manifest.HostPlatforms(env.Getenv)[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if pol.WriteIDs[cache] != registry.FileStamp(cache) || pol.WriteIDs[later] != sandbox.RootAbsent || pol.ReadIDs[docs] != registry.FileStamp(docs) {
		t.Errorf("identities: write %v, read %v; want %s's and %s absent, and %s's", pol.WriteIDs, pol.ReadIDs, cache, later, docs)
	}
	if g, _, _ := registry.GrantFor(env, x); len(g.Roots) != 3 {
		t.Errorf("recorded roots %+v, want the three paths' at first use", g.Roots)
	}
	if err := os.Rename(cache, cache+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(env.Home, ".ssh"), cache); err != nil {
		t.Fatal(err)
	}
	_, err = Isolation(env, x, env.Cwd, manifest.HostPlatforms(env.Getenv)[0], "")
	var changed *registry.RootChangedError
	if !errors.As(err, &changed) {
		t.Errorf("start with %s swapped for a link to ~/.ssh: %v, want a RootChangedError", cache, err)
	}
}
