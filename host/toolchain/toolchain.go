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
// executable, resolved), and of that root only its installation (bin, lib, include, share …:
// installParts), never the folder around it, unless the root is an installation by what it
// is (a version manager's version or its own folder, a venv); a script's interpreter
// (#!/usr/bin/env node) is resolved the same way; profiles never imply a docker or podman socket (root-equivalent: shown, not granted).
//
// Python is a unit: a venv (pyvenv.cfg above its bin/) brings the venv and the installation
// its pyvenv.cfg names (its standard library), linked or copied; a path a manifest names
// brings the folder above its bin/ only when that proves to be an installation (a
// lib/python3.*/os.py or lib/node_modules beside it: installRoot), so an extension's own
// .venv linked to a pyenv interpreter runs, while naming ~/secrets/bin/x brings x alone.
// Toolchains are agreed to as toolchains: another version in a version manager's folder
// (Managers: nvm, pyenv, asdf, mise, volta, fnm, uv's Pythons …) of a family already
// granted, or another venv when one was granted, needs no new consent (Switched); an
// interpreter elsewhere still asks. What is read is only ever read.
//
// An extension's MCP server starts in the project, which other programs may change: a
// second table, KeepOuts, says per launcher what keeps the project's code out of it (npx and
// npm exec get --prefix=<the extension's data folder>, python -m PYTHONSAFEPATH=1);
// KeepProjectOut applies it. A server the user declared in their own settings is left as it
// is: they may mean the project's packages.
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
	// Pin are variables (KEY: ~-relative folder) that keep the launcher on its shared
	// folders although gem points the program's XDG_* variables into its extension's data
	// folder: uv's cache stays ~/.cache/uv, not a new one per extension.
	Pin map[string]string
	// Progress are how the stderr lines start in which it says it is downloading what it
	// runs: a server's start past its limit goes on while they come (or its caches, Write,
	// grow), never for any other output.
	Progress []string
}

// Profiles is the table of launchers. Adding a launcher is adding an entry. Write lists
// caches only, never a folder that holds programs the user runs later (~/.bun/bin,
// ~/.local/share/pnpm, ~/.local/share/uv/tools, ~/.deno/bin, pipx's venvs): a program that
// may write those plants code in the user's PATH.
var Profiles = []Profile{
	// npm warns of every npm_config_* it does not know ("Unknown env config"), and a failed
	// server's last words would be those warnings: node-gyp's folder is pinned in the
	// spelling npm leaves alone (node-gyp ≥ 11.4 reads it; an older one takes its folder
	// under the extension's XDG_CACHE_HOME), pnpm's folders only for pnpm.
	{Launchers: []string{"npx", "npm", "yarn"}, Write: []string{".npm", ".cache/node-gyp", ".cache/yarn"},
		Read: []string{".npmrc", ".config/npm", ".yarnrc", ".yarnrc.yml"}, Network: true, Offline: []string{"npm_config_offline=true"},
		Pin:      map[string]string{"npm_package_config_node_gyp_devdir": ".cache/node-gyp", "YARN_CACHE_FOLDER": ".cache/yarn"},
		Progress: []string{"npm warn exec The following package", "npm http fetch"}},
	{Launchers: []string{"pnpm", "pnpx"}, Write: []string{".npm", ".cache/node-gyp", ".local/share/pnpm/store", ".cache/pnpm"},
		Read: []string{".npmrc", ".config/npm"}, Network: true, Offline: []string{"npm_config_offline=true"},
		Pin: map[string]string{"npm_package_config_node_gyp_devdir": ".cache/node-gyp", "npm_config_store_dir": ".local/share/pnpm/store", "npm_config_cache_dir": ".cache/pnpm"}},
	{Launchers: []string{"node", "nodejs"}, Read: []string{".npmrc"}},
	{Launchers: []string{"uvx", "uv"}, Write: []string{".cache/uv"}, Read: []string{".config/uv", ".local/share/uv/python"}, Network: true, Offline: []string{"UV_OFFLINE=1"},
		Pin:      map[string]string{"UV_CACHE_DIR": ".cache/uv", "UV_PYTHON_INSTALL_DIR": ".local/share/uv/python"},
		Progress: []string{"Downloading ", "Downloaded ", "Resolved ", "Prepared ", "Installing ", "Installed ", "Building ", "Built ", "Updating ", "Updated "}},
	{Launchers: []string{"pipx"}, Write: []string{".cache/pipx"}, Read: []string{".config/pip", ".pip"}, Network: true, Offline: []string{"PIP_NO_INDEX=1"},
		Pin: map[string]string{"PIPX_CACHE_DIR": ".cache/pipx"}},
	{Launchers: []string{"python", "python3", "pip", "pip3"}, Read: []string{".config/pip", ".pip"}},
	{Launchers: []string{"bunx", "bun"}, Write: []string{".bun/install/cache", ".cache/bun"}, Read: []string{".bunfig.toml", ".npmrc"}, Network: true},
	{Launchers: []string{"deno"}, Write: []string{".cache/deno"}, Network: true, Pin: map[string]string{"DENO_DIR": ".cache/deno"}, Progress: []string{"Download "}},
	{Launchers: []string{"docker", "podman"}, Network: true, RootEquivalent: true},
	{Launchers: []string{"java"}},
	{Launchers: []string{"go"}, Write: []string{"go/pkg/mod", ".cache/go-build"}, Read: []string{".config/go"}, Network: true, Offline: []string{"GOPROXY=off"},
		Pin: map[string]string{"GOCACHE": ".cache/go-build"}},
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
	Pin      []string // KEY=VALUE: the launcher's shared folders (Profile.Pin)
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

// excluded reports whether p lies in one of env's excluded folders, or is relative: by its
// name and by the folder it leads to (a PATH entry that is a link into the workspace is the
// workspace's).
func (env Env) excluded(p string) bool {
	if !filepath.IsAbs(p) {
		return true
	}
	names := []string{p}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != filepath.Clean(p) {
		names = append(names, real)
	}
	for _, x := range append([]string{"/tmp", "/var/tmp", "/dev/shm"}, env.Exclude...) {
		if x != "" && slices.ContainsFunc(names, func(n string) bool { return pathx.Within(x, n) }) {
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
	// ~/secrets read by naming ~/secrets/bin/x as its command), unless that folder proves to
	// be an interpreter's installation or a venv (installRoot, venvRoot).
	onPath := !strings.ContainsRune(command, '/')
	for _, p := range []string{path, real} {
		if root := toolchainRoot(p, env.Home); root == p || (root != "" && !onPath) {
			n.Read = append(n.Read, p)
		} else if root != "" {
			n.Read = append(n.Read, installation(root, env.Home)...)
		}
	}
	if !onPath {
		if root := installRoot(real, env.Home); root != "" {
			n.Read = append(n.Read, installation(root, env.Home)...)
		}
	}
	// A venv (found on the PATH or named by path) runs on the interpreter its pyvenv.cfg
	// names: the venv and that installation (its standard library) are read, whether the
	// venv links to it or copied it.
	if venv := venvRoot(path); venv != "" {
		n.Read = append(n.Read, venv)
		if base := venvBase(venv, env.Home); base != "" {
			n.Read = append(n.Read, installation(base, env.Home)...)
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
	for k, v := range pr.Pin {
		n.Pin = append(n.Pin, k+"="+filepath.Join(home, v))
	}
	slices.Sort(n.Pin)
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
		if !slices.Contains(granted, w) || !IsProfileCache(w, home) {
			continue
		}
		if _, err := os.Lstat(w); os.IsNotExist(err) {
			os.MkdirAll(w, 0o755)
		}
	}
}

// IsProfileCache reports whether dir is a cache folder of the profile table under home.
func IsProfileCache(dir, home string) bool {
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

// installParts are what of the folder above a toolchain's bin/ or shims/ makes up its
// installation: its programs, libraries (Python's standard library, node's modules), headers
// and data, a venv's pyvenv.cfg, and a version manager's shims, versions and plugins. The
// rest of that folder (~/work/tools/.env beside ~/work/tools/bin/node, ~/.cargo's
// credentials.toml, ~/go/src) is not the toolchain's, and is not granted with it.
var installParts = []string{"bin", "sbin", "lib", "lib32", "lib64", "libexec", "include", "share", "pyvenv.cfg", "shims", "versions", "installs", "plugins", "version"}

// managerHomes are the version managers' own folders, ~-relative: each is one installation
// (its shims run the manager's own scripts from it), granted whole.
var managerHomes = []string{".nvm", ".pyenv", ".asdf", ".local/share/mise", ".volta", ".local/share/fnm", ".nodenv", ".rbenv", ".goenv", ".rustup", ".sdkman"}

// installation is what to read of a toolchain whose root folder is root: the whole folder
// when it is an installation by what it is (a version manager's version folder or its own
// folder, a venv), else its installParts that exist, never the folder around them.
func installation(root, home string) []string {
	if version, _ := Installation(root, home); version == root {
		return []string{root}
	}
	if st, err := os.Stat(filepath.Join(root, "pyvenv.cfg")); err == nil && st.Mode().IsRegular() {
		return []string{root}
	}
	for _, m := range managerHomes {
		if home != "" && root == filepath.Join(home, m) {
			return []string{root}
		}
	}
	var out []string
	for _, part := range installParts {
		if _, err := os.Lstat(filepath.Join(root, part)); err == nil {
			out = append(out, filepath.Join(root, part))
		}
	}
	return out
}

// installRoot is the installation an interpreter's executable (resolved) lies in, when its
// folder proves to be one — the folder above bin/ holding a Python standard library
// (lib/python3.*/os.py) or node's modules (lib/node_modules) — outside the system folders
// and not a home folder: "" otherwise. What it proves is that the folder is a toolchain,
// not a place for secrets, so a path a manifest names may bring it.
func installRoot(real, home string) string {
	dir := filepath.Dir(real)
	if filepath.Base(dir) != "bin" {
		return ""
	}
	root := filepath.Dir(dir)
	if homeLike(root, home) || slices.ContainsFunc(sandbox.SystemRead, func(sys string) bool { return pathx.Within(sys, root) }) {
		return ""
	}
	if py, _ := filepath.Glob(filepath.Join(root, "lib", "python3*", "os.py")); len(py) > 0 {
		return root
	}
	if st, err := os.Stat(filepath.Join(root, "lib", "node_modules")); err == nil && st.IsDir() {
		return root
	}
	return ""
}

// venvRoot is the Python virtual environment an executable's path lies in (the folder
// above its bin/ holding pyvenv.cfg), or "".
func venvRoot(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "bin" {
		return ""
	}
	root := filepath.Dir(dir)
	if st, err := os.Stat(filepath.Join(root, "pyvenv.cfg")); err == nil && st.Mode().IsRegular() {
		return root
	}
	return ""
}

// venvBase is the installation a venv was made from: pyvenv.cfg's home (its interpreter's
// folder), resolved, when it proves to be one (installRoot); "" for a system Python.
func venvBase(venv, home string) string {
	data, err := os.ReadFile(filepath.Join(venv, "pyvenv.cfg"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "home" {
			continue
		}
		bin := strings.TrimSpace(v)
		if real, err := filepath.EvalSymlinks(bin); err == nil {
			bin = real
		}
		return installRoot(filepath.Join(bin, "python3"), home)
	}
	return ""
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

// Managers are the folders, ~-relative, where version managers keep one installation per
// version ("*" is a tool's name): nvm, pyenv, asdf, mise, volta, fnm, nodenv, rbenv, goenv,
// uv's Pythons, rustup, sdkman.
var Managers = []string{
	".nvm/versions/node", ".pyenv/versions", ".asdf/installs/*", ".local/share/mise/installs/*",
	".volta/tools/image/node", ".local/share/fnm/node-versions", ".nodenv/versions", ".rbenv/versions",
	".goenv/versions", ".local/share/uv/python", ".rustup/toolchains", ".sdkman/candidates/*",
}

// Installation is the version folder of a version manager that p lies in, and the
// manager's folder (its family): ("~/.nvm/versions/node/v21", "~/.nvm/versions/node");
// "", "" when p is not in one.
func Installation(p, home string) (version, family string) {
	rel, err := filepath.Rel(home, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, m := range Managers {
		mp := strings.Split(m, "/")
		if len(parts) <= len(mp) {
			continue
		}
		match := true
		for i, seg := range mp {
			if seg != "*" && seg != parts[i] {
				match = false
				break
			}
		}
		if match {
			family = filepath.Join(home, filepath.FromSlash(strings.Join(parts[:len(mp)], "/")))
			return filepath.Join(family, parts[len(mp)]), family
		}
	}
	return "", ""
}

// Switched is what of reads (a program's toolchain reads) the user agreed to as a
// toolchain rather than as a path: a version of a version manager's family when granted
// holds another version of the same family (nvm use, pyenv shell), and a venv when granted
// holds another venv (another venv first on PATH). It answers the folders to read in
// addition to granted; a toolchain elsewhere (not in a manager's folder, not a venv) is not
// switched to without consent. Granted folders in env's excluded ones (the extension, the
// workspace: folders their authors fill) vouch for nothing: an extension or a cloned
// project shipping a pyvenv.cfg does not make every venv readable.
func Switched(reads, granted []string, env Env) []string {
	home := env.Home
	grantedFamilies := map[string]bool{}
	grantedVenv := false
	for _, g := range granted {
		if env.excluded(g) {
			continue
		}
		if _, fam := Installation(g, home); fam != "" {
			grantedFamilies[fam] = true
		}
		if st, err := os.Stat(filepath.Join(g, "pyvenv.cfg")); err == nil && st.Mode().IsRegular() {
			grantedVenv = true
		}
	}
	var out []string
	for _, r := range reads {
		if slices.ContainsFunc(granted, func(g string) bool { return pathx.Within(g, r) }) {
			continue
		}
		if version, fam := Installation(r, home); fam != "" && grantedFamilies[fam] {
			out = append(out, version)
			continue
		}
		if grantedVenv {
			if st, err := os.Stat(filepath.Join(r, "pyvenv.cfg")); err == nil && st.Mode().IsRegular() {
				out = append(out, r)
			}
		}
	}
	return compact(out)
}
