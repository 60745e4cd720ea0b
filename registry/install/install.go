package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/internal/prompt"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/claude"
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
	// Qualified installs a marketplace's plugin under its qualified name, plugin@marketplace
	// (a folder of that name), beside an installed extension of its plain name.
	Qualified bool
	// Locked: install exactly what this lock entry pins (LockedOptions), failing closed on
	// any difference; Strict (--locked): the entry must also hold this platform's hashes and
	// every payload.
	Locked *lockfile.Entry
	Strict bool
	// Signer is who must have signed it (--cert-identity …): a signature is then required.
	// Bundle is a Sigstore bundle file to check instead of the one published beside it.
	Signer *signature.Policy
	Bundle string
	// Allow are paths the user grants by name (--allow): a path the manifest asks for that
	// leads to a secret of the home is refused unless one of these holds it.
	Allow []string
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
	var g registry.Grant
	if in.Needs != nil {
		g = in.Needs(x)
	}
	g.Roots = registry.ManifestRoots(in.Env, x, "", "")
	return g
}

// needsAt is what x's programs need once x, staged, is in its place at dir.
func (in *Installer) needsAt(x *registry.Extension, dir string) registry.Grant {
	return in.needsFrom(x, x.Dir, dir)
}

// needsFrom is needsAt for x's folder copied to onDisk.
func (in *Installer) needsFrom(x *registry.Extension, onDisk, dir string) registry.Grant {
	var g registry.Grant
	if in.Needs != nil {
		g = in.Needs(x).Rebased(x.Path, dir)
	}
	g.Roots = registry.ManifestRoots(in.Env, x, onDisk, dir)
	return g
}

// admit is registry.Admit for the installer's Env.
func (in *Installer) admit(name string, needs *registry.Grant, dest string, prior *registry.Extension, allow []string) error {
	return registry.Admit(in.Env, name, needs, dest, prior, allow)
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
	x, problems, err := in.checkStaged(f.Dir, opt.Force, claude.Version(f.Version, f.Commit))
	if err != nil {
		return nil, nil, nil, sourcePaths(err, f)
	}
	return f, x, sourceProblems(problems, f), nil
}

// checkStaged runs validate's checks on an extension about to be installed: the manifest and
// the folder (errors refuse it), then Check's (errors refuse it unless force, and are then
// returned as problems to show).
// A plugin whose manifest names no version (where its format allows that) gets fallback, when
// not "" (claude.Version: its marketplace entry's, else its commit's).
func (in *Installer) checkStaged(dir string, force bool, fallback string) (*registry.Extension, manifest.Problems, error) {
	x, err := registry.LoadFolder(dir)
	if err != nil {
		return nil, nil, err
	}
	if x.VersionRecorded && fallback != "" {
		x.Version = fallback
	}
	lookup := func(name string) (string, bool) {
		v := in.Env.Getenv(name)
		return v, v != ""
	}
	problems := validate.Manifest(x.Manifest(), x.LoadProblems(), lookup)
	if x.VersionRecorded { // gem's, not the author's: nothing to say of it
		problems = problems.Without("version")
	}
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
		e, err := in.lockedSource(ctx, opt.Scope, source)
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
	in.cleanStaleAll(opt.Scope)
	prep, err := in.prepare(ctx, opt, resolve)
	if prep != nil {
		defer prep.drop()
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
	moved    string // the staging folder beside the format's root it was moved to, if any
}

// prepare fetches what resolve names into a new staging folder, checks it and pins it (and
// compares it with opt.Locked). The staging folder is returned with any error that follows
// its creation: the caller drops it.
// Several may run at once (Sync): the caller has cleaned what killed runs left.
func (in *Installer) prepare(ctx context.Context, opt Options, resolve func() (Source, error)) (*prepared, error) {
	staging, err := newStaging(in.root(opt.Scope, nil))
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
	if err := in.relocate(prep, opt.Scope); err != nil {
		return prep, err
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
	if opt.Qualified {
		q, err := qualifiedName(x.Name, f.Meta)
		if err != nil {
			return nil, err
		}
		x.Name = q
	}
	root := in.root(opt.Scope, x.Format)
	dest := filepath.Join(root, x.Name)
	_, existsErr := os.Lstat(dest)
	exists := existsErr == nil
	other := in.sameNameElsewhere(x.Name, dest, opt.level())
	if err := clash(x.Name, dest, exists, other, opt.level(), f.Meta); err != nil && !opt.Force {
		return nil, err
	}
	// --force replaces one of its name at its level in gem's other root; another is noted.
	replaces := other != nil && other.Level == opt.level() && slices.Contains(in.Env.InstallRoots(opt.level()), other.Root)
	if other != nil && !replaces {
		fmt.Fprintf(in.Out, "note: another extension named %q is at %s; the one with the higher priority is used\n", x.Name, other.Dir)
	}
	needs := in.needsAt(x, dest)
	if err := in.admit(x.Name, &needs, dest, nil, opt.Allow); err != nil {
		return nil, err
	}
	text := withPayloads(withSigning(ConsentText(x, "Installing", f.Meta.Source, dest, in.Env, needs), prep.signing), pin.Payloads)
	if err := in.consent(ctx, text); err != nil {
		return nil, err
	}
	if err := in.installCarried(ctx, f, prep.staging); err != nil {
		return nil, err
	}
	meta := f.Meta
	if x.VersionRecorded && x.Version != registry.Unversioned {
		meta.Version = x.Version
	}
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
	if replaces {
		// --force: the one of its name in gem's other root goes, or it would shadow this one
		// or be shadowed (a plugin an older gem put in Gemini CLI's root moves to gem's). Its
		// data, settings and grants stay: they are the name's.
		if _, err := in.remove(other, UninstallOptions{KeepData: true}); err != nil {
			return nil, fmt.Errorf("%s is installed in %s, but %s, of the same name, is still there: %w", x.Name, dest, other.Dir, err)
		}
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

func writeMetadata(dir string, meta registry.InstallMetadata) error {
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, registry.InstallMetadataFile), data, 0o644)
}

// enable adds the install rule "<HOME>/*" for name to the enablement file of the provider
// whose root holds dir (Gemini CLI's for its root, gem's for gem's).
func (in *Installer) enable(name, dir string) error {
	p := in.Env.ProviderOfRoot(filepath.Dir(dir))
	if p == nil {
		p = registry.ProviderByID(registry.Providers, "gemini")
	}
	path := in.Env.EnablementPath(p)
	e, err := registry.ReadEnablement(path)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v): fix or delete it, then retry", path, err)
	}
	e.Add(name, registry.ScopeRule(in.Env.Home, false))
	return registry.WriteEnablement(path, e)
}
