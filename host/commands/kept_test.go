package commands

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestKeptFrom: what a write grant covers of ~/.gemini, gem's home and extension folders
// stays read-only; the program's own data folder, and its own folder when granted by name,
// are rebound writable; a grant elsewhere changes nothing.
func TestKeptFrom(t *testing.T) {
	env := registrytest.Env(t, nil)
	dir := registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
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

// TestHomeIsNotGranted: a grant (or a manifest's sandbox.write) of the home folder, or of a
// folder holding it, stops the program before it starts; a folder inside the home does not.
func TestHomeIsNotGranted(t *testing.T) {
	env := registrytest.Env(t, nil)
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	for _, tc := range []struct {
		write string
		err   bool
	}{
		{env.Home, true},
		{filepath.Dir(env.Home), true},
		{"/", true},
		{filepath.Join(env.Home, "notes"), false},
	} {
		if err := registry.SetGrant(env, "tool", registry.Grant{Write: []string{tc.write}, For: registry.TargetOf(x)}); err != nil {
			t.Fatal(err)
		}
		_, err := Isolation(env, x, env.Cwd, manifest.HostPlatforms(env.Getenv)[0], "")
		var he *HomeWriteError
		if got := errors.As(err, &he); got != tc.err {
			t.Errorf("write %s: %v, want a HomeWriteError: %v", tc.write, err, tc.err)
		}
	}
}

// TestKeptFromLinks: a protected folder that is a link is protected where it leads too.
func TestKeptFromLinks(t *testing.T) {
	env := registrytest.Env(t, nil)
	real := filepath.Join(env.Home, "dotfiles", "gemini")
	os.MkdirAll(real, 0o755)
	os.RemoveAll(env.GeminiDir())
	if err := os.Symlink(real, env.GeminiDir()); err != nil {
		t.Fatal(err)
	}
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	protect, _ := keptFrom(env, x, []string{filepath.Join(env.Home, "dotfiles")}, filepath.Join(env.GemHome, "data", "tool"))
	if !slices.Contains(protect, real) {
		t.Fatalf("protect %q, want the link's target %s", protect, real)
	}
}

// TestKeptFromInside: a grant inside ~/.gemini or gem's home — another extension's folder,
// its data, gem's receipts — stays read-only; the program's own data folder does not.
func TestKeptFromInside(t *testing.T) {
	env := registrytest.Env(t, nil)
	other := registrytest.Extension(t, env, "other", `{"name": "other", "version": "1.0.0"}`, nil)
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	data := filepath.Join(env.GemHome, "data", "tool")
	for _, w := range []string{other, filepath.Join(env.GemHome, "data", "other"), filepath.Join(env.GemHome, "receipts")} {
		if protect, _ := keptFrom(env, x, []string{w}, data); !slices.Contains(protect, w) {
			t.Errorf("a grant of %s: protect %q", w, protect)
		}
	}
	if protect, _ := keptFrom(env, x, []string{filepath.Join(data, "cache")}, data); len(protect) != 0 {
		t.Errorf("its own data: protect %q", protect)
	}
}
