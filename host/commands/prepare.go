package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/pathx"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// ErrUnknown and friends classify lookup failures for the CLI.
var (
	ErrUnknown  = errors.New("unknown command")
	ErrDisabled = errors.New("extension disabled")
	// ErrNeedsEngine: the light front cannot prepare this run (sealed settings to decrypt);
	// gem-engine can.
	ErrNeedsEngine = errors.New("needs gem-engine")
)

// DisabledError is a command whose extension is disabled here (errors.Is ErrDisabled).
type DisabledError struct{ Command, Extension, Rule string }

func (e *DisabledError) Error() string {
	return fmt.Sprintf("%v: /%s comes from extension %q, which is disabled here (rule %s)", ErrDisabled, e.Command, e.Extension, e.Rule)
}

func (e *DisabledError) Unwrap() error { return ErrDisabled }

// BlockedError is a command whose extension may not run here (an untrusted folder, no
// consent, a bad name): registry.Extension.Explain says why and what to do.
type BlockedError struct {
	Command   string
	Extension *registry.Extension
}

func (e *BlockedError) Error() string { return "/" + e.Command + ": " + e.Extension.Explain() }

// Prepared is a command ready to run.
type Prepared struct {
	Entry          *Entry
	Spec           sandbox.Program
	RequireConfirm bool
	Binary         *registry.Binary
	Manifest       *manifest.Command
}

// CommandLine renders the full command line for a confirmation prompt.
func (p *Prepared) CommandLine() string {
	parts := []string{shellQuote(p.Spec.Path)}
	for _, a := range p.Spec.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Prepare resolves name in t and builds what running it with args in the workspace root
// needs. readSecrets decrypts sealed settings; without it, an extension that has some gives
// ErrNeedsEngine.
func Prepare(env registry.Env, root string, t *Table, name string, args []string, environ []string, readSecrets registry.SecretReader) (*Prepared, error) {
	e, ok := t.Lookup(name)
	if !ok {
		if x := t.Disabled(name); x != nil && x.Blocked != registry.BlockNone {
			return nil, &BlockedError{Command: name, Extension: x}
		} else if x != nil {
			return nil, &DisabledError{Command: name, Extension: x.Name, Rule: x.EnabledBy}
		}
		suggest := ""
		if s := t.Suggest(name); len(s) > 0 {
			suggest = " (did you mean " + strings.Join(s, ", ") + "?)"
		}
		return nil, fmt.Errorf("%w /%s: gem commands lists the commands of enabled extensions%s", ErrUnknown, name, suggest)
	}
	x := e.Extension
	m := x.Manifest()
	c := m.Command(e.Declared)
	if c == nil {
		return nil, fmt.Errorf("command %s: the manifest %s changed and no longer declares it; run again", name, x.ManifestPath)
	}
	if c.Type != "executable" {
		return nil, fmt.Errorf("command %s: type %q is not runnable (only \"executable\"); fix %s", name, c.Type, x.ManifestPath)
	}
	bin, err := x.ResolveBinary(env, "command", e.Name, c.Binary)
	if err != nil {
		return nil, err
	}
	file, err := OpenVerified(env, x, bin.Path, c.SHA256, bin.Platform)
	if err != nil {
		return nil, fmt.Errorf("command %s: %w", e.Name, err)
	}
	if readSecrets == nil && x.Level == registry.LevelUser && registry.HasSecrets(env, x.Name) {
		return nil, ErrNeedsEngine
	}
	childEnv, policy, err := Program(env, x, ProgramSpec{Root: root, Platform: bin.Platform, Declared: c.Env, Environ: environ, ReadSecrets: readSecrets, Found: t.found})
	if err != nil {
		if file != nil {
			file.Close()
		}
		return nil, fmt.Errorf("command %s: %w", e.Name, err)
	}
	return &Prepared{
		Entry: e, Binary: bin, Manifest: c, RequireConfirm: c.RequireConfirm,
		Spec: sandbox.Program{Path: bin.Path, Binary: file, Args: args, Env: childEnv, Dir: root, Name: "/" + e.Name, Extension: x.Name, Policy: policy, Describe: env.Engine.DescribeBinary},
	}, nil
}

// ChildEnv is the environment of one of x's subprocesses (command, plugin): the sanitised
// environ (plus the names sandboxEnv allows), then x's settings, the declared env with
// variables expanded for platform p, and gem's own variables (GEMINI_CLI, GEM_EXTENSION_NAME,
// GEM_EXTENSION_PATH, GEM_WORKSPACE=root, GEM_HOME, GEM_BIN, GEM_EXTENSION_DATA,
// GEM_EXTENSION_OUTPUT, XDG_CACHE_HOME, XDG_DATA_HOME and XDG_STATE_HOME in the data folder).
func ChildEnv(env registry.Env, x *registry.Extension, root string, p manifest.Platform, declared []manifest.KV, sandboxEnv, environ []string, readSecrets registry.SecretReader) ([]string, error) {
	settings, err := registry.SettingsEnv(env, x, readSecrets)
	if err != nil {
		return nil, err
	}
	exp := x.Expander(env, p)
	// The declared env may name the extension's own settings, sealed ones too (a Claude
	// Code plugin's ${user_config.KEY}): its own values, for its own program.
	own := func(name string) (string, bool) {
		for _, kv := range settings {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	exp.Lookups = append([]manifest.Lookup{own}, exp.Lookups...)
	add := append([]string{}, settings...)
	for _, kv := range declared {
		add = append(add, kv.Key+"="+exp.Expand(kv.Value))
	}
	add = append(add, "GEMINI_CLI=1", "GEM_EXTENSION_NAME="+x.Name, "GEM_EXTENSION_PATH="+x.Path, "GEM_WORKSPACE="+root, "GEM_HOME="+env.GemHome)
	if data, temp, err := sandbox.PrivateDirs(env.GemHome, x.Name); err == nil {
		// The folders the sandbox lets the extension write besides the workspace.
		add = append(add, "GEM_EXTENSION_DATA="+data, "TMPDIR="+temp)
		// What the model may read later with read_file (paths.OutputFolder).
		if out := env.OutputDir(x.Name); sandbox.OwnDir(out) == nil {
			add = append(add, "GEM_EXTENSION_OUTPUT="+out)
		}
		// State has a home: programs that follow XDG keep caches, data and state in the
		// extension's data folder (launchers keep their shared caches: toolchain.Profile.Pin).
		for _, x := range [][2]string{{"XDG_CACHE_HOME", "cache"}, {"XDG_DATA_HOME", "share"}, {"XDG_STATE_HOME", "state"}} {
			if dir := filepath.Join(data, x[1]); sandbox.OwnDir(dir) == nil {
				add = append(add, x[0]+"="+dir)
			}
		}
	}
	if self, err := os.Executable(); err == nil {
		add = append(add, "GEM_BIN="+self) // so a command can call gem back (the gallery installs with it)
	}
	return sandbox.Env(environ, sandboxEnv, add...), nil
}

// ProgramSpec says which of an extension's programs to prepare.
type ProgramSpec struct {
	Root     string // the workspace
	Platform manifest.Platform
	Declared []manifest.KV // the program's own env block
	Plugin   string        // the plugin whose own sandbox block applies ("" for the others)
	// Command is an MCP stdio server's command (name or path): its launcher profile and
	// toolchain are what it needs (host/toolchain).
	Command string
	Args    []string // its arguments (as the manifest resolves them): toolchain.KeepProjectOut
	Server  string   // the MCP server's name (its writes into the extension's folder are its own)
	// Payload is the folder its launcher runs its pinned package from (installed by gem from
	// a bundle or a mirror, host/toolchain/payload): read-only to it, its node_modules/.bin
	// first on its PATH.
	Payload     string
	Environ     []string // the host's environment
	ReadSecrets registry.SecretReader
	Facts       *sandbox.Facts // the machine's (host/launch probes them once); nil: probed now
	// Found is the discovery already made of env's extensions (a command table's), whose
	// write roots no PATH entry may lie in (programWritable); nil discovers them again.
	Found *registry.Discovery
}

// Program is the environment and the sandbox of one of x's programs (command, plugin, MCP
// server, hook, prompt-command shell): ChildEnv with the names the agreed manifest's
// sandbox.env (and the plugin's own block) let through, and Isolation, plus the grant
// recorded at consent. What the program needs (its launcher's profile and toolchain) must be
// covered by what was agreed to, else a *MissingNeedsError says what to run. With the
// network it gets the host's proxy and CA settings; without, its launcher's offline
// settings; its PATH lists only folders it may read.
func Program(env registry.Env, x *registry.Extension, s ProgramSpec) ([]string, *sandbox.Policy, error) {
	var passEnv []string
	for _, b := range permissionBlocks(env, x, s.Plugin) {
		passEnv = append(passEnv, b.Sandbox.Env...)
	}
	childEnv, err := ChildEnv(env, x, s.Root, s.Platform, s.Declared, passEnv, s.Environ, s.ReadSecrets)
	if err != nil {
		return nil, nil, err
	}
	policy, err := Isolation(env, x, s.Root, s.Platform, s.Plugin)
	if err != nil {
		return nil, nil, err
	}
	// A Claude Code plugin's bin/ is first on its own programs' PATH (its servers, hooks and
	// commands), as Claude Code has it; never on another extension's.
	var own []string
	if x.Format != nil && x.Format.BinOnPath && x.Path != "" {
		if bin := filepath.Join(x.Path, "bin"); isDir(bin) {
			childEnv = prependPath(childEnv, bin)
			own = append(own, bin)
		}
	}
	// A server or plugin that writes beside its own code (server-memory's memory.jsonl in
	// its dist/) sees the extension's folder writable, its writes kept in
	// $GEM_HOME/overlays/<extension>/<program>: the installed files and their hashes never
	// change, and no other program — of another extension or of this one, whose grants may
	// differ — sees the writes. Commands and hooks see the folder read-only.
	if program := overlayName(s); program != "" && x.Path != "" && !x.Synthetic {
		if o, err := sandbox.OverlayDirs(env.OverlayDir(x.Name), program); err == nil {
			o.Lower = x.Path
			// After an update the writes kept stop hiding the new version's files.
			if o.Rebase() == nil {
				policy.AddOverlay(*o)
			}
		}
	}
	if s.Payload != "" {
		policy.Read = append(policy.Read, s.Payload)
		bin := filepath.Join(s.Payload, "node_modules", ".bin")
		childEnv = prependPath(childEnv, bin)
		own = append(own, bin)
	}
	tenv := searchEnv(env, s.Root, s.Found)
	tenv.Exclude = append(tenv.Exclude, x.Path)
	needs := programNeeds(x, s.Command, s.Plugin, tenv)
	if x.Synthetic {
		// The user's own settings are their consent: a server they declared gets what its
		// command needs to run (its binary or script and toolchain, read; its launcher's
		// caches) without a question, still sandboxed.
		policy.Read = append(policy.Read, needs.Read...)
		policy.Write = append(policy.Write, needs.Write...)
	}
	// A toolchain switch (nvm use, another venv first) among those agreed to needs no new
	// consent: the same toolchain at another version (toolchain.Switched).
	policy.Read = append(policy.Read, toolchain.Switched(needs.Read, policy.Read, tenv)...)
	if m := missing(needs, policy); m.Network || len(m.Read) > 0 || len(m.Write) > 0 {
		return nil, nil, &MissingNeedsError{Extension: x.Name, Missing: m, Home: env.Home}
	}
	policy.Toolchains = toolchainGrants(needs, policy)
	toolchain.EnsureCaches(needs, policy.Write, env.Home)
	cachesAsOverlays(env, x, s, policy)
	childEnv = finishEnv(childEnv, s.Environ, policy, needs, tenv, env.GitConfigFile(policy.Workspace), own...)
	// An extension's server started by a launcher that would run the project's code first
	// (python -m NAME: the working folder on sys.path) gets what keeps it out; a server the
	// user declared keeps the project's modules (it may mean them).
	if s.Command != "" && !x.Synthetic {
		_, keep := toolchain.KeepProjectOut(s.Command, s.Args, env.DataDir(x.Name))
		childEnv = setEnv(childEnv, keep...)
	}
	return childEnv, policy, nil
}

// cachesAsOverlays gives a program the launcher caches it may write (~/.npm, node-gyp's,
// pnpm's, yarn's, bun's, ~/.cache/uv) as overlays where programs get namespaces: it reads
// the user's cache as it is — a warm start, offline too — and its writes land in
// $GEM_HOME/overlays/<extension>/caches/<program>/<folder>, seen by that program alone (a
// folder of its own: no program's overlay of the extension's folder, "plugin-…" or "mcp-…",
// is named "caches"). A
// cache is code that the user's own npx, uvx, bun or node-gyp runs later outside any sandbox
// (uv and bun link cached packages' files into environments, npm trusts its cached metadata
// while it is fresh, node-gyp compiles against cached headers), so a program writing it
// directly could plant code for later. Without namespaces there is no overlay and the
// caches stay written directly (docs/threat-model.md: not defended), as does a cache reached through a link.
func cachesAsOverlays(env registry.Env, x *registry.Extension, s ProgramSpec, policy *sandbox.Policy) {
	f := s.Facts
	if f == nil {
		probed := sandbox.ProbeFacts()
		f = &probed
	}
	if !f.Namespaces || f.Disabled {
		return
	}
	program := overlayName(s)
	if program == "" {
		program = "run" // commands and hooks
	}
	realHome, err := filepath.EvalSymlinks(env.Home)
	if err != nil {
		return
	}
	var write []string
	for _, w := range policy.Write {
		// A cache that is a link (or lies through one inside the home) stays written
		// directly: the overlay would be mounted on the real folder while the launcher
		// writes through the link.
		rel, err := filepath.Rel(env.Home, w)
		if !toolchain.IsProfileCache(w, env.Home) || !isDir(w) || err != nil {
			write = append(write, w)
			continue
		}
		if real, err := filepath.EvalSymlinks(w); err != nil || real != filepath.Join(realHome, rel) {
			write = append(write, w)
			continue
		}
		name := strings.NewReplacer("/", "-", ".", "").Replace(rel)
		o, err := sandbox.OverlayDirs(env.OverlayDir(x.Name), "caches", program, name)
		if err != nil {
			continue // neither an overlay nor the cache itself: the launcher says what failed
		}
		o.Lower = w
		policy.Read = append(policy.Read, w) // kept in the view, under the overlay
		policy.AddOverlay(*o)
	}
	policy.Write = write
}

// overlayName names the program whose writes into its extension's folder an overlay keeps:
// "plugin-<id>", "mcp-<server>", or "" for the others.
func overlayName(s ProgramSpec) string {
	switch {
	case s.Plugin != "":
		return "plugin-" + s.Plugin
	case s.Server != "":
		return "mcp-" + s.Server
	}
	return ""
}

// permissionBlocks are the sandbox blocks that apply to x's programs: those of the manifest
// the user agreed to (registry.Extension.PermissionManifest), never of a manifest changed
// since, and none for an extension never agreed to in gem; a plugin's own block only for it.
func permissionBlocks(env registry.Env, x *registry.Extension, plugin string) []registry.SandboxBlock {
	m := x.PermissionManifest(env)
	if m == nil {
		return nil
	}
	var out []registry.SandboxBlock
	for _, b := range registry.SandboxBlocks(m) {
		if b.Prefix == "" || (plugin != "" && b.Prefix == "plugins."+plugin+".") {
			out = append(out, b)
		}
	}
	return out
}

// Isolation is the sandbox of one of x's subprocesses: read the system, the extension and
// the workspace root; write the extension's data and temporary folders; plus the agreed
// manifest's sandbox.read/write (and those of the plugin's own block), variables expanded
// for platform p, and what the user granted (gem ext grant, user-level extensions only:
// grants are kept by name, and a project extension must not inherit an installed one's);
// TCP only with sandbox.network or a network grant. The workspace is written only when the
// manifest's sandbox.write names ${workspacePath}, consent inferred it (Needs) or the user
// granted it, and then with its protected names guarded (sandbox.Policy.Guard).
func Isolation(env registry.Env, x *registry.Extension, root string, p manifest.Platform, plugin string) (*sandbox.Policy, error) {
	if err := CheckWorkspace(env, root); err != nil {
		return nil, err
	}
	data, temp, err := sandbox.PrivateDirs(env.GemHome, x.Name)
	if err != nil {
		return nil, fmt.Errorf("making the private folders of %s: %w", x.Name, err)
	}
	// What its programs needed when the user agreed (launcher profiles, toolchains), and
	// what the paths its manifest asks for resolved to then.
	agreed := x.ConsentGrant(env)
	user, err := userGrant(env, x)
	if err != nil {
		return nil, err
	}
	roots := &startRoots{env: env, x: x, exp: x.Expander(env, p), agreed: agreed.Roots, read: user.Read, write: user.Write}
	b, err := roots.blocks(permissionBlocks(env, x, plugin))
	if err != nil {
		return nil, err
	}
	read, write := b.read, b.write
	network := b.network || agreed.Network || user.Network
	workspace := agreed.Workspace || user.Workspace
	read = append(read, agreed.Read...)
	write = append(write, agreed.Write...)
	ur, uw, err := user.CheckRoots(env, x.Name)
	if err != nil {
		return nil, err
	}
	read = append(read, grantedRoots(ur, b.readIDs)...)
	write = append(write, grantedRoots(uw, b.writeIDs)...)
	for _, w := range write {
		if HoldsHome(env, w) {
			return nil, &HomeWriteError{Extension: x.Name, Path: w}
		}
	}
	pol := sandbox.ForExtension(sandbox.Access{Extension: x.Path, Workspace: root, WriteWorkspace: workspace, Data: data, Temp: temp, Read: read, Write: write, Network: network})
	if len(b.writeIDs) > 0 {
		pol.WriteIDs = b.writeIDs
	}
	if len(b.readIDs) > 0 {
		pol.ReadIDs = b.readIDs
	}
	if pol.Guard {
		pol.Frozen = linkedInto(env, root)
	}
	pol.Protect, pol.Rebind = keptFrom(env, x, write, data)
	for _, p := range pol.Protect {
		// A protected folder that is a link, in a folder the program may write: the link
		// itself can be replaced (a mount cannot be put on a link), so it is not started.
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			for _, w := range write {
				if w != p && pathx.Within(w, filepath.Dir(p)) {
					return nil, &LinkedProtectedError{Extension: x.Name, Path: p, Write: w}
				}
			}
		}
	}
	return &pol, nil
}

// userGrant is what the user granted x (gem ext grant): user-level extensions only (grants
// are kept by name, and a project extension must not inherit an installed one's). A grant
// recorded by an older gem, without the identity of its folders, gets it here, at its first
// use, and keeps it (registry.Grant.WithRoots); were it not saved (a read-only GEM_HOME),
// this start still uses it.
func userGrant(env registry.Env, x *registry.Extension) (registry.Grant, error) {
	if x.Level != registry.LevelUser {
		return registry.Grant{}, nil
	}
	g, ok, err := registry.GrantFor(env, x)
	if err != nil || !ok {
		return registry.Grant{}, err
	}
	if filled, added := g.WithRoots(env); added {
		g = filled
		_ = registry.SetGrant(env, x.Name, g)
	}
	return g, nil
}

// grantedRoots are the real paths of the user's granted folders, found now and checked
// (registry.Grant.CheckRoots), their identities added to ids: the sandbox helper opens each
// without following links and compares it again (sandbox.Policy.ReadIDs, WriteIDs), so a
// folder swapped for a link (to ~/.ssh) after the check is refused, not followed. One absent
// is sandbox.RootAbsent: nothing is granted there, and what appears before the helper opens
// it is refused.
func grantedRoots(roots []registry.Root, ids map[string]string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		out = append(out, r.Real)
		if r.ID == "" {
			ids[r.Real] = sandbox.RootAbsent
		} else {
			ids[r.Real] = r.ID
		}
	}
	return out
}

// LinkedProtectedError is a program that may write the folder holding a protected folder
// that is a link (~/.gemini kept in a dotfiles folder): it could replace the link with a
// folder of its own, so it is not started.
type LinkedProtectedError struct{ Extension, Path, Write string }

func (e *LinkedProtectedError) Error() string {
	return fmt.Sprintf("%s may write %s, which holds %s, a link gem cannot keep read-only (the program could replace it)", e.Extension, e.Write, e.Path)
}

// HoldsHome reports whether the folder dir is the user's home folder or holds it: write access
// to it would let a program create what runs later outside any sandbox, more names than any
// list can close. gem grants folders inside the home only (the project is written through
// the workspace capability, its protected names guarded); inside it, a manifest's path to a
// secret or to what runs code later (registry.HomeSecrets, registry.HomeStartup: the one
// list) is given only when the user names it.
func HoldsHome(env registry.Env, dir string) bool {
	return dir != "" && env.Home != "" && filepath.IsAbs(dir) && pathx.Within(dir, env.Home)
}

// HomeWriteError is a program whose manifest's sandbox.write or grant names the home folder,
// or a folder that holds it (HoldsHome): it is not started.
type HomeWriteError struct{ Extension, Path string }

func (e *HomeWriteError) Error() string {
	return fmt.Sprintf("%s may write %s, which holds your home folder: gem lets a program write folders inside it only", e.Extension, e.Path)
}

// keptFrom lists what a write grant (writes: the manifest's sandbox.write and the user's
// grants) must not open, however broad (a grant of ~ or of a folder holding them): every
// extension's folder, Gemini CLI's ~/.gemini (settings with hooks and servers, extensions,
// policies) and gem's home (settings, policies, grants, receipts, other extensions' data)
// but for the program's own data folder, which is rebound writable. Made before they are
// covered: a folder that does not exist yet could be created with a hostile settings.json.
// None when no grant covers any of them (the usual case: nothing changes). The extension's
// own folder is left as granted when a grant names it or a folder inside it (a manifest
// that writes beside its own code says so; its binaries are still checked before each run).
func keptFrom(env registry.Env, x *registry.Extension, writes []string, data string) (protect, rebind []string) {
	if len(writes) == 0 {
		return nil, nil
	}
	covered := func(p string) bool {
		for _, w := range writes {
			if w != "" && filepath.IsAbs(w) && pathx.Within(w, p) {
				return true
			}
		}
		return false
	}
	reals := realPaths{}
	add := func(p string) {
		if covered(p) && !slices.Contains(protect, p) {
			protect = append(protect, p)
		}
		// A folder that is a link (dotfiles kept elsewhere) is protected where it leads too.
		if real, err := reals.of(p); err == nil && real != p && covered(real) && !slices.Contains(protect, real) {
			protect = append(protect, real)
		}
	}
	for _, dir := range []string{env.GeminiDir(), env.GemHome} {
		if covered(dir) {
			os.MkdirAll(dir, 0o700)
		}
		add(dir)
	}
	ownGranted := slices.ContainsFunc(writes, func(w string) bool { return x.Path != "" && pathx.Within(x.Path, w) })
	for _, e := range registry.Discover(env, registry.Providers).All {
		if e.Path != "" && !(ownGranted && e.Path == x.Path) {
			add(e.Path) // also inside ~/.gemini: a grant of another extension's folder alone
		}
	}
	// A grant inside ~/.gemini or gem's home (receipts, another extension's data) is read-only
	// too, but for the program's own data and its own folder granted by name.
	for _, w := range writes {
		own := pathx.Within(data, w) || (x.Path != "" && pathx.Within(x.Path, w))
		if !own && (pathx.Within(env.GeminiDir(), w) || pathx.Within(env.GemHome, w)) {
			add(w)
		}
	}
	// A folder inside another protected one is covered by it: rebinding its parents (below)
	// would reopen the outer one.
	inside := func(p string) bool {
		return slices.ContainsFunc(protect, func(q string) bool { return q != p && pathx.Within(q, p) })
	}
	protect = slices.DeleteFunc(slices.Clone(protect), inside)
	for _, p := range protect {
		if pathx.Within(p, data) && !slices.Contains(rebind, data) {
			rebind = append(rebind, data)
		}
		for _, w := range writes {
			if ownGranted && pathx.Within(x.Path, w) && pathx.Within(p, w) && p != w && !slices.Contains(rebind, w) {
				rebind = append(rebind, w) // its own folder, granted by name, under a protected one
			}
		}
		// Each folder between the grant and a protected one becomes a mount of its own
		// (still writable): a mount point cannot be renamed, so the protected folder cannot
		// be moved away with its parent and another put in its place.
		for _, w := range writes {
			for a := filepath.Dir(p); a != w && pathx.Within(w, a) && a != filepath.Dir(a); a = filepath.Dir(a) {
				if !slices.Contains(rebind, a) && !slices.ContainsFunc(protect, func(q string) bool { return pathx.Within(q, a) }) {
					rebind = append(rebind, a)
				}
			}
		}
	}
	// Outer folders first: a mount made inside one is then not hidden by the outer one's.
	slices.SortFunc(rebind, func(a, b string) int { return len(a) - len(b) })
	return protect, rebind
}

// linkedInto lists the folders of extensions linked from inside root (but root itself, when
// the project is the extension): a program that may change the project must not change
// their code, which runs later with their grants.
func linkedInto(env registry.Env, root string) []string {
	var out []string
	for _, x := range registry.Discover(env, registry.Providers).All {
		if x.Path != "" && x.Path != root && pathx.Within(root, x.Path) && !slices.Contains(out, x.Path) {
			out = append(out, x.Path)
		}
	}
	return out
}

// ProjectRoot is the git top level of dir (the nearest folder up with a .git entry), else dir.
func ProjectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// TamperedError is a binary whose content is not the one gem verified: the manifest's
// sha256 pin or the hash recorded at install.
type TamperedError struct {
	Path, Got, Want, Source string
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("binary %s has SHA-256 %s, but %s says %s: it was changed after install", e.Path, e.Got, e.Source, e.Want)
}

// OpenVerified opens a program's binary once and checks, on that descriptor, the SHA-256
// its manifest pins for platform p, else the one recorded when gem installed x. The caller
// executes the returned file (sandbox.Program.Binary), not the path, so the binary cannot be
// swapped between the check and the exec. A match is cached by file identity (inode, size,
// times), so the full hash runs only when the file changed. It returns nil, nil when no
// hash is known.
func OpenVerified(env registry.Env, x *registry.Extension, path string, pins []manifest.KV, p manifest.Platform) (*os.File, error) {
	want, ok := manifest.LookupKV(pins, p.OS+"/"+p.Arch)
	source := "the manifest's sha256"
	if !ok {
		rel, err := filepath.Rel(x.Path, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, nil
		}
		if want, ok = registry.RecordedHash(env, x, rel); !ok {
			return nil, nil
		}
		source = "the install record"
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := checkHashFD(env, f, x.Dir, path, want, source); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkHashFD verifies the binary open as f (at path, of the extension in folder dir) against
// want, caching a match by file identity.
func checkHashFD(env registry.Env, f *os.File, dir, path, want, source string) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	id := fmt.Sprintf("%d %d %s %s", st.Ino, st.Size, fileTimes(&st), strings.ToLower(want))
	cache := env.BinHashFile(dir, path)
	if data, err := os.ReadFile(cache); err == nil && string(data) == id {
		return nil
	}
	if env.Engine.HashFile == nil {
		return ErrNeedsEngine // the light front: crypto/sha256's initialisation is not free
	}
	// The descriptor's own file, whatever the path names now.
	got, err := env.Engine.HashFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		return err
	}
	if !strings.EqualFold(got, want) {
		return &TamperedError{Path: path, Got: got, Want: want, Source: source}
	}
	if os.MkdirAll(filepath.Dir(cache), 0o700) == nil {
		os.WriteFile(cache, []byte(id), 0o600)
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// prependPath puts dir first on env's PATH.
func prependPath(env []string, dir string) []string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if path != "" {
		dir += string(filepath.ListSeparator) + path
	}
	return setEnv(env, "PATH="+dir)
}
