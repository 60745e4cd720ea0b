package toolchain

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

// TestFor lays out toolchains the way nvm, pyenv, ~/.local/bin, a venv and a system install
// do, and checks what each launcher needs.
func TestFor(t *testing.T) {
	home := testhome.Dir(t, "toolchain-home-") // outside /tmp, which is never a toolchain's
	sys := testhome.Dir(t, "toolchain-sys-")
	exe := func(path, text string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(text), 0o755)
	}
	nvm := filepath.Join(home, ".nvm/versions/node/v22.1.0")
	exe(filepath.Join(nvm, "bin/node"), "\x7fELF")
	exe(filepath.Join(nvm, "lib/node_modules/npm/bin/npx-cli.js"), "#!/usr/bin/env node\n")
	os.Symlink("../lib/node_modules/npm/bin/npx-cli.js", filepath.Join(nvm, "bin/npx"))
	exe(filepath.Join(home, ".pyenv/shims/python3"), "#!/usr/bin/env bash\nexec pyenv exec python3 \"$@\"\n")
	exe(filepath.Join(home, ".local/bin/uvx"), "\x7fELF")
	exe(filepath.Join(sys, "python3.12"), "\x7fELF")
	os.MkdirAll(filepath.Join(home, "venv/bin"), 0o755)
	os.Symlink(filepath.Join(sys, "python3.12"), filepath.Join(home, "venv/bin/python3"))
	exe(filepath.Join(sys, "docker"), "\x7fELF")
	exe(filepath.Join(sys, "bash"), "\x7fELF")
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("registry=http://127.0.0.1:1/\n"), 0o600)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh/id_rsa"), []byte("key"), 0o600)
	path := strings.Join([]string{filepath.Join(home, ".pyenv/shims"), filepath.Join(nvm, "bin"), filepath.Join(home, ".local/bin"), sys}, ":")
	env := Env{Home: home, Path: path}
	cases := []struct {
		command string
		network bool
		read    []string
		write   []string
		warn    bool
	}{
		{"npx", true, []string{".npmrc", ".nvm/versions/node/v22.1.0"}, []string{".cache/node-gyp", ".cache/yarn", ".npm"}, false},
		{"node", false, []string{".npmrc", ".nvm/versions/node/v22.1.0"}, nil, false},
		// Outside the home and the system folders (the test's "system" is a temporary
		// folder), an executable is granted by itself.
		{"python3", false, []string{".pyenv", "SYS/bash"}, nil, false},
		{"uvx", true, []string{".local/bin/uvx"}, []string{".cache/uv"}, false},
		// A path named by a manifest brings only its executable, never its folder; a file
		// that is not executable (a key) brings nothing.
		{filepath.Join(home, "venv/bin/python3"), false, []string{"SYS/python3.12", "venv/bin/python3"}, nil, false},
		{filepath.Join(home, ".ssh/id_rsa"), false, nil, nil, false},
		{"docker", true, []string{"SYS/docker"}, nil, true},
		{"missing-tool", false, nil, nil, false},
	}
	rel := func(list []string) []string {
		var out []string
		for _, p := range list {
			p = strings.Replace(p, sys, "SYS", 1)
			out = append(out, strings.TrimPrefix(p, home+"/"))
		}
		slices.Sort(out)
		return out
	}
	for _, c := range cases {
		n := For(c.command, env)
		if n.Network != c.network || !slices.Equal(rel(n.Read), c.read) || !slices.Equal(rel(n.Write), c.write) || (len(n.Warnings) > 0) != c.warn {
			t.Errorf("For(%s) = network %v, read %q, write %q, warnings %q\nwant network %v, read %q, write %q", c.command, n.Network, rel(n.Read), rel(n.Write), n.Warnings, c.network, c.read, c.write)
		}
	}
	// A toolchain in a folder of its own: its installation (bin/, lib/), never the folder
	// around it (~/work/tools/.env beside ~/work/tools/bin/node, ~/.cargo/credentials.toml).
	tools := filepath.Join(home, "work/tools")
	exe(filepath.Join(tools, "bin/node"), "\x7fELF")
	os.MkdirAll(filepath.Join(tools, "lib/node_modules"), 0o755)
	os.WriteFile(filepath.Join(tools, ".env"), []byte("TOKEN=secret\n"), 0o600)
	exe(filepath.Join(home, ".cargo/bin/cargo"), "\x7fELF")
	os.WriteFile(filepath.Join(home, ".cargo/credentials.toml"), []byte("token = \"secret\"\n"), 0o600)
	around := Env{Home: home, Path: filepath.Join(tools, "bin") + ":" + filepath.Join(home, ".cargo/bin")}
	for _, c := range []struct {
		command string
		read    []string
	}{
		{"node", []string{".npmrc", "work/tools/bin", "work/tools/lib"}},
		{"cargo", []string{".cargo/bin"}},
	} {
		if got := rel(For(c.command, around).Read); !slices.Equal(got, c.read) {
			t.Errorf("For(%s).Read = %q, want %q", c.command, got, c.read)
		}
	}
	// Profiles go by identity, not by name: an extension's or the workspace's own "npx" (first
	// on PATH, or named by path) gets no profile, and the user's real one is found past it.
	ext, ws := testhome.Dir(t, "toolchain-ext-"), testhome.Dir(t, "toolchain-ws-")
	exe(filepath.Join(ext, "bin/npx"), "#!/bin/sh\n")
	exe(filepath.Join(ws, "node_modules/.bin/npx"), "#!/bin/sh\n")
	planted := Env{Home: home, Path: strings.Join([]string{filepath.Join(ext, "bin"), filepath.Join(ws, "node_modules/.bin"), "bin", path}, ":"), Exclude: []string{ext, ws}}
	if n := For("npx", planted); !slices.Contains(rel(n.Read), ".nvm/versions/node/v22.1.0") || slices.ContainsFunc(n.Read, func(p string) bool { return strings.HasPrefix(p, ext) || strings.HasPrefix(p, ws) }) {
		t.Errorf("For(npx) past planted ones: %+v", n)
	}
	if n := For(filepath.Join(ext, "bin/npx"), planted); n.Network || len(n.Write) > 0 {
		t.Errorf("an extension's own npx got a profile: %+v", n)
	}
	onlyPlanted := Env{Home: home, Path: filepath.Join(ext, "bin"), Exclude: []string{ext}}
	if n := For("npx", onlyPlanted); n.Network || len(n.Write) > 0 || len(n.Read) > 0 {
		t.Errorf("a planted npx alone got a profile: %+v", n)
	}
	// A cache folder that is on the PATH (or holds a PATH entry) is never granted.
	onPath := Env{Home: home, Path: path + ":" + filepath.Join(home, ".npm/bin")}
	if n := For("npx", onPath); slices.Contains(rel(n.Write), ".npm") {
		t.Errorf("a folder on the PATH was granted: %q", rel(n.Write))
	}
	// A shell-like program's toolchains: read only, no network of their own.
	tc := Toolchains([]string{"python3", "npx", filepath.Join(home, ".ssh/id_rsa")}, env)
	if tc.Network || !slices.Contains(rel(tc.Read), ".pyenv") || !slices.Contains(rel(tc.Read), ".nvm/versions/node/v22.1.0") || slices.Contains(rel(tc.Read), ".ssh/id_rsa") {
		t.Errorf("Toolchains: %+v", tc)
	}
}

// BenchmarkFor: what computing one MCP server's needs costs (done at consent and before
// each start; target < 5 ms an extension).
func BenchmarkFor(b *testing.B) {
	home := b.TempDir()
	nvm := filepath.Join(home, ".nvm/versions/node/v22.1.0")
	os.MkdirAll(filepath.Join(nvm, "lib/node_modules/npm/bin"), 0o755)
	os.MkdirAll(filepath.Join(nvm, "bin"), 0o755)
	os.WriteFile(filepath.Join(nvm, "bin/node"), []byte("\x7fELF"), 0o755)
	os.WriteFile(filepath.Join(nvm, "lib/node_modules/npm/bin/npx-cli.js"), []byte("#!/usr/bin/env node\n"), 0o755)
	os.Symlink("../lib/node_modules/npm/bin/npx-cli.js", filepath.Join(nvm, "bin/npx"))
	env := Env{Home: home, Path: "/usr/local/sbin:/usr/local/bin:" + filepath.Join(nvm, "bin") + ":/usr/sbin:/usr/bin:/sbin:/bin"}
	for b.Loop() {
		For("npx", env)
	}
}

// TestEnsureCaches: the granted launcher caches that do not exist are made; a cache not
// granted, or a granted folder that is not a profile's cache, is not.
// TestNpmKnowsWhatGemSets: the real npm, run with what gem sets for npx and npm (their
// pins and the offline switch), warns of no variable: its warnings would be a failed
// server's last words.
func TestNpmKnowsWhatGemSets(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	home := testhome.Dir(t, "npm-home-")
	for _, launcher := range []string{"npx", "npm"} {
		var n Needs
		n.apply(ProfileOf(launcher), Env{Home: home})
		cmd := exec.Command(npm, "exec", "--offline", "--", "node", "-e", "")
		cmd.Dir = home
		cmd.Env = append(append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, n.Pin...), n.Offline...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: npm exec: %v\n%s", launcher, err, out)
		}
		if strings.Contains(string(out), "npm warn") {
			t.Errorf("%s: npm warns of what gem sets (%s):\n%s", launcher, strings.Join(append(n.Pin, n.Offline...), " "), out)
		}
	}
}

func TestEnsureCaches(t *testing.T) {
	home := t.TempDir()
	npm, uv, other := filepath.Join(home, ".npm"), filepath.Join(home, ".cache", "uv"), filepath.Join(home, "notes")
	needs := Needs{Write: []string{npm, uv, other}}
	EnsureCaches(needs, []string{npm, other}, home)
	cases := []struct {
		path string
		made bool
	}{{npm, true}, {uv, false}, {other, false}}
	for _, c := range cases {
		st, err := os.Stat(c.path)
		if made := err == nil && st.IsDir(); made != c.made {
			t.Errorf("%s made %v, want %v", c.path, made, c.made)
		}
	}
}

// TestSwitched: another version of an agreed version manager's toolchain, or another venv
// when a venv was agreed, is the same toolchain; anything else is not.
func TestSwitched(t *testing.T) {
	home := testhome.Dir(t, "toolchain-switch-")
	venv := func(dir string) {
		os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		os.WriteFile(filepath.Join(dir, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644)
	}
	venv(filepath.Join(home, "venvs/a"))
	venv(filepath.Join(home, "venvs/b"))
	venv(filepath.Join(home, "ext")) // an extension (or a cloned project) shipping a pyvenv.cfg
	os.MkdirAll(filepath.Join(home, "notavenv"), 0o755)
	h := func(p string) string { return filepath.Join(home, p) }
	for _, tt := range []struct {
		name           string
		reads, granted []string
		want           []string
	}{
		{"nvm use", []string{h(".nvm/versions/node/v21")}, []string{h(".nvm/versions/node/v20")}, []string{h(".nvm/versions/node/v21")}},
		{"deeper path of a version", []string{h(".nvm/versions/node/v21/bin/node")}, []string{h(".nvm/versions/node/v20")}, []string{h(".nvm/versions/node/v21")}},
		{"asdf: same tool", []string{h(".asdf/installs/nodejs/21")}, []string{h(".asdf/installs/nodejs/20")}, []string{h(".asdf/installs/nodejs/21")}},
		{"asdf: another tool", []string{h(".asdf/installs/python/3.12")}, []string{h(".asdf/installs/nodejs/20")}, nil},
		{"another family", []string{h(".pyenv/versions/3.12")}, []string{h(".nvm/versions/node/v20")}, nil},
		{"outside the managers", []string{h("opt/node")}, []string{h(".nvm/versions/node/v20")}, nil},
		{"the manager's folder itself is not a version", []string{h(".nvm/versions/node")}, []string{h(".nvm/versions/node/v20")}, nil},
		{"another venv", []string{h("venvs/b")}, []string{h("venvs/a")}, []string{h("venvs/b")}},
		{"a venv when none was agreed", []string{h("venvs/b")}, []string{h(".nvm/versions/node/v20")}, nil},
		{"not a venv", []string{h("notavenv")}, []string{h("venvs/a")}, nil},
		{"already granted", []string{h(".nvm/versions/node/v20/bin")}, []string{h(".nvm/versions/node/v20")}, nil},
		{"the extension's own pyvenv.cfg vouches for nothing", []string{h("venvs/b")}, []string{h("ext")}, nil},
	} {
		if got := Switched(tt.reads, tt.granted, Env{Home: home, Exclude: []string{h("ext")}}); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Switched = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestNamedByPath: a path a manifest names brings the installation it proves to be in (a
// Python standard library beside its bin/: its bin/ and lib/, not the folder around them)
// and a venv's base, never an unproven folder.
func TestNamedByPath(t *testing.T) {
	home := testhome.Dir(t, "toolchain-path-")
	exe := func(path string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("\x7fELF"), 0o755)
	}
	py := filepath.Join(home, "opt/py")
	exe(filepath.Join(py, "bin/python3.11"))
	os.MkdirAll(filepath.Join(py, "lib/python3.11"), 0o755)
	os.WriteFile(filepath.Join(py, "lib/python3.11/os.py"), nil, 0o644)
	os.WriteFile(filepath.Join(py, ".env"), []byte("TOKEN=secret\n"), 0o600)
	venv := filepath.Join(home, "venvs/a")
	os.MkdirAll(filepath.Join(venv, "bin"), 0o755)
	os.Symlink(filepath.Join(py, "bin/python3.11"), filepath.Join(venv, "bin/python"))
	os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = "+filepath.Join(py, "bin")+"\n"), 0o644)
	secrets := filepath.Join(home, "secrets")
	exe(filepath.Join(secrets, "bin/python3"))
	fake := filepath.Join(home, "fakevenv")
	os.MkdirAll(filepath.Join(fake, "bin"), 0o755)
	os.Symlink(filepath.Join(secrets, "bin/python3"), filepath.Join(fake, "bin/python"))
	os.WriteFile(filepath.Join(fake, "pyvenv.cfg"), []byte("home = "+filepath.Join(secrets, "bin")+"\n"), 0o644)
	env := Env{Home: home}
	for _, tt := range []struct {
		command string
		want    []string
	}{
		// the installation's bin/ and lib/, not its folder (a .env beside them)
		{filepath.Join(venv, "bin/python"), []string{filepath.Join(py, "bin"), filepath.Join(py, "lib"), venv}},
		{filepath.Join(py, "bin/python3.11"), []string{filepath.Join(py, "bin"), filepath.Join(py, "lib")}},
		// an executable in a folder that is no installation: itself only
		{filepath.Join(secrets, "bin/python3"), []string{filepath.Join(secrets, "bin/python3")}},
		// a venv whose pyvenv.cfg names such a folder: the venv, not the folder
		{filepath.Join(fake, "bin/python"), []string{fake, filepath.Join(secrets, "bin/python3")}},
	} {
		if got := For(tt.command, env).Read; !slices.Equal(got, tt.want) {
			t.Errorf("For(%s).Read = %q, want %q", tt.command, got, tt.want)
		}
	}
}
