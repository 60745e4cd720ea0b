package commands

import (
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
