package registry_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestClassify: where a real path leads, from the places alone.
func TestClassify(t *testing.T) {
	p := registry.Places{
		Own:       []string{"/h/.gemini/extensions/x", "/h/.gem/data/x"},
		Workspace: "/h/proj",
		Secrets:   []string{"/h/.ssh", "/h/.gemini", "/h/.gem", "/h/exts/other", "/h/.config/git/credentials"},
		Startup:   []string{"/h/.bashrc", "/h/.local/bin", "/h/.config/git"},
	}
	for _, tc := range []struct {
		real   string
		kind   registry.RootKind
		secret string
	}{
		{"/h/.gemini/extensions/x/cache", registry.RootOwn, ""},
		{"/h/.gemini/extensions/x", registry.RootOwn, ""},
		{"/h/.gem/data/x/db", registry.RootOwn, ""},
		{"/h/.ssh", registry.RootSecret, "/h/.ssh"},
		{"/h/.ssh/id_rsa", registry.RootSecret, "/h/.ssh"},
		{"/h", registry.RootSecret, "/h/.ssh"},                       // holds it
		{"/", registry.RootSecret, "/h/.ssh"},                        // holds it
		{"/h/.gemini/extensions", registry.RootSecret, "/h/.gemini"}, // beside its own: the others'
		{"/h/.gem/data", registry.RootSecret, "/h/.gem"},
		{"/h/exts/other/bin", registry.RootSecret, "/h/exts/other"},
		{"/h/exts", registry.RootSecret, "/h/exts/other"},
		{"/h/.bashrc", registry.RootStartup, "/h/.bashrc"},
		{"/h/.local/bin/tool", registry.RootStartup, "/h/.local/bin"},
		{"/h/.local", registry.RootStartup, "/h/.local/bin"},                  // holds it
		{"/h/.config/git", registry.RootSecret, "/h/.config/git/credentials"}, // a secret wins
		{"/h/.config/git/config", registry.RootStartup, "/h/.config/git"},
		{"/h/proj/build", registry.RootWorkspace, ""},
		{"/h/.cache/tool", registry.RootElsewhere, ""},
		{"/opt/data", registry.RootElsewhere, ""},
		{"relative/path", registry.RootElsewhere, ""},
	} {
		kind, secret := registry.Classify(tc.real, p)
		if kind != tc.kind || secret != tc.secret {
			t.Errorf("Classify(%q) = %s, %q; want %s, %q", tc.real, kind, secret, tc.kind, tc.secret)
		}
	}
}

func realDir(t *testing.T, dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestCheckRoot: at a start, a root is what was agreed to (same real path, same file), or it
// is refused; a secret is given only when granted by name.
func TestCheckRoot(t *testing.T) {
	agreed := []registry.Root{
		{Field: "sandbox.write", Asked: "${extensionPath}/cache", Real: "/x/cache", ID: "1:10", Kind: registry.RootOwn},
		{Field: "sandbox.write", Asked: "${extensionPath}/later", Real: "/x/later", Kind: registry.RootOwn},
		{Field: "sandbox.read", Asked: "~/.ssh", Real: "/h/.ssh", ID: "1:20", Kind: registry.RootSecret, Named: true},
		{Field: "sandbox.write", Asked: "${workspacePath}/out", Real: "/p1/out", ID: "1:30", Kind: registry.RootWorkspace},
	}
	changed, secret := "changed", "secret"
	for _, tc := range []struct {
		name  string
		now   registry.Root
		named []string // granted for reading and writing
		read  []string // granted for reading only
		want  string
	}{
		{"as agreed", registry.Root{Field: "sandbox.write", Asked: "${extensionPath}/cache", Real: "/x/cache", ID: "1:10", Kind: registry.RootOwn}, nil, nil, ""},
		{"now a link elsewhere", registry.Root{Field: "sandbox.write", Asked: "${extensionPath}/cache", Real: "/h/.ssh", ID: "1:20", Kind: registry.RootSecret}, nil, nil, changed},
		{"another folder there", registry.Root{Field: "sandbox.write", Asked: "${extensionPath}/cache", Real: "/x/cache", ID: "1:11", Kind: registry.RootOwn}, nil, nil, changed},
		{"gone since", registry.Root{Field: "sandbox.write", Asked: "${extensionPath}/cache", Real: "/x/cache", Kind: registry.RootOwn}, nil, nil, changed},
		{"made since, same real path", registry.Root{Field: "sandbox.write", Asked: "${extensionPath}/later", Real: "/x/later", ID: "1:40", Kind: registry.RootOwn}, nil, nil, ""},
		{"made since as a link", registry.Root{Field: "sandbox.write", Asked: "${extensionPath}/later", Real: "/h/.ssh", ID: "1:20", Kind: registry.RootSecret}, nil, nil, changed},
		{"named at consent", registry.Root{Field: "sandbox.read", Asked: "~/.ssh", Real: "/h/.ssh", ID: "1:20", Kind: registry.RootSecret}, nil, nil, ""},
		{"another project", registry.Root{Field: "sandbox.write", Asked: "${workspacePath}/out", Real: "/p2/out", ID: "1:50", Kind: registry.RootWorkspace}, nil, nil, ""},
		{"workspace path to a secret", registry.Root{Field: "sandbox.write", Asked: "${workspacePath}/out", Real: "/h/.ssh", Kind: registry.RootSecret}, nil, nil, secret},
		{"never agreed, a secret", registry.Root{Field: "sandbox.read", Asked: "$HOME/.aws", Real: "/h/.aws", Kind: registry.RootSecret}, nil, nil, secret},
		{"never agreed, granted by name", registry.Root{Field: "sandbox.read", Asked: "$HOME/.aws", Real: "/h/.aws/config", Kind: registry.RootSecret}, []string{"/h/.aws"}, nil, ""},
		{"startup file, read", registry.Root{Field: "sandbox.read", Asked: "~/.bashrc", Real: "/h/.bashrc", Kind: registry.RootStartup}, nil, nil, ""},
		{"startup file, written", registry.Root{Field: "sandbox.write", Asked: "~/.bashrc", Real: "/h/.bashrc", Kind: registry.RootStartup}, nil, nil, secret},
		{"startup file, written, named for reading", registry.Root{Field: "sandbox.write", Asked: "~/.bashrc", Real: "/h/.bashrc", Kind: registry.RootStartup}, nil, []string{"/h/.bashrc"}, secret},
		{"startup file, written, named", registry.Root{Field: "sandbox.write", Asked: "~/.bashrc", Real: "/h/.bashrc", Kind: registry.RootStartup}, []string{"/h"}, nil, ""},
		{"read, granted for reading", registry.Root{Field: "sandbox.read", Asked: "$HOME/.aws", Real: "/h/.aws", Kind: registry.RootSecret}, nil, []string{"/h/.aws"}, ""},
		{"write, granted for reading only", registry.Root{Field: "sandbox.write", Asked: "${workspacePath}/../.aws", Real: "/h/.aws", Kind: registry.RootSecret}, nil, []string{"/h/.aws"}, secret},
		{"write, granted for writing", registry.Root{Field: "sandbox.write", Asked: "${workspacePath}/../.aws", Real: "/h/.aws", Kind: registry.RootSecret}, []string{"/h/.aws"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := registry.CheckRoot("x", tc.now, agreed, tc.read, tc.named)
			var ce *registry.RootChangedError
			var se *registry.SecretRootError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == changed && !errors.As(err, &ce):
				t.Fatalf("got %v, want a RootChangedError", err)
			case tc.want == secret && !errors.As(err, &se):
				t.Fatalf("got %v, want a SecretRootError", err)
			}
			if err != nil && !errors.Is(err, registry.ErrRoot) {
				t.Fatalf("%v is not ErrRoot", err)
			}
		})
	}
}

// TestManifestRoots: an extension staged for install is resolved as it will be once in its
// place: ${extensionPath} is the destination, its links are read in the staged copy and keep
// their identity through the rename; a secret is refused unless named.
func TestManifestRoots(t *testing.T) {
	env := registrytest.Env(t, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(env.Home, ".ssh"), 0o700))
	staged := filepath.Join(env.Home, "staging", "x")
	must(os.MkdirAll(filepath.Join(staged, "cache"), 0o755))
	must(os.Symlink(filepath.Join(env.Home, ".ssh"), filepath.Join(staged, "keys")))
	must(os.WriteFile(filepath.Join(staged, "gemini-extension.json"), []byte(`{"name": "x", "version": "1.0.0",
		"sandbox": {"read": ["${extensionPath}/keys", "${extensionPath}/../../../.aws"], "write": ["${extensionPath}/cache"]}}`), 0o644))
	x, err := registry.LoadFolder(staged)
	must(err)
	dest := filepath.Join(env.GeminiExtensionsDir(), "x")
	must(os.MkdirAll(filepath.Dir(dest), 0o755))
	roots := registry.ManifestRoots(env, x, staged, dest)
	home := realDir(t, env.Home)
	want := map[string]registry.Root{
		"${extensionPath}/keys":          {Real: filepath.Join(home, ".ssh"), Kind: registry.RootSecret},
		"${extensionPath}/../../../.aws": {Real: filepath.Join(home, ".aws"), Kind: registry.RootSecret},
		"${extensionPath}/cache":         {Real: filepath.Join(home, ".gemini/extensions/x/cache"), Kind: registry.RootOwn, ID: registry.FileStamp(filepath.Join(staged, "cache"))},
	}
	if len(roots) != len(want) {
		t.Fatalf("roots = %+v", roots)
	}
	for _, r := range roots {
		w := want[r.Asked]
		if r.Real != w.Real || r.Kind != w.Kind || (w.ID != "" && r.ID != w.ID) {
			t.Errorf("%s: %+v, want %+v", r.Asked, r, w)
		}
	}
	if _, err := registry.AdmitRoots("x", roots, []string{filepath.Join(env.Home, ".ssh")}); !errors.As(err, new(*registry.SecretRootError)) {
		t.Errorf("~/.aws not named, AdmitRoots = %v", err)
	}
	admitted, err := registry.AdmitRoots("x", roots, []string{filepath.Join(env.Home, ".ssh"), filepath.Join(env.Home, ".aws")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range admitted {
		if r.Named != (r.Kind == registry.RootSecret) {
			t.Errorf("%s: named %v", r.Asked, r.Named)
		}
	}
}
