package commands

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
)

// TestKeptFrom: what a write grant covers of ~/.gemini, gem's home and extension folders
// stays read-only; the program's own data folder, and its own folder when granted by name,
// are rebound writable; a grant elsewhere changes nothing.
func TestKeptFrom(t *testing.T) {
	env := testhome.Env(t, nil)
	dir := testhome.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	if x == nil {
		t.Fatal("tool not discovered")
	}
	data := filepath.Join(env.GemHome, "data", "tool")
	gemini := env.GeminiDir()
	for _, tc := range []struct {
		name            string
		writes          []string
		protect, rebind []string
	}{
		{"no grant", nil, nil, nil},
		{"a folder elsewhere", []string{filepath.Join(env.Home, "notes")}, nil, nil},
		{"its own cache", []string{filepath.Join(dir, "cache")}, nil, nil},
		{"the home folder", []string{env.Home}, []string{gemini, env.GemHome}, []string{data}},
		{"the home folder and its own folder by name", []string{env.Home, dir}, []string{gemini, env.GemHome}, []string{dir, data}},
		{"gem's home itself", []string{env.GemHome}, []string{env.GemHome}, []string{data}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			protect, rebind := keptFrom(env, x, tc.writes, data)
			slices.Sort(protect)
			slices.Sort(rebind)
			want := slices.Clone(tc.protect)
			slices.Sort(want)
			wantRebind := slices.Clone(tc.rebind)
			slices.Sort(wantRebind)
			if !slices.Equal(protect, want) || !slices.Equal(rebind, wantRebind) {
				t.Fatalf("protect %q rebind %q, want %q %q", protect, rebind, want, wantRebind)
			}
		})
	}
}
