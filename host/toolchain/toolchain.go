// Package toolchain says what a program needs to run under gem's sandbox, from what it is:
// launcher profiles (a data table: npx needs the network, writes ~/.npm and reads ~/.npmrc;
// uvx writes ~/.cache/uv; docker is root-equivalent…) and the toolchain the launcher
// resolves to on the user's PATH (nvm, pyenv, asdf, mise, volta, ~/.cargo/bin, ~/go/bin,
// ~/.local/bin, a venv): its root folder must be readable. gem computes these needs at
// consent (they are shown and recorded as the extension's grant) and checks them again
// before each start.
//
// Choices: profiles apply to launchers by identity (found by name on the user's PATH, outside
// extensions, the workspace, gem's home and /tmp), grant caches only, never a folder on the
// PATH; a toolchain outside the system folders (in a home folder: this user's, or root's
// /root/.pyenv that a venv links to) is granted read of its root (the folder above its bin/
// or shims/), except when that root is a home folder or its .local (then only the
// executable, resolved); a script's interpreter (#!/usr/bin/env node) is resolved the same
// way; profiles never imply a docker or podman socket (root-equivalent: shown, not granted).
package toolchain

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/pathx"
)

// Profile is what one family of launchers needs.
type Profile struct {
	Launchers []string // executable names (the base name of the resolved command)
	Write     []string // folders it writes, ~-relative (caches)
	Read      []string // files or folders it reads when present, ~-relative (configuration)
	// Network: it fetches what it runs (a package launcher).
	Network bool
	// Offline is the environment that makes it fail at once, not after retries, when the
	// network is not granted.
	Offline []string
	// RootEquivalent: talking to it is root on the machine (a container engine's socket).
	RootEquivalent bool
}

// Profiles is the table of launchers. Adding a launcher is adding an entry. Write lists
// caches only, never a folder that holds programs the user runs later (~/.bun/bin,
// ~/.local/share/pnpm, ~/.local/share/uv/tools, ~/.deno/bin, pipx's venvs): a program that
// may write those plants code in the user's PATH.
var Profiles = []Profile{
	{Launchers: []string{"npx", "npm", "pnpm", "pnpx", "yarn"}, Write: []string{".npm", ".cache/node-gyp", ".local/share/pnpm/store", ".cache/pnpm", ".cache/yarn"},
		Read: []string{".npmrc", ".config/npm", ".yarnrc", ".yarnrc.yml"}, Network: true, Offline: []string{"npm_config_offline=true"}},
	{Launchers: []string{"node", "nodejs"}, Read: []string{".npmrc"}},
	{Launchers: []string{"uvx", "uv"}, Write: []string{".cache/uv"}, Read: []string{".config/uv"}, Network: true, Offline: []string{"UV_OFFLINE=1"}},
	{Launchers: []string{"pipx"}, Write: []string{".cache/pipx"}, Read: []string{".config/pip", ".pip"}, Network: true, Offline: []string{"PIP_NO_INDEX=1"}},
	{Launchers: []string{"python", "python3", "pip", "pip3"}, Read: []string{".config/pip", ".pip"}},
	{Launchers: []string{"bunx", "bun"}, Write: []string{".bun/install/cache", ".cache/bun"}, Read: []string{".bunfig.toml", ".npmrc"}, Network: true},
	{Launchers: []string{"deno"}, Write: []string{".cache/deno"}, Network: true},
	{Launchers: []string{"docker", "podman"}, Network: true, RootEquivalent: true},
	{Launchers: []string{"java"}},
	{Launchers: []string{"go"}, Write: []string{"go/pkg/mod", ".cache/go-build"}, Read: []string{".config/go"}, Network: true, Offline: []string{"GOPROXY=off"}},
}

// ProfileOf returns the profile of a launcher name, or nil for a plain binary.
func ProfileOf(name string) *Profile {
	for i := range Profiles {
		if slices.Contains(Profiles[i].Launchers, name) {
			return &Profiles[i]
		}
	}
	return nil
}

// Needs is what one program needs beyond the default sandbox.
type Needs struct {
	Network  bool     // it fetches what it runs
	Read     []string // absolute: toolchain roots, configuration
	Write    []string // absolute: caches
	Offline  []string // KEY=VALUE for when the network is not granted
	Warnings []string // what is shown and never granted (root-equivalent sockets)
}

// Env is where a program would be looked up: the user's home and PATH.
type Env struct {
	Home string
	Path string // the PATH the program gets (the user's)
	// Exclude are folders whose programs are not the user's own toolchain: extensions, the
	// workspace, gem's home, folders every user or a program may write (/tmp). A PATH entry
	// inside one (or a relative one) is not looked in, and a launcher resolved into one
	// gets no profile.
	Exclude []string
}

// excluded reports whether p lies in one of env's excluded folders, or is relative.
func (env Env) excluded(p string) bool {
	if !filepath.IsAbs(p) {
		return true
	}
	for _, x := range append([]string{"/tmp", "/var/tmp", "/dev/shm"}, env.Exclude...) {
		if x != "" && pathx.Within(x, p) {
			return true
		}
	}
	return false
}

// SearchPath is env.Path without the entries that are not the user's own (Exclude,
// relative ones): where launchers are looked up.
func (env Env) SearchPath() string {
	var keep []string
	for _, dir := range filepath.SplitList(env.Path) {
		if dir != "" && !env.excluded(dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// For works out what running command (a name looked up on env.Path, or a path) needs.
// A program that is not found needs nothing here: its start reports it.
func For(command string, env Env) Needs {
	var n Needs
	n.add(command, env, 0)
	n.Read = compact(n.Read)
	n.Write = compact(n.Write)
	return n
}

// Toolchains works out what a shell-like program that runs the named programs from the
// user's PATH needs (the manifest's sandbox.toolchains): their toolchains and profiles,
// without their network.
func Toolchains(names []string, env Env) Needs {
	var n Needs
	for _, name := range names {
		if strings.ContainsRune(name, '/') {
			continue // a program on the PATH, by name; never a path
		}
		t := For(name, env)
		n.Read = append(n.Read, t.Read...)
		n.Write = append(n.Write, t.Write...)
	}
	n.Read, n.Write = compact(n.Read), compact(n.Write)
	return n
}

func (n *Needs) add(command string, env Env, depth int) {
	path := LookPath(command, env.SearchPath())
	if path == "" || depth > 2 {
		return
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	// Only a program found on the user's own PATH brings its toolchain's root: a path a
	// manifest or a #! line names brings that one executable (a manifest must not get
	// ~/secrets read by naming ~/secrets/bin/x as its command).
	onPath := !strings.ContainsRune(command, '/')
	for _, p := range []string{path, real} {
		if root := toolchainRoot(p, env.Home); root != "" {
			if !onPath {
				root = p
			}
			n.Read = append(n.Read, root)
		}
	}
	// A profile is a launcher's by identity, not by name: one found on the user's own PATH,
	// outside every extension, workspace and writable folder. An extension's own script
	// named npx (or a #! naming one by path) gets nothing.
	if onPath && !env.excluded(path) && !env.excluded(real) {
		for _, name := range []string{filepath.Base(path), filepath.Base(real)} {
			if pr := ProfileOf(name); pr != nil {
				n.apply(pr, env)
				break
			}
		}
	}
	// A script: its interpreter (#!/usr/bin/env node) is a toolchain too.
	if interp := interpreter(real); interp != "" {
		n.add(interp, env, depth+1)
	}
}

func (n *Needs) apply(pr *Profile, env Env) {
	home := env.Home
	n.Network = n.Network || pr.Network
	for _, w := range pr.Write {
		w = filepath.Join(home, w)
		// Never a folder on (or holding a folder on) the user's PATH, whatever the table says.
		if !slices.ContainsFunc(filepath.SplitList(env.Path), func(dir string) bool {
			return dir != "" && (pathx.Within(w, dir) || pathx.Within(dir, w))
		}) {
			n.Write = append(n.Write, w)
		}
	}
	for _, r := range pr.Read {
		if _, err := os.Stat(filepath.Join(home, r)); err == nil {
			n.Read = append(n.Read, filepath.Join(home, r))
		}
	}
	n.Offline = append(n.Offline, pr.Offline...)
	if pr.RootEquivalent {
		n.Warnings = append(n.Warnings, pr.Launchers[0]+": its socket would give root on this machine; gem never grants it (nor should a grant of write access)")
	}
}

// EnsureCaches makes the launcher caches of granted that do not exist yet (a fresh home has
// no ~/.npm), as the user with mode 0755, before the program runs: the sandbox can only open
// what exists, and a launcher that cannot make its cache fails (npm then blames
// "root-owned files"). Only the profile table's cache folders are made, never another grant.
func EnsureCaches(needs Needs, granted []string, home string) {
	for _, w := range needs.Write {
		if !slices.Contains(granted, w) || !isProfileCache(w, home) {
			continue
		}
		if _, err := os.Lstat(w); os.IsNotExist(err) {
			os.MkdirAll(w, 0o755)
		}
	}
}

// isProfileCache: dir is a cache folder of the profile table under home.
func isProfileCache(dir, home string) bool {
	for _, pr := range Profiles {
		for _, w := range pr.Write {
			if filepath.Join(home, w) == dir {
				return true
			}
		}
	}
	return false
}

// LookPath finds command on path (a PATH value), or returns it when it is a path.
func LookPath(command, path string) string {
	if command == "" {
		return ""
	}
	if strings.ContainsRune(command, '/') {
		// Only an executable: naming a key file as a command must not grant reading it.
		if st, err := os.Stat(command); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return command
		}
		return ""
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, command)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// toolchainRoot is the folder to read for the executable p when the sandbox does not let
// programs read it already (it is not a system folder: a home folder, this user's or
// another's, such as root's /root/.pyenv): the folder above its bin/ (or shims/), unless
// that is a home folder or its .local, where only the executable itself is granted.
func toolchainRoot(p, home string) string {
	for _, sys := range sandbox.SystemRead {
		if pathx.Within(sys, p) {
			return ""
		}
	}
	dir := filepath.Dir(p)
	if b := filepath.Base(dir); b == "bin" || b == "shims" {
		parent := filepath.Dir(dir)
		if !homeLike(parent, home) {
			return parent
		}
	}
	return p
}

// homeLike reports whether dir is a home folder (or its .local), too wide to grant as a
// toolchain's root.
func homeLike(dir, home string) bool {
	if filepath.Base(dir) == ".local" {
		dir = filepath.Dir(dir)
	}
	return dir == "/" || dir == home || dir == "/root" || filepath.Dir(dir) == "/home"
}

// interpreter returns the program a script's #! line runs (the one env looks up).
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	k, _ := f.Read(buf)
	line := string(buf[:k])
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				return f
			}
		}
		return ""
	}
	return fields[0]
}

// compact sorts, dedupes and drops paths covered by another of the list.
func compact(paths []string) []string {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var out []string
	for _, p := range paths {
		if len(out) > 0 && pathx.Within(out[len(out)-1], p) {
			continue
		}
		out = append(out, p)
	}
	return out
}
