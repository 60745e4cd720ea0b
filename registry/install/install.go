package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/internal/netaddr"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/internal/prompt"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/validate"
	"github.com/gemhost/gem/manifest/version"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/signature"
)

// level is the scope installed into: project, else user (the default).
func (o Options) level() registry.Level {
	if o.Scope == registry.LevelProject {
		return registry.LevelProject
	}
	return registry.LevelUser
}

// Options are the flags of install and update.
type Options struct {
	Ref        string
	Path       string         // a subfolder of the repository (--path; owner/repo//path says it too)
	Scope      registry.Level // user (default) or project
	AutoUpdate bool
	PreRelease bool
	Force      bool
	DryRun     bool
	// Locked: install exactly what this lock entry pins (LockedOptions), failing closed on
	// any difference; Strict (--locked): the entry must also hold this platform's hashes and
	// every payload.
	Locked *lockfile.Entry
	Strict bool
	// Signer is who must have signed it (--cert-identity …): a signature is then required.
	// Bundle is a Sigstore bundle file to check instead of the one published beside it.
	Signer *signature.Policy
	Bundle string
}

// ConsentQuestion is the question consent to an extension asks: its consent text, then
// whether to go on.
func ConsentQuestion(text string) prompt.Question {
	return prompt.Question{Text: text + "Do you want to continue?", Default: true}
}

// consent asks the user to agree to text: nil when they did.
func (in *Installer) consent(ctx context.Context, text string) error {
	if in.Unattended {
		return ErrConsentNeeded
	}
	ok, err := in.Prompt.Confirm(ctx, ConsentQuestion(text))
	if err != nil {
		return fmt.Errorf("cannot ask for consent: %w", err)
	}
	if !ok {
		return ErrDeclined
	}
	return nil
}

// ErrDeclined is returned when the user says no.
var ErrDeclined = errors.New("cancelled: you declined; nothing was changed")

// ErrConsentNeeded is returned by an unattended update (--auto) of an extension whose consent
// text changed: it needs the user's agreement, so it is skipped.
var ErrConsentNeeded = errors.New("what it brings changed, so it needs your consent")

// Installer changes what is installed.
type Installer struct {
	Env     registry.Env
	Sources Sources         // where extensions come from (*Fetcher)
	Prompt  prompt.Prompter // asks consent (the consent text, then "Do you want to continue?")
	// Unattended: nobody is asked (update --auto); what needs consent fails with
	// ErrConsentNeeded.
	Unattended bool
	// CrashAt names a step at which gem kills itself with SIGKILL (GEM_TEST_CRASH_AT): tests
	// prove with it that no step leaves the extension missing or half-written.
	CrashAt    string
	GemVersion string
	Out        io.Writer // one line per result; notices (waiting for the lock)
	// Check runs further checks on a staged extension (the CLI's: binaries built for this
	// platform, their pins, MCP commands that exist), as gem ext validate does. Nil: none.
	Check func(*registry.Extension) manifest.Problems
	// Policy is what the settings allow to be installed (nil: anything).
	Policy *SourcePolicy
	// Mirrors hold locked extensions by the hash of their files (mirror.go): an install that
	// follows a lock fetches from the first that has it, else from the origin.
	Mirrors []Mirror
	// Signatures is how signatures are checked (nil: found ones are verified against the
	// source's default policy with Sigstore's public-good root; none is required).
	Signatures *Signatures
	// Payloads resolves what x's MCP servers fetch when they start (npm packages …), pinned:
	// at the versions locked has when it is given. Nil: nothing is pinned.
	// Those in held (carried by the mirror the extension comes from) are taken as locked pins
	// them: their files are checked against that pin when installed (Carrier).
	Payloads func(ctx context.Context, x *registry.Extension, locked *lockfile.Entry, held []lockfile.Payload) ([]lockfile.Payload, error)
	// Carrier carries payloads in bundles and mirrors (nil: they carry extensions only).
	Carrier PayloadCarrier
	// Needs works out what an extension's programs need to run (launcher profiles and
	// toolchains, host/commands.Needs): shown at consent and recorded with it. Nil: nothing.
	Needs func(*registry.Extension) registry.Grant
}

func (in *Installer) needs(x *registry.Extension) registry.Grant {
	if in.Needs == nil {
		return registry.Grant{}
	}
	return in.Needs(x)
}

// needsAt is what x's programs need once x, staged, is in its place at dir.
func (in *Installer) needsAt(x *registry.Extension, dir string) registry.Grant {
	return in.needs(x).Rebased(x.Path, dir)
}

// Status is what an install, link, update or rollback did.
type Status string

// The statuses of a Result.
const (
	StatusInstalled   Status = "installed"
	StatusLinked      Status = "linked"
	StatusUpdated     Status = "updated"
	StatusUpToDate    Status = "up-to-date"
	StatusWouldUpdate Status = "would-update"
	StatusRolledBack  Status = "rolled-back"
	StatusFailed      Status = "failed"
	StatusNotLocked   Status = "not-locked" // gem ext sync: installed, not in gem.lock
	StatusPruned      Status = "pruned"     // gem ext sync --prune: uninstalled, not in gem.lock
)

// Result describes an installed or updated extension.
type Result struct {
	Name     string                   `json:"name"`
	Version  string                   `json:"version"`
	Previous string                   `json:"previousVersion,omitempty"`
	Path     string                   `json:"path"`
	Install  registry.InstallMetadata `json:"install"`
	Status   Status                   `json:"status"`
	Error    string                   `json:"error,omitempty"`
	Problems manifest.Problems        `json:"problems,omitempty"`
	Pin      *lockfile.Entry          `json:"pin,omitempty"` // what gem lock records for it
}

func (in *Installer) root(scope registry.Level) string {
	if scope == registry.LevelProject { // "" is the user's
		return paths.Workspace(in.Env.Cwd).GeminiExtensionsDir()
	}
	return in.Env.GeminiExtensionsDir()
}

// lock takes the state lock and settles what a killed gem left.
func (in *Installer) lock() (*Lock, error) {
	l, err := AcquireLock(in.Env.LockFile(), in.Out)
	if err != nil {
		return nil, err
	}
	in.reconcile()
	return l, nil
}

// cleanStale removes staging folders left by killed runs (the lock is held), never through a
// link (checkStaging).
func cleanStale(root string) {
	if checkStaging(root) != nil {
		return
	}
	entries, err := os.ReadDir(stagingDir(root))
	if err != nil {
		return
	}
	for _, e := range entries {
		os.RemoveAll(filepath.Join(stagingDir(root), e.Name()))
	}
}

// checkStaged validates a fetched tree as install requires: manifest, binaries for this
// platform inside the folder, engines.gem.
// fetchChecked fetches source into staging and checks what came: no link leaves it, and it
// is an extension (the crash point after the fetch is named for tests).
func (in *Installer) fetchChecked(ctx context.Context, src Source, opt Options, staging, point string) (*Fetched, *registry.Extension, manifest.Problems, error) {
	f, err := src.Fetch(ctx, staging, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := in.Policy.check(f.Meta.Source, f.Meta.Type); err != nil {
		return nil, nil, nil, err
	}
	in.crashPoint(point)
	if err := CheckLinks(f.Dir); err != nil {
		return nil, nil, nil, sourcePaths(err, f)
	}
	x, problems, err := in.checkStaged(f.Dir, opt.Force)
	if err != nil {
		return nil, nil, nil, sourcePaths(err, f)
	}
	return f, x, sourceProblems(problems, f), nil
}

// checkStaged runs validate's checks on an extension about to be installed: the manifest and
// the folder (errors refuse it), then Check's (errors refuse it unless force, and are then
// returned as problems to show).
func (in *Installer) checkStaged(dir string, force bool) (*registry.Extension, manifest.Problems, error) {
	x, err := registry.LoadFolder(dir)
	if err != nil {
		return nil, nil, err
	}
	lookup := func(name string) (string, bool) {
		v := in.Env.Getenv(name)
		return v, v != ""
	}
	problems := validate.Manifest(x.Manifest(), x.LoadProblems(), lookup)
	problems = append(problems, x.CheckFolder(in.Env)...)
	if problems.HasErrors() {
		return x, problems, &InvalidError{Name: x.Name, Problems: indent(problems.Errors().Error())}
	}
	if err := version.CheckEngine(x.Name, x.Manifest().Engines.Gem, in.GemVersion); err != nil {
		return x, problems, err
	}
	if in.Check != nil {
		more := in.Check(x)
		if more.HasErrors() && !force {
			return x, problems, &InvalidError{Name: x.Name, Problems: indent(more.Errors().Error()), Forceable: true}
		}
		problems = append(problems, more...)
	}
	return x, problems, nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// Install fetches source, validates it, asks consent and puts it in place.
// With opt.Strict and no opt.Locked, the scope's gem.lock must name source, and what is
// installed is what it pins.
func (in *Installer) Install(ctx context.Context, source string, opt Options) (res *Result, err error) {
	defer func() { err = redactPassword(err, source) }()
	if opt.Strict && opt.Locked == nil {
		e, err := in.lockedEntry(opt.Scope, source)
		if err != nil {
			return nil, err
		}
		if opt.Ref != "" && opt.Ref != e.Ref {
			return nil, &lockfile.MismatchError{Name: source, Field: "ref", Locked: e.Ref, Got: opt.Ref}
		}
		lopt := LockedOptions(e, true)
		opt.Locked, opt.Ref = e, lopt.Ref
		return in.install(ctx, opt, func() (Source, error) {
			return in.Sources.Installed(registry.InstallMetadata{Source: e.Source, Type: e.Type, Ref: e.Ref})
		})
	}
	return in.install(ctx, opt, func() (Source, error) { return in.Sources.Parse(source, opt) })
}

// InstallSource installs from a source resolved elsewhere (an MCP registry server), as
// Install does.
func (in *Installer) InstallSource(ctx context.Context, src Source, opt Options) (*Result, error) {
	return in.install(ctx, opt, func() (Source, error) { return src, nil })
}

func (in *Installer) install(ctx context.Context, opt Options, resolve func() (Source, error)) (*Result, error) {
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	cleanStale(in.root(opt.Scope))
	prep, err := in.prepare(ctx, opt, resolve)
	if prep != nil {
		defer dropStaging(prep.staging)
	}
	if err != nil {
		return nil, err
	}
	return in.place(ctx, prep, opt)
}

// prepared is an extension fetched, checked and pinned in its staging folder, not yet in
// place (the state lock is held).
type prepared struct {
	staging  string
	f        *Fetched
	x        *registry.Extension
	problems manifest.Problems
	pin      *lockfile.Entry
	signing  *signing
}

// prepare fetches what resolve names into a new staging folder, checks it and pins it (and
// compares it with opt.Locked). The staging folder is returned with any error that follows
// its creation: the caller drops it.
// Several may run at once (Sync): the caller has cleaned what killed runs left.
func (in *Installer) prepare(ctx context.Context, opt Options, resolve func() (Source, error)) (*prepared, error) {
	staging, err := newStaging(in.root(opt.Scope))
	if err != nil {
		return nil, err
	}
	prep := &prepared{staging: staging}
	prep.f, prep.x, prep.problems, err = in.fetchLocked(ctx, opt, staging)
	switch {
	case err == nil:
	case !errors.Is(err, errNoMirror):
		return prep, err
	default:
		src, err := resolve()
		if err != nil {
			return prep, err
		}
		if prep.f, prep.x, prep.problems, err = in.fetchChecked(ctx, src, opt, staging, "fetched"); err != nil {
			return prep, err
		}
	}
	if opt.Locked != nil {
		// Fetched at the lock's commit or tag, it records the ref the lock was made with: it
		// follows what it followed before (gem ext update), and it pins as the lock does.
		prep.f.Meta.Ref = opt.Locked.Ref
	}
	if prep.pin, err = in.pinOf(ctx, prep.f, prep.x, opt.Locked); err != nil {
		return prep, err
	}
	if prep.signing, err = in.signed(prep.f, opt, nil, prep.pin); err != nil {
		return prep, err
	}
	return prep, in.checkLock(prep.x.Name, opt, prep.pin)
}

// place asks consent to a prepared extension and puts it in place.
func (in *Installer) place(ctx context.Context, prep *prepared, opt Options) (*Result, error) {
	f, x, problems, pin := prep.f, prep.x, prep.problems, prep.pin
	root := in.root(opt.Scope)
	dest := filepath.Join(root, x.Name)
	_, existsErr := os.Lstat(dest)
	exists := existsErr == nil
	if exists && !opt.Force {
		return nil, &AlreadyInstalledError{Name: x.Name, Path: dest}
	}
	if other := in.sameNameElsewhere(x.Name, dest); other != "" {
		fmt.Fprintf(in.Out, "note: another extension named %q is at %s; the one with the higher priority is used\n", x.Name, other)
	}
	needs := in.needsAt(x, dest)
	text := withPayloads(withSigning(ConsentText(x, "Installing", f.Meta.Source, dest, in.Env, needs), prep.signing), pin.Payloads)
	if err := in.consent(ctx, text); err != nil {
		return nil, err
	}
	if err := in.installCarried(ctx, f, prep.staging); err != nil {
		return nil, err
	}
	meta := f.Meta
	if opt.AutoUpdate {
		meta.AutoUpdate = ptr(true)
	}
	if opt.PreRelease {
		meta.AllowPreRelease = ptr(true)
	}
	if err := writeMetadata(f.Dir, meta); err != nil {
		return nil, err
	}
	in.crashPoint("staged")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	p, err := in.pending(x, f.Dir, dest, opt.level(), meta, text, needs)
	if err != nil {
		return nil, err
	}
	p.Pin = pin
	p.Enable = true
	if exists {
		p.Replaced = f.Dir // --force: the replaced version is kept as the backup
	}
	_, err = in.commit(p, "", func() error {
		if exists {
			if err := exchange(f.Dir, dest); err != nil {
				return fmt.Errorf("cannot replace %s: %w", dest, err)
			}
		} else if err := os.Rename(f.Dir, dest); err != nil {
			return fmt.Errorf("cannot move the extension into %s: %w", dest, err)
		}
		in.crashPoint("renamed")
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{Name: x.Name, Version: x.Version, Path: dest, Install: meta, Status: StatusInstalled, Problems: problems, Pin: pin}, nil
}

// sourcePaths names the source instead of the staging folder in an error (its type kept:
// errors.As still finds it).
func sourcePaths(err error, f *Fetched) error {
	msg := strings.ReplaceAll(err.Error(), f.Dir, f.Meta.Source)
	if msg == err.Error() {
		return err
	}
	return &renamedError{msg: msg, err: err}
}

// sourceProblems names the source the user gave, not the staging folder it was fetched
// into, in the problems found there (as sourcePaths does in errors).
func sourceProblems(ps manifest.Problems, f *Fetched) manifest.Problems {
	source := WithoutPassword(f.Meta.Source)
	for i := range ps {
		for _, s := range []*string{&ps[i].File, &ps[i].Value, &ps[i].Want} {
			*s = strings.ReplaceAll(*s, f.Dir, source)
		}
	}
	return ps
}

type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

func ptr[T any](v T) *T { return &v }

func (in *Installer) sameNameElsewhere(name, dest string) string {
	d := registry.Discover(in.Env, registry.Providers)
	for _, x := range d.All {
		if x.Name == name && x.Dir != dest {
			return x.Dir
		}
	}
	return ""
}

func writeMetadata(dir string, meta registry.InstallMetadata) error {
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, registry.InstallMetadataFile), data, 0o644)
}

// enable adds Gemini CLI's install rule "<HOME>/*" for name.
func (in *Installer) enable(name string) error {
	p := registry.ProviderByID(registry.Providers, "gemini")
	path := in.Env.EnablementPath(p)
	e, err := registry.ReadEnablement(path)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v): fix or delete it, then retry", path, err)
	}
	e.Add(name, registry.ScopeRule(in.Env.Home, false))
	return registry.WriteEnablement(path, e)
}

// ConsentText says what an extension brings, as Gemini CLI's install consent lists it.
// needs is what its programs need beyond the default sandbox (launcher profiles,
// toolchains), granted with the consent.
func ConsentText(x *registry.Extension, verb, source, dest string, env registry.Env, needs registry.Grant) string {
	m := x.Manifest()
	var b strings.Builder
	fmt.Fprintf(&b, "%s extension %q %s from %s\n", verb, x.Name, x.Version, source)
	var lines []string
	for _, c := range m.Commands {
		lines = append(lines, fmt.Sprintf("executable command /%s runs %s", c.Name, c.Binary))
	}
	for _, p := range m.Plugins {
		lines = append(lines, fmt.Sprintf("tool plugin %s runs %s", p.ID, p.Binary))
	}
	for _, s := range m.MCPServers {
		switch {
		case s.Command != "":
			l := fmt.Sprintf("MCP server %q (stdio) runs: %s", s.Name, strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " ")))
			if s.Cwd != "" {
				l += " (in " + s.Cwd + ")"
			}
			if len(s.Env) > 0 {
				var env []string
				for _, kv := range s.Env {
					env = append(env, kv.Key+"="+manifest.Mask(kv.Key, kv.Value))
				}
				l += " with env " + strings.Join(env, ", ")
			}
			lines = append(lines, l)
		case s.HTTPURL != "":
			lines = append(lines, fmt.Sprintf("MCP server %q (http) at %s%s", s.Name, s.HTTPURL, localNote(s.HTTPURL, m)))
		case s.URL != "":
			lines = append(lines, fmt.Sprintf("MCP server %q (sse) at %s%s", s.Name, s.URL, localNote(s.URL, m)))
		case s.TCP != "":
			lines = append(lines, fmt.Sprintf("MCP server %q (tcp) at %s", s.Name, s.TCP))
		}
	}
	var ctxFiles []string
	for _, c := range m.ContextFiles() {
		if _, err := os.Stat(filepath.Join(x.Path, c)); err == nil {
			ctxFiles = append(ctxFiles, c)
		}
	}
	if len(ctxFiles) > 0 {
		lines = append(lines, "context files for the model: "+strings.Join(ctxFiles, ", "))
	}
	if len(m.ExcludeTools) > 0 {
		lines = append(lines, "excludes tools: "+strings.Join(m.ExcludeTools, ", "))
	}
	if _, err := os.Stat(filepath.Join(x.Path, "hooks", "hooks.json")); err == nil {
		lines = append(lines, "hooks: hooks/hooks.json (commands run on agent events)")
	}
	if skills, _ := filepath.Glob(filepath.Join(x.Path, "skills", "*", "SKILL.md")); len(skills) > 0 {
		var names []string
		for _, s := range skills {
			names = append(names, filepath.Base(filepath.Dir(s)))
		}
		lines = append(lines, "skills: "+strings.Join(names, ", "))
	}
	prompts := 0
	filepath.WalkDir(filepath.Join(x.Path, "commands"), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && strings.HasSuffix(p, ".toml") {
			prompts++
		}
		return nil
	})
	if prompts > 0 {
		lines = append(lines, fmt.Sprintf("prompt commands: %d in commands/", prompts))
	}
	_, hooksErr := os.Stat(filepath.Join(x.Path, "hooks", "hooks.json"))
	if runs := len(m.Commands) > 0 || len(m.Plugins) > 0 || hasStdioServer(m) || hooksErr == nil; runs {
		lines = append(lines, "its programs run sandboxed: they read the system, the extension and your project, write their own data folder and /tmp, and have no network and do not change your project, but for what the lines below give or ask for")
	}
	lines = append(lines, sandboxes(m)...)
	if l := needs.Lines(env.Home); len(l) > 0 {
		lines = append(lines, "to run its programs (their launchers and toolchains) it is given: "+strings.Join(l, ", "))
	}
	for _, n := range needs.Notes {
		lines = append(lines, "NOT given: "+n)
	}
	if text, err := x.ManifestText(); err == nil {
		if vars := registry.HostVars(string(text)); len(vars) > 0 {
			lines = append(lines, "reads these variables of your environment into its settings, arguments or env: "+strings.Join(vars, ", "))
		}
	}
	if len(lines) == 0 {
		lines = append(lines, "nothing that runs: no commands, plugins or MCP servers")
	}
	for _, l := range lines {
		b.WriteString("  * " + l + "\n")
	}
	fmt.Fprintf(&b, "It will be installed in %s.\n", dest)
	b.WriteString("Extensions run code on your machine with the permissions above; install only extensions you trust.\n")
	return b.String()
}

func hasStdioServer(m *manifest.Manifest) bool {
	for _, s := range m.MCPServers {
		if s.Command != "" {
			return true
		}
	}
	return false
}

// localNote says when a remote server's address is the machine's own or the local
// network's: gem reaches it for the extension only with the network capability.
func localNote(raw string, m *manifest.Manifest) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := u.Hostname()
	local := host == "localhost" || strings.HasSuffix(host, ".localhost")
	if a, err := netip.ParseAddr(host); err == nil && !netaddr.Public(a, nil) {
		local = true
	}
	if !local {
		return ""
	}
	if m.Sandbox != nil && m.Sandbox.Network {
		return " (a local or private address: it asks for the network, below)"
	}
	return " (a local or private address: not reached unless the network is granted)"
}

func sandboxes(m *manifest.Manifest) []string {
	var out []string
	add := func(who string, s *manifest.Sandbox) {
		if s == nil {
			return
		}
		if s.Network {
			out = append(out, who+" asks for network access")
		}
		if len(s.Read) > 0 {
			out = append(out, who+" asks to read "+strings.Join(s.Read, ", "))
		}
		var write []string
		for _, w := range s.Write {
			if manifest.NamesWorkspace(w) {
				out = append(out, who+" asks to "+registry.WorkspaceLine+" (never .git, agent or editor settings)")
				continue
			}
			write = append(write, w)
		}
		if len(write) > 0 {
			out = append(out, who+" asks to write "+strings.Join(write, ", "))
		}
		if len(s.Env) > 0 {
			out = append(out, who+" asks for environment variables "+strings.Join(s.Env, ", "))
		}
	}
	add("the extension", m.Sandbox)
	for _, p := range m.Plugins {
		add("plugin "+p.ID, p.Sandbox)
	}
	return out
}

// consentDiff lists the lines of the new consent text that the old one did not have, and
// the old ones that are gone.
func consentDiff(oldText, newText string) (added, removed []string) {
	body := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "  * ") {
				out = append(out, strings.TrimPrefix(l, "  * "))
			}
		}
		return out
	}
	return diffLines(body(oldText), body(newText))
}

// ManifestDiff lists the lines of a manifest's text added and removed between two versions
// (trimmed; for the question asked when a manifest changed since consent).
func ManifestDiff(oldText, newText string) (added, removed []string) {
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	return diffLines(lines(oldText), lines(newText))
}

// diffLines lists the lines of n missing from o (added) and of o missing from n (removed).
func diffLines(o, n []string) (added, removed []string) {
	for _, l := range n {
		if !slices.Contains(o, l) {
			added = append(added, l)
		}
	}
	for _, l := range o {
		if !slices.Contains(n, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}
