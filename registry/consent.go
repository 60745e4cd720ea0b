package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry/lockfile"
)

// ConsentState says how an extension stands with its consent record.
type ConsentState string

const (
	ConsentNone    ConsentState = "none"      // never agreed to in gem
	ConsentGiven   ConsentState = "consented" // agreed to, and the manifest is the same
	ConsentChanged ConsentState = "changed"   // agreed to, but the manifest (or source) changed since
)

// identitySource is the source half of x's identity: the install source, or "".
func (x *Extension) identitySource() string {
	if m := x.Install(); m != nil {
		return m.Source
	}
	return ""
}

// Consented returns x's consent state and, when there is a record, the manifest agreed to.
// It is computed once per Extension.
func (x *Extension) Consented(env Env) (ConsentState, *manifest.Manifest) {
	st := x.state()
	st.consentMu.Lock()
	defer st.consentMu.Unlock()
	if st.consent != "" {
		return st.consent, st.consented
	}
	st.consent = ConsentNone
	c, err := ReadReceipt(env, x.Dir)
	m := agreedManifest(c)
	if err != nil || m == nil {
		return st.consent, nil
	}
	st.consented = m
	st.agreedVars = manifest.ReferencedVars(c.Manifest)
	st.pin = c.Pin
	current, err := x.ManifestText()
	if err == nil && string(current) == c.Manifest && c.Source == x.identitySource() {
		st.consent = ConsentGiven
	} else {
		st.consent = ConsentChanged
	}
	return st.consent, st.consented
}

// agreedManifest is the manifest the user agreed to in receipt c: nil when none (no
// receipt, no consent recorded, or not one gem can read: never agreed to).
func agreedManifest(c *Receipt) *manifest.Manifest {
	if c == nil || c.Manifest == "" {
		return nil
	}
	m, _, err := manifest.Parse([]byte(c.Manifest))
	if err != nil {
		return nil
	}
	return m
}

// PermissionManifest is the manifest whose permissions apply to x's programs: the current
// one when the user agreed to it, the one agreed to when it changed since, and none (the
// default sandbox only) when the user never agreed in gem.
func (x *Extension) PermissionManifest(env Env) *manifest.Manifest {
	switch state, agreed := x.Consented(env); state {
	case ConsentGiven:
		return x.Manifest()
	case ConsentChanged:
		return agreed
	}
	return nil
}

// AgreedHostVar reports whether the manifest the user agreed to names the host variable
// name (so its ${name} expansions may read it).
func (x *Extension) AgreedHostVar(env Env, name string) bool {
	x.Consented(env)
	st := x.state()
	st.consentMu.Lock()
	defer st.consentMu.Unlock()
	return slices.Contains(st.agreedVars, name)
}

// PinnedPayload is what the install the user agreed to pinned for server's launcher (gem.lock
// payloads, in x's receipt): ok false when nothing is pinned.
func (x *Extension) PinnedPayload(env Env, server string) (lockfile.Payload, bool) {
	x.Consented(env)
	st := x.state()
	st.consentMu.Lock()
	defer st.consentMu.Unlock()
	return st.pin.Payload(server)
}

// HostVarUses returns the host variables a manifest's text names that programs do not
// inherit by default, with the fields each is handed to: what its consent text must list.
// A variable the manifest declares as a setting is not one: the setting answers it, never
// the environment (Extension.Expander).
func HostVarUses(manifestText string) []manifest.VarUse {
	m, _, _ := manifest.Parse([]byte(manifestText))
	var out []manifest.VarUse
	for _, u := range manifest.VarUses(manifestText) {
		if !manifest.InheritedByDefault(u.Name) && !declaresSetting(m, u.Name) {
			out = append(out, u)
		}
	}
	return out
}

// declaresSetting reports whether m declares a setting whose variable is name.
func declaresSetting(m *manifest.Manifest, name string) bool {
	if m == nil {
		return false
	}
	return slices.ContainsFunc(m.Settings, func(s manifest.Setting) bool { return s.EnvVar == name })
}

// ConsentGrant is the grant recorded with x's consent (empty when never agreed to).
func (x *Extension) ConsentGrant(env Env) Grant {
	if state, _ := x.Consented(env); state == ConsentNone {
		return Grant{}
	}
	c, err := ReadReceipt(env, x.Dir)
	if err != nil || c == nil {
		return Grant{}
	}
	return c.Grant
}

// RecordConsent stores that the user agreed to x as its manifest is now, with what its
// programs need (g), in x's receipt (what an install recorded there is kept).
func RecordConsent(env Env, x *Extension, g Grant) error {
	data, err := os.ReadFile(x.ManifestPath)
	if err != nil {
		return fmt.Errorf("recording consent for %s: %w", x.Name, err)
	}
	r, err := ReadReceipt(env, x.Dir)
	if err != nil || r == nil {
		r = &Receipt{}
	}
	r.Name, r.Dir, r.Source, r.Level = x.Name, filepath.Clean(x.Dir), x.identitySource(), x.Level
	r.Manifest, r.Grant, r.Time = string(data), g, time.Now().UTC()
	if err := WriteReceipt(env, r); err != nil {
		return err
	}
	x.agreed(data)
	return nil
}

// agreed caches that the user agreed to x's manifest bytes data.
func (x *Extension) agreed(data []byte) {
	m, _, _ := manifest.Parse(data)
	st := x.state()
	st.consentMu.Lock()
	st.consent, st.consented, st.agreedVars = ConsentGiven, m, manifest.ReferencedVars(string(data))
	st.consentMu.Unlock()
}

// Block says why gem runs none of an extension's programs here.
type Block string

const (
	BlockNone        Block = ""
	BlockUntrusted   Block = "untrusted-folder"    // a project extension in a folder the user did not trust
	BlockUnconsented Block = "not-consented"       // a project extension the user never agreed to
	BlockChanged     Block = "changed"             // a project extension whose manifest changed since consent
	BlockBadName     Block = "bad-name"            // a name that is not a plain folder name
	BlockSettings    Block = "blocked-by-settings" // installed from git while security.blockGitExtensions is set
)

// Explain says what a block means (front ends add what to do).
func (x *Extension) Explain() string {
	switch x.Blocked {
	case BlockUntrusted:
		return fmt.Sprintf("project extension %s is skipped: this folder is not trusted", x.Name)
	case BlockUnconsented:
		return fmt.Sprintf("project extension %s is skipped: you have not agreed to it yet", x.Name)
	case BlockChanged:
		return fmt.Sprintf("project extension %s is skipped: its manifest changed since you agreed to it", x.Name)
	case BlockSettings:
		return fmt.Sprintf("extension %s is skipped: it was installed from git or GitHub, and security.blockGitExtensions is set", x.Name)
	case BlockBadName:
		if slices.Contains(ReservedNames, x.Name) {
			return fmt.Sprintf("extension in %s is skipped: its name %q is gem's own (the user's settings servers, the core tools); rename it (\"name\" in %s)", x.Dir, x.Name, x.ManifestPath)
		}
		return fmt.Sprintf("extension in %s is skipped: its name %q is not a plain folder name (letters, digits, '-', '_', '.'; fix \"name\" in %s)", x.Dir, x.Name, x.ManifestPath)
	}
	return ""
}

// ReservedNames are the extension names gem gives its own tools: "settings" (the MCP
// servers of the user's settings.json) and "gem" (the core tools). An extension of such a
// name would share their policy rules and data folder; it is skipped.
var ReservedNames = []string{"settings", "gem"}

// PlainName reports whether name can name folders gem makes for an extension
// ($GEM_HOME/data/<name>, its temp folder): not empty, not . or .., no separator, no NUL,
// no control character.
func PlainName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool { return r == '/' || r == '\\' || r < 0x20 || r == 0x7f })
}

// applyTrust blocks what may not run here: bad names everywhere, extensions installed from
// git while the settings block those, and project extensions in an untrusted folder or
// without a matching consent record.
func applyTrust(env Env, items []*Extension) {
	trusted, checked := false, false
	blockGit := len(items) > 0 && env.blocksGit()
	for _, x := range items {
		if !PlainName(x.Name) || slices.Contains(ReservedNames, x.Name) {
			x.Blocked = BlockBadName
			continue
		}
		if blockGit && x.installedFromGit() {
			x.Blocked = BlockSettings
			continue
		}
		if x.Level != LevelProject {
			continue
		}
		if !checked {
			trusted, checked = env.FolderTrusted(env.Cwd), true
		}
		if !trusted {
			x.Blocked = BlockUntrusted
			continue
		}
		switch state, _ := x.Consented(env); state {
		case ConsentNone:
			x.Blocked = BlockUnconsented
		case ConsentChanged:
			x.Blocked = BlockChanged
		}
	}
}

// Active reports whether x's programs may run here: not shadowed, enabled, not blocked.
func (x *Extension) Active() bool { return !x.Shadowed && x.Enabled && x.Blocked == BlockNone }

// State is the one-word state of x, as gem ext list and the /extensions command show it:
// enabled, disabled, shadowed, conflict (a project extension named like a user one), or why
// it is blocked (untrusted-folder, not-consented, changed, bad-name).
func (x *Extension) State() string {
	switch {
	case x.Conflict:
		return "conflict"
	case x.Shadowed:
		return "shadowed"
	case x.Blocked != BlockNone:
		return string(x.Blocked)
	case x.Enabled:
		return "enabled"
	default:
		return "disabled"
	}
}

// Skipped returns the effective extensions that are blocked (for the notice on stderr and
// gem doctor).
func (d *Discovery) Skipped() []*Extension {
	var out []*Extension
	for _, x := range d.All {
		if !x.Shadowed && x.Blocked != BlockNone {
			out = append(out, x)
		}
	}
	return out
}

// Synthetic is an extension gem makes from what is not an extension folder: the mcpServers
// the user wrote in a settings.json. Its manifest is m (text is what the user wrote, for the
// host variables it may name), and it counts as agreed to: the user wrote it.
func Synthetic(name, dir, manifestPath string, m *manifest.Manifest, text string) *Extension {
	x := &Extension{Name: name, Version: m.Version, Dir: dir, Path: dir, ManifestPath: manifestPath, Level: LevelUser, Enabled: true, EnabledBy: "settings", Synthetic: true}
	st := &lazyState{consent: ConsentGiven, consented: m, agreedVars: manifest.ReferencedVars(text)}
	st.manifestOnce.Do(func() { st.manifest = m })
	st.installOnce.Do(func() {})
	x.lazy.Store(st)
	return x
}

// FromProgram is the extension in dir as a program embedding gem loads it (the SDK's
// LoadExtension): the manifest as written is the program's consent, as the user's settings
// are theirs (Synthetic), so its programs get what their commands need to start, still
// sandboxed. A manifest with errors is refused, naming them.
func FromProgram(dir string) (*Extension, error) {
	x, err := LoadFolder(dir)
	if err != nil {
		return nil, err
	}
	text, err := os.ReadFile(x.ManifestPath)
	if err != nil {
		return nil, err
	}
	m, problems, err := manifest.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.ManifestPath, err)
	}
	if problems.HasErrors() {
		return nil, problems.Errors().WithFile(x.ManifestPath)
	}
	p := Synthetic(x.Name, x.Dir, x.ManifestPath, m, string(text))
	p.Description, p.EnabledBy = x.Description, "program"
	p.CommandNames, p.CommandBinaries = x.CommandNames, x.CommandBinaries
	return p, nil
}
