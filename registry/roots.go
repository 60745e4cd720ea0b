package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
)

// Root is one path a manifest's sandbox.read or sandbox.write asks for, as consent shows it
// and the program gets it: the template (Asked), what it really is once its variables are
// expanded, its ".." taken and the links of its existing part resolved (Real), and the file
// identity of Real then (ID, "device:inode"; "" when nothing was there).
//
// Roots are recorded with the consent (the receipt's Grant.Roots). At each start the
// manifest's paths are resolved again (CheckRoot): one that now leads elsewhere, or whose
// folder is another one (the folder agreed to replaced by a link or a copy), is refused. A
// root that did not exist at consent is recorded by its real path only: a later start takes
// what is there when it is reached by that same real path and is no secret of the home (a
// program cannot make it a link into ~/.ssh: the real path would change). A root under
// ${workspacePath} follows the project gem runs in, so only its kind is checked.
type Root struct {
	Field string   `json:"field"` // sandbox.read, sandbox.write, plugins.<id>.sandbox.read…
	Asked string   `json:"asked"`
	Real  string   `json:"real"`
	ID    string   `json:"id,omitempty"`
	Kind  RootKind `json:"kind"`
	// Secret is the secret of the home Real is, is in or holds (Kind RootSecret), or the
	// file that runs code later (Kind RootStartup).
	Secret string `json:"secret,omitempty"`
	// Named: the user granted this secret (or startup file) by name when agreeing (--allow).
	Named bool `json:"named,omitempty"`
}

// RootKind is where a root leads.
type RootKind string

const (
	RootOwn       RootKind = "own"       // the extension's folder or its data folder
	RootWorkspace RootKind = "workspace" // the project gem runs in
	RootSecret    RootKind = "secret"    // is, is in, or holds a secret of the home
	RootStartup   RootKind = "startup"   // is, is in, or holds what runs code later (HomeStartup)
	RootElsewhere RootKind = "elsewhere" // anything else
)

// HomeSecrets are the home's folders and files that hold credentials, relative to the home:
// never granted through a manifest's path, only by name, for reading or writing. Gemini
// CLI's ~/.gemini (its OAuth credentials, settings with servers' tokens, other extensions),
// gem's home and every other extension's folder are secrets too (Places).
var HomeSecrets = []string{
	// keys, clouds, clusters, containers
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".oci",
	".config/doctl", ".vault-token", ".terraform.d", ".config/op", ".op", ".config/rclone",
	// forges, registries and package managers' tokens
	".config/gh", ".config/hub", ".netrc", ".git-credentials", ".config/git/credentials",
	".npmrc", ".yarnrc.yml", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".gem/credentials", ".m2/settings.xml", ".gradle/gradle.properties", ".nuget/NuGet",
	// databases
	".pgpass", ".my.cnf",
	// other agents' logins and settings (tokens, MCP servers' keys)
	".claude", ".claude.json", ".codex", ".cursor", ".config/github-copilot", ".aider",
	// password stores, keyrings, browsers' profiles (cookies, saved passwords)
	".password-store", ".local/share/keyrings", ".mozilla", ".config/google-chrome",
	".config/chromium", ".config/BraveSoftware",
}

// HomeStartup are the home's files and folders that run code later, outside any sandbox
// (shell startup files, folders on PATH, autostart and user services, git's and package
// managers' settings that name programs), relative to the home: read through a manifest's
// path like any other, written only when the user names them (a secret of HomeSecrets is
// closed to both already). The home itself is never written (host/commands.HoldsHome).
var HomeStartup = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
	".zshenv", ".zlogin", ".zlogout", ".config/fish", ".xprofile", ".xsessionrc", ".xinitrc",
	".pam_environment", ".config/environment.d", ".config/autostart", ".config/systemd/user",
	".local/bin", "bin", ".cargo/bin", ".cargo/config", ".cargo/config.toml", ".gitconfig",
	".config/git", ".yarnrc", ".config/pip", ".pip", ".pydistutils.cfg", ".vimrc", ".vim",
	".config/nvim", ".emacs", ".emacs.d", ".config/Code/User", ".local/share/applications",
}

// Places are the folders a root is classified by, real paths.
type Places struct {
	Own       []string // the extension's folder and data folder
	Workspace string
	Secrets   []string
	Startup   []string // what runs code later (HomeStartup)
}

// Classify says where the real path real leads (a pure function of places): its own folders
// when inside one and holding no secret or startup file, else a secret when it is, is in, or
// holds one, else startup when it is, is in or holds such a file, else the workspace or
// elsewhere. It returns the secret (or startup file) concerned.
func Classify(real string, p Places) (RootKind, string) {
	holds := func(list []string) string {
		i := slices.IndexFunc(list, func(s string) bool { return pathx.Within(real, s) })
		if i < 0 {
			return ""
		}
		return list[i]
	}
	in := func(list []string) string {
		i := slices.IndexFunc(list, func(s string) bool { return pathx.Within(s, real) })
		if i < 0 {
			return ""
		}
		return list[i]
	}
	secret, startup := holds(p.Secrets), holds(p.Startup)
	if secret == "" && startup == "" && slices.ContainsFunc(p.Own, func(o string) bool { return pathx.Within(o, real) }) {
		return RootOwn, ""
	}
	for _, c := range []struct {
		kind  RootKind
		which string
	}{{RootSecret, secret}, {RootSecret, in(p.Secrets)}, {RootStartup, startup}, {RootStartup, in(p.Startup)}} {
		if c.which != "" {
			return c.kind, c.which
		}
	}
	if p.Workspace != "" && pathx.Within(p.Workspace, real) {
		return RootWorkspace, ""
	}
	return RootElsewhere, ""
}

// NeedsName reports whether r is given only when the user names it: a secret of the home, or
// a write to what runs code later.
func (r Root) NeedsName() bool {
	return r.Kind == RootSecret || (r.Kind == RootStartup && writesRoot(r.Field))
}

// realPathIn is pathx.Real reading the folder dest (real) and what is below it at onDisk: an
// extension staged at onDisk, resolved as it will be once renamed to dest.
func realPathIn(p, dest, onDisk string) string {
	if !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return pathx.RealOnDisk(p, onDiskOf(dest, onDisk))
}

// onDiskOf maps a path in dest to where it is now, at onDisk.
func onDiskOf(dest, onDisk string) func(string) string {
	return func(p string) string {
		if dest == "" || onDisk == "" || !pathx.Within(dest, p) {
			return p
		}
		rel, _ := filepath.Rel(dest, p)
		return filepath.Join(onDisk, rel)
	}
}

// FileStamp is the file identity (device and inode) of path, not following a last link: ""
// when nothing is there.
func FileStamp(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return ""
}

// PlacesOf are the places the roots of extension name, in folders own, are classified by.
func PlacesOf(env Env, name string, own ...string) Places {
	p := Places{Workspace: pathx.Real(env.Cwd)}
	for _, o := range append(own, env.DataDir(name)) {
		if o != "" && !slices.Contains(p.Own, pathx.Real(o)) {
			p.Own = append(p.Own, pathx.Real(o))
		}
	}
	add := func(s string) {
		if s != "" && filepath.IsAbs(s) {
			p.Secrets = append(p.Secrets, pathx.Real(s))
		}
	}
	if env.Home != "" {
		for _, s := range HomeSecrets {
			add(filepath.Join(env.Home, s))
		}
		for _, s := range HomeStartup {
			p.Startup = append(p.Startup, pathx.Real(filepath.Join(env.Home, s)))
		}
	}
	add(env.GeminiDir())
	add(env.GemHome)
	for _, o := range Discover(env, Providers).All {
		if o.Path != "" && !slices.Contains(p.Own, pathx.Real(o.Path)) {
			add(o.Path)
			add(o.Dir)
		}
	}
	return p
}

// ResolveRoot resolves the path asked (a template) for field with exp, in places.
func ResolveRoot(field, asked string, exp manifest.Expander, places Places) Root {
	return resolveRoot(field, asked, exp, places, "", "")
}

func resolveRoot(field, asked string, exp manifest.Expander, places Places, dest, onDisk string) Root {
	real := realPathIn(exp.Expand(asked), dest, onDisk)
	r := Root{Field: field, Asked: asked, Real: real, ID: FileStamp(onDiskOf(dest, onDisk)(real))}
	r.Kind, r.Secret = Classify(real, places)
	return r
}

// ManifestRoots resolves every path x's current manifest asks for, as consent shows them
// (host variables as the manifest being agreed to names them). x's folder is read where it
// is now, onDisk (its x.Dir, or a copy of it), as it will be at dest ("": where it is).
func ManifestRoots(env Env, x *Extension, onDisk, dest string) []Root {
	m := x.Manifest()
	if m == nil || !asksPaths(m) {
		return nil
	}
	vars := manifest.ReferencedVars(readText(x))
	dir, path := x.Dir, x.Path
	if dest != "" {
		dest = pathx.Real(dest)
		rel, err := filepath.Rel(x.Dir, x.Path)
		if err != nil || !pathx.Within(x.Dir, x.Path) {
			rel = "."
		}
		dir, path = dest, filepath.Join(dest, rel)
		if onDisk != "" {
			onDisk = pathx.Real(onDisk)
		}
	} else {
		onDisk = ""
	}
	exp := x.expander(env, manifest.HostPlatforms(env.Getenv)[0], path, m, func(name string) bool { return slices.Contains(vars, name) })
	places := PlacesOf(env, x.Name, path, dir)
	var out []Root
	for _, b := range SandboxBlocks(m) {
		for _, r := range b.Sandbox.Read {
			out = append(out, resolveRoot(b.Prefix+"sandbox.read", r, exp, places, dest, onDisk))
		}
		for _, w := range b.Sandbox.Write {
			out = append(out, resolveRoot(b.Prefix+"sandbox.write", w, exp, places, dest, onDisk))
		}
	}
	return out
}

func readText(x *Extension) string {
	text, _ := x.ManifestText()
	return string(text)
}

func asksPaths(m *manifest.Manifest) bool {
	for _, b := range SandboxBlocks(m) {
		if len(b.Sandbox.Read)+len(b.Sandbox.Write) > 0 {
			return true
		}
	}
	return false
}

// SandboxBlock is a sandbox block of a manifest with the prefix of its fields ("" for the
// extension's, "plugins.<id>." for a plugin's).
type SandboxBlock struct {
	Prefix  string
	Sandbox *manifest.Sandbox
}

// SandboxBlocks are m's sandbox blocks: the extension's, and the plugins'.
func SandboxBlocks(m *manifest.Manifest) []SandboxBlock {
	var out []SandboxBlock
	if m.Sandbox != nil {
		out = append(out, SandboxBlock{"", m.Sandbox})
	}
	for _, pl := range m.Plugins {
		if pl.Sandbox != nil {
			out = append(out, SandboxBlock{"plugins." + pl.ID + ".", pl.Sandbox})
		}
	}
	return out
}

// FollowsWorkspace reports whether a root's template names the project gem runs in: its real
// path changes with it.
func FollowsWorkspace(asked string) bool { return strings.Contains(asked, "${workspacePath}") }

// Admit marks the roots of needs (what a consent records) the user granted by name and
// refuses one that leads to a secret of the home otherwise (a *SecretRootError). Named are
// the paths of allow (--allow, at this consent: for reading and writing), of the user's grant
// to prior (the extension in the folder dir, nil when none) and the secrets granted by name
// in dir's receipt. A name keeps its access: a path granted for reading (a grant's Read, a
// sandbox.read root of the receipt) names no write root, so a new version asking to write
// what the user let it read is refused until named again.
func Admit(env Env, name string, needs *Grant, dir string, prior *Extension, allow []string) error {
	named := slices.Clone(allow)
	var readOnly []string
	if prior != nil && prior.Level == LevelUser {
		if g, ok, _ := GrantFor(env, prior); ok {
			named = append(named, g.Write...)
			readOnly = append(readOnly, g.Read...)
		}
	}
	if rec, _ := ReadReceipt(env, dir); rec != nil {
		for _, r := range rec.Grant.Roots {
			switch {
			case !r.Named:
			case writesRoot(r.Field):
				named = append(named, r.Real)
			default:
				readOnly = append(readOnly, r.Real)
			}
		}
	}
	roots, err := admitRoots(name, needs.Roots, named, readOnly)
	if err != nil {
		return err
	}
	needs.Roots = roots
	return nil
}

// AdmitRoots marks the secret roots the user granted by name (Real inside one of named, real
// paths) and returns a *SecretRootError for the first one not granted.
func AdmitRoots(extension string, roots []Root, named []string) ([]Root, error) {
	return admitRoots(extension, roots, named, nil)
}

// admitRoots is AdmitRoots with paths named for reading only (readOnly): they admit a
// sandbox.read root, never a sandbox.write one.
func admitRoots(extension string, roots []Root, named, readOnly []string) ([]Root, error) {
	out := slices.Clone(roots)
	for i, r := range out {
		if !r.NeedsName() {
			continue
		}
		if !grantedByName(r, named, readOnly) {
			return nil, &SecretRootError{Extension: extension, Root: r}
		}
		out[i].Named = true
	}
	return out, nil
}

// writesRoot reports whether a root's field gives writing (sandbox.write,
// plugins.<id>.sandbox.write).
func writesRoot(field string) bool { return strings.HasSuffix(field, "sandbox.write") }

// grantedByName reports whether root r is inside a path named for reading and writing
// (named) or, for a sandbox.read root, inside one named for reading only (readOnly).
func grantedByName(r Root, named, readOnly []string) bool {
	return namedIn(r.Real, named) || (!writesRoot(r.Field) && namedIn(r.Real, readOnly))
}

func namedIn(real string, named []string) bool {
	return slices.ContainsFunc(named, func(n string) bool { return n != "" && pathx.Within(pathx.Real(n), real) })
}

// CheckRoot checks a root resolved at a start against those recorded at consent and the
// paths the user granted by name since (gem ext grant: read, for reading only; write): a
// *RootChangedError when it is not what was agreed to, a *SecretRootError when it leads to a
// secret not granted by name for its access (a path granted for reading admits no
// sandbox.write root).
func CheckRoot(extension string, now Root, agreed []Root, read, write []string) error {
	i := slices.IndexFunc(agreed, func(a Root) bool { return a.Field == now.Field && a.Asked == now.Asked })
	if i >= 0 && !FollowsWorkspace(now.Asked) {
		a := agreed[i]
		if a.Real != now.Real || (a.ID != "" && a.ID != now.ID) {
			return &RootChangedError{Extension: extension, Agreed: a, Now: now}
		}
		if a.Named {
			return nil
		}
	}
	if now.NeedsName() && !grantedByName(now, write, read) {
		return &SecretRootError{Extension: extension, Root: now, Start: true}
	}
	return nil
}

// What says what a root that needs a name is (NeedsName).
func (r Root) What() string {
	if r.Kind == RootStartup {
		return "a file of your home that runs code later"
	}
	return "a secret of your home"
}

// SecretRootError is a manifest's path that leads to a secret of the home (or holds one), or
// writes what runs code later, not granted by name: refused at consent, and at a start.
type SecretRootError struct {
	Extension string
	Root      Root
	Start     bool // found at a start (else at consent)
}

func (e *SecretRootError) Error() string {
	what := e.Root.Real
	if e.Root.Secret != "" && e.Root.Secret != e.Root.Real {
		what += " (which holds or is in " + e.Root.Secret + ")"
	}
	return fmt.Sprintf("extension %s: %s asks for %s, %s, as %q: gem grants it only by name", e.Extension, e.Root.Field, what, e.Root.What(), e.Root.Asked)
}

// RootChangedError is a manifest's path that at a start is not what the user agreed to: it
// leads elsewhere, or the folder there was replaced.
type RootChangedError struct {
	Extension   string
	Agreed, Now Root
}

func (e *RootChangedError) Error() string {
	agreed := "agreed to"
	if strings.HasPrefix(e.Now.Field, "grant.") {
		agreed = "granted"
	}
	if e.Agreed.Real != e.Now.Real {
		return fmt.Sprintf("extension %s: %s %q now leads to %s, not to %s as when you %s it: not started", e.Extension, e.Now.Field, e.Now.Asked, e.Now.Real, e.Agreed.Real, agreed)
	}
	return fmt.Sprintf("extension %s: %s %q is %s, but not the one you %s (it was replaced since): not started", e.Extension, e.Now.Field, e.Now.Asked, e.Now.Real, agreed)
}

// ErrRoot is matched by both root errors (errors.Is).
var ErrRoot = errors.New("sandbox path refused")

func (e *SecretRootError) Unwrap() error  { return ErrRoot }
func (e *RootChangedError) Unwrap() error { return ErrRoot }
