package commands

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestCachesAsOverlays: where programs get namespaces, a launcher cache the program may write
// becomes an overlay of its own (read as it is, written elsewhere); a cache reached through a
// link, and every write that is not a launcher cache, stay as they were.
func TestCachesAsOverlays(t *testing.T) {
	if ok, _ := sandbox.Namespaces(); !ok {
		t.Skip("no namespaces here: caches are written directly")
	}
	env := registrytest.Env(t, nil)
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	npm, uv, bun := filepath.Join(env.Home, ".npm"), filepath.Join(env.Home, ".cache", "uv"), filepath.Join(env.Home, ".bun", "install", "cache")
	elsewhere := testhome.Dir(t, "bun-cache-")
	os.MkdirAll(npm, 0o755)
	os.MkdirAll(uv, 0o755)
	os.MkdirAll(filepath.Dir(bun), 0o755)
	if err := os.Symlink(elsewhere, bun); err != nil {
		t.Fatal(err)
	}
	notes, data := filepath.Join(env.Home, "notes"), filepath.Join(env.GemHome, "data", "tool")
	for _, tc := range []struct {
		name      string
		spec      ProgramSpec
		write     []string
		overlays  []string // lowers
		keptWrite []string
	}{
		{"an MCP server's npm and uv caches", ProgramSpec{Server: "srv"}, []string{data, npm, uv}, []string{npm, uv}, []string{data}},
		{"a hook's npm cache", ProgramSpec{}, []string{npm}, []string{npm}, nil},
		{"a cache through a link", ProgramSpec{Server: "srv"}, []string{bun}, nil, []string{bun}},
		{"a granted folder that is no cache", ProgramSpec{Plugin: "p"}, []string{notes}, nil, []string{notes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := &sandbox.Policy{Write: slices.Clone(tc.write)}
			cachesAsOverlays(env, x, tc.spec, pol)
			if !slices.Equal(pol.Write, tc.keptWrite) {
				t.Errorf("write %q, want %q", pol.Write, tc.keptWrite)
			}
			var lowers []string
			for _, o := range pol.Overlays {
				lowers = append(lowers, o.Lower)
				if !slices.Contains(pol.Read, o.Lower) {
					t.Errorf("%s is not readable (kept in the view)", o.Lower)
				}
				if rel, err := filepath.Rel(env.OverlayDir("tool"), o.Upper); err != nil || filepath.IsAbs(rel) || rel[0] == '.' {
					t.Errorf("upper %s is not in the extension's overlay folder", o.Upper)
				}
			}
			if !slices.Equal(lowers, tc.overlays) {
				t.Errorf("overlays on %q, want %q", lowers, tc.overlays)
			}
		})
	}
	// A cache's overlay is never another program's overlay of the extension's folder, whatever
	// the servers are named (server "srv"'s npm cache, server "srv-cache-npm"'s own writes).
	pol := &sandbox.Policy{Write: []string{npm}}
	cachesAsOverlays(env, x, ProgramSpec{Server: "srv"}, pol)
	own, err := sandbox.OverlayDirs(env.OverlayDir("tool"), overlayName(ProgramSpec{Server: "srv-cache-npm"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(pol.Overlays) != 1 || pol.Overlays[0].Upper == own.Upper {
		t.Errorf("the npm cache's overlay %v shares a folder with another server's own overlay %s", pol.Overlays, own.Upper)
	}
}
