package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/testhome"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

func TestCheckWorkspace(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	env := registry.NewEnv(home, proj, func(string) string { return "" })
	explicit := registry.NewEnv(home, proj, func(k string) string {
		if k == "GEM_WORKSPACE" {
			return home
		}
		return ""
	})
	cases := []struct {
		name string
		env  registry.Env
		root string
		bad  bool
	}{
		{"a project folder", env, proj, false},
		{"the root folder", env, "/", true},
		{"the home folder", env, home, true},
		{"a folder holding the home", env, base, true},
		{"the home, named in GEM_WORKSPACE", explicit, home, false},
	}
	for _, c := range cases {
		err := CheckWorkspace(c.env, c.root)
		var unsafe *UnsafeWorkspaceError
		if got := errors.As(err, &unsafe); got != c.bad {
			t.Errorf("%s: CheckWorkspace(%s) = %v", c.name, c.root, err)
		}
	}
	if got := Workspace(explicit); got != home {
		t.Errorf("Workspace with GEM_WORKSPACE = %s", got)
	}
}

func TestCheckCommandLine(t *testing.T) {
	x := &registry.Extension{Name: "x"}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name":"x","settings":[{"name":"k","description":"k","envVar":"PASSPHRASE_X","sensitive":true},{"name":"p","description":"p","envVar":"REGION"}]}`), 0o644)
	x.Dir, x.Path, x.ManifestPath = dir, dir, filepath.Join(dir, "gemini-extension.json")
	cases := map[string]bool{
		"--port 8080":             false,
		"${extensionPath}/bin":    false,
		"--region $REGION":        false,
		"--token ${GITHUB_TOKEN}": true,
		"$GEMINI_API_KEY":         true,
		"--pass=${PASSPHRASE_X}":  true,
	}
	for value, secret := range cases {
		err := CheckCommandLine(x, "args[0]", value)
		var e *SecretOnCommandLineError
		if errors.As(err, &e) != secret {
			t.Errorf("CheckCommandLine(%q) = %v", value, err)
		}
	}
}

// TestOpenVerified: the descriptor returned is the file that was checked; a changed file is
// refused; a match is cached by identity.
func TestOpenVerified(t *testing.T) {
	home := t.TempDir()
	env := registry.NewEnv(home, home, func(string) string { return "" })
	env.Engine.HashFile = func(path string) (string, error) {
		data, err := os.ReadFile(path)
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:]), err
	}
	dir := filepath.Join(home, "ext")
	os.MkdirAll(dir, 0o755)
	bin := filepath.Join(dir, "tool")
	os.WriteFile(bin, []byte("#!/bin/sh\necho good\n"), 0o755)
	sum := sha256.Sum256([]byte("#!/bin/sh\necho good\n"))
	pins := []manifest.KV{{Key: "linux/x64", Value: hex.EncodeToString(sum[:])}}
	x := &registry.Extension{Name: "ext", Dir: dir, Path: dir, Level: registry.LevelUser}
	p := manifest.Platform{OS: "linux", Arch: "x64"}

	f, err := OpenVerified(env, x, bin, pins, p)
	if err != nil || f == nil {
		t.Fatalf("good binary: %v", err)
	}
	// Swapping the path after the check does not change what the descriptor runs.
	os.Rename(bin, bin+".old")
	os.WriteFile(bin, []byte("#!/bin/sh\necho evil\n"), 0o755)
	data := make([]byte, 64)
	n, _ := f.ReadAt(data, 0)
	if string(data[:n]) != "#!/bin/sh\necho good\n" {
		t.Errorf("descriptor reads %q", data[:n])
	}
	f.Close()
	// The swapped file itself is refused.
	_, err = OpenVerified(env, x, bin, pins, p)
	var tampered *TamperedError
	if !errors.As(err, &tampered) || tampered.Source != "the manifest's sha256" {
		t.Errorf("swapped binary: %v", err)
	}
	// No pin and no install record: nothing to check.
	if f, err := OpenVerified(env, x, bin, nil, p); f != nil || err != nil {
		t.Errorf("unpinned: %v %v", f, err)
	}
}

// TestUserProgramCaches: the user's own hook starting with npx may write npx's cache; a
// project's (a trusted folder's settings) reads npx's toolchain but writes no cache.
func TestUserProgramCaches(t *testing.T) {
	base := testhome.Dir(t, "userprogram-")
	home := filepath.Join(base, "home")
	proj := filepath.Join(home, "proj")
	bin := filepath.Join(home, ".nvm/versions/node/v22/bin")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "npx"), []byte("#!/bin/sh\n"), 0o755)
	env := registry.NewEnv(home, proj, func(k string) string {
		if k == "PATH" {
			return bin + ":/usr/bin:/bin"
		}
		return ""
	})
	npmCache := filepath.Join(home, ".npm")
	_, user, err := UserProgram(env, proj, "_hooks", "npx prettier --write x", nil, home)
	if err != nil {
		t.Fatal(err)
	}
	_, project, err := UserProgram(env, proj, "_hooks", "npx prettier --write x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(user.Write, npmCache) || slices.Contains(project.Write, npmCache) {
		t.Errorf("user writes %q; project writes %q", user.Write, project.Write)
	}
	if !slices.ContainsFunc(project.Read, func(p string) bool { return strings.HasPrefix(p, filepath.Join(home, ".nvm")) }) {
		t.Errorf("the project's hook cannot read npx's toolchain: %q", project.Read)
	}
	// The toolchain's grant is a line of its own in the program's plan.
	toolchains := project.Toolchains
	if len(toolchains) == 0 || !strings.HasPrefix(toolchains[0], filepath.Join(home, ".nvm")) {
		t.Fatalf("the toolchain grants: %q", toolchains)
	}
	plan := sandbox.MakePlan(sandbox.IntentOf(*project), sandbox.Facts{OS: "linux", LandlockABI: 6, Helper: "/gem"})
	var text strings.Builder
	plan.WriteText(&text)
	if !strings.Contains(text.String(), "run the toolchain "+toolchains[0]) || strings.Contains(text.String(), "  ok    read "+toolchains[0]+"\n") {
		t.Errorf("the plan does not show the toolchain as its own line:\n%s", text.String())
	}
}

// TestReadablePathDropsTheProject: a program's PATH never lists a folder of the project (a
// cloned repository's bin/ or node_modules/.bin) nor one it may write, whether or not it may
// change the project, nor a relative entry; system folders stay.
func TestReadablePathDropsTheProject(t *testing.T) {
	ws := "/home/u/proj"
	for _, pol := range []sandbox.Policy{
		sandbox.ForExtension(sandbox.Access{Extension: "/home/u/ext", Workspace: ws, Data: "/home/u/data", Temp: "/home/u/tmp"}),
		sandbox.ForExtension(sandbox.Access{Extension: "/home/u/ext", Workspace: ws, WriteWorkspace: true, Data: "/home/u/data", Temp: "/home/u/tmp"}),
	} {
		got := readablePath(ws+"/node_modules/.bin:"+ws+"/bin:bin:/home/u/data/bin:/usr/bin:/home/u/ext/bin", &pol, nil, nil)
		if got != "/usr/bin:/home/u/ext/bin" {
			t.Errorf("guard %v: PATH %q", pol.Guard, got)
		}
		// a folder another program may write (programWritable) is dropped too, but for the
		// folders gem put first for this program
		pol.Read = append(pol.Read, "/home/u/tools", "/home/u/.gem/payloads/p")
		got = readablePath("/home/u/.gem/payloads/p/node_modules/.bin:/home/u/tools/bin:/usr/bin", &pol, []string{"/home/u/tools", "/home/u/.gem"}, []string{"/home/u/.gem/payloads/p/node_modules/.bin"})
		if got != "/home/u/.gem/payloads/p/node_modules/.bin:/usr/bin" {
			t.Errorf("guard %v: PATH %q, want the payload's bin and /usr/bin", pol.Guard, got)
		}
		// a folder holding a launcher granted alone (~/.local/bin/uvx) stays, so the server's
		// command is found on the PATH it runs with; its neighbour folder does not
		pol.Read = append(pol.Read, "/home/u/.local/bin/uvx")
		got = readablePath("/home/u/.local/bin:/home/u/.cargo/bin:/usr/bin", &pol, nil, nil)
		if got != "/home/u/.local/bin:/usr/bin" {
			t.Errorf("guard %v: PATH %q, want ~/.local/bin (its uvx granted) and /usr/bin", pol.Guard, got)
		}
	}
}

// TestPrepareUnknownIsErrUnknown: a name no enabled extension's command has is an error the
// CLI can tell by errors.Is(err, ErrUnknown), naming the command and the closest names.
func TestPrepareUnknownIsErrUnknown(t *testing.T) {
	env := registrytest.Env(t, func(string) string { return "" })
	registrytest.Extension(t, env, "hello", `{"name": "hello", "version": "1.0.0", "commands": {"hello": {"type": "executable", "binary": "${extensionPath}/bin/hello"}}}`,
		map[string][]byte{"bin/hello": []byte("#!/bin/sh\necho hello\n")})
	table := NewTable(registry.Discover(env, registry.Providers))
	_, err := Prepare(env, env.Cwd, table, "helo", nil, nil, nil)
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "/helo") || !strings.Contains(err.Error(), "hello") {
		t.Fatalf("Prepare(helo): %v; want an ErrUnknown naming /helo and suggesting hello", err)
	}
}

// TestReadablePathDropsLinksIntoTheProject: a PATH entry that is a link into the workspace
// (or into a folder another program may write) is that folder, and is dropped like it; a
// link to a system folder stays. The launcher lookup's own path (toolchain.Env.SearchPath)
// drops it too.
func TestReadablePathDropsLinksIntoTheProject(t *testing.T) {
	root := testhome.Dir(t, "pathlinks") // not under /tmp, which no PATH entry may be in
	ws, other, home := filepath.Join(root, "proj"), filepath.Join(root, "tools"), filepath.Join(root, "home")
	for _, d := range []string{ws + "/bin", other + "/bin", home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{home + "/projbin": ws + "/bin", home + "/toolsbin": other + "/bin", home + "/sysbin": "/usr/bin"} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	pol := sandbox.ForExtension(sandbox.Access{Extension: root + "/ext", Workspace: ws, WriteWorkspace: true, Data: root + "/data", Temp: root + "/tmp"})
	pol.Read = append(pol.Read, home)
	path := home + "/projbin:" + home + "/toolsbin:" + home + "/sysbin"
	if got := readablePath(path, &pol, []string{other}, nil); got != home+"/sysbin" {
		t.Errorf("PATH %q, want only the link to /usr/bin", got)
	}
	tenv := toolchain.Env{Path: path, Exclude: []string{ws, other}}
	if got := tenv.SearchPath(); got != home+"/sysbin" {
		t.Errorf("SearchPath %q, want only the link to /usr/bin", got)
	}
}
