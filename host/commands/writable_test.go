package commands

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestProgramWritableFromTheIndex: the folders programs may write, read from the index of the
// consent records once it is written, still hold every consent's write root and every
// extension's folder; a consent recorded after the index was written counts at once.
func TestProgramWritableFromTheIndex(t *testing.T) {
	env := registrytest.Env(t, nil)
	for _, name := range []string{"a", "b"} {
		registrytest.Extension(t, env, name, `{"name": "`+name+`", "version": "1.0.0"}`, nil)
	}
	home := env.Home
	consent := func(name, write string) {
		t.Helper()
		x := registry.Discover(env, registry.Providers).Find(name)
		if err := registry.RecordConsent(env, x, registry.Grant{Write: []string{write}}); err != nil {
			t.Fatal(err)
		}
	}
	consent("a", filepath.Join(home, "scratch"))
	time.Sleep(2100 * time.Millisecond) // older than the racy window: the index is written
	probes := []struct {
		dir      string
		writable bool
	}{
		{filepath.Join(home, "scratch/bin"), true},              // a's consent lets it write there
		{filepath.Join(home, ".gemini/extensions/b/bin"), true}, // an extension's own folder
		{filepath.Join(home, "other/bin"), false},               // nobody's, until b's consent
		{filepath.Join(home, "tools/bin"), false},               // the user's own
	}
	check := func(look string, otherWritable bool) {
		t.Helper()
		writable := programWritable(env, env.Cwd, nil)
		for _, p := range probes {
			want := p.writable || (otherWritable && p.dir == filepath.Join(home, "other/bin"))
			if got := pathIn(p.dir, writable); got != want {
				t.Errorf("%s: %s writable %v, want %v (%q)", look, p.dir, got, want, writable)
			}
		}
	}
	check("from the records", false)
	if _, err := os.Stat(env.ConsentWritesFile()); err != nil {
		t.Fatalf("the index was not written: %v", err)
	}
	check("from the index", false)
	consent("b", filepath.Join(home, "other"))
	check("after b's consent", true)
}

// TestRealPaths: realPaths answers what filepath.EvalSymlinks does, for folders side by side,
// a link among them, folders below a linked parent, a link to a link, and paths that do not
// exist or are relative.
func TestRealPaths(t *testing.T) {
	base := testhome.Dir(t, "realpaths-")
	for _, d := range []string{"root/a", "root/b", "elsewhere/c", "dotfiles/exts/d"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	os.Symlink(filepath.Join(base, "elsewhere/c"), filepath.Join(base, "root/c"))
	os.Symlink(filepath.Join(base, "root/c"), filepath.Join(base, "root/cc"))
	os.Symlink(filepath.Join(base, "dotfiles/exts"), filepath.Join(base, "linked"))
	r := realPaths{}
	for _, p := range []string{"root/a", "root/b", "root/c", "root/cc", "linked/d", "linked", "root/missing", "missing/x"} {
		p = filepath.Join(base, p)
		for range 2 { // the second time from what it remembers
			got, gerr := r.of(p)
			want, werr := filepath.EvalSymlinks(p)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Errorf("%s: %q, %v; EvalSymlinks: %q, %v", p, got, gerr, want, werr)
			}
		}
	}
	if got, err := r.of("rel/x"); err == nil || got != "" {
		t.Errorf("a relative path: %q, %v", got, err)
	}
}
