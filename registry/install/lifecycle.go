package install

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// lockedFind takes the state lock and finds the effective extension name; the caller
// releases the lock.
func (in *Installer) lockedFind(name string) (*Lock, *registry.Extension, error) {
	l, err := in.lock()
	if err != nil {
		return nil, nil, err
	}
	x, err := registry.Discover(in.Env, registry.Providers).Get(name)
	if err != nil {
		l.Release()
		return nil, nil, err
	}
	return l, x, nil
}

// Update brings name up to date from its recorded source. It keeps the installed version
// until the new one is in place and leaves it untouched on any failure.
func (in *Installer) Update(ctx context.Context, name string, opt Options) (*Result, error) {
	l, x, err := in.lockedFind(name)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	res := &Result{Name: x.Name, Version: x.Version, Path: x.Dir}
	meta, src, done, err := in.updateCheck(ctx, name, x, &opt, res)
	if err != nil {
		return nil, err
	}
	if done {
		return res, nil
	}
	// A git head or an archive says no version before it is fetched: fetch it, then compare.
	staging, err := stage(filepath.Dir(x.Dir))
	if err != nil {
		return nil, err
	}
	defer dropStaging(staging)
	fopt, f, nx, problems, err := in.fetchUpdate(ctx, src, x, *meta, opt, staging)
	if err != nil {
		return nil, err
	}
	rec, _ := registry.ReadReceipt(in.Env, x.Dir)
	pin, sig, err := in.updatePin(ctx, f, nx, fopt, opt, rec)
	if err != nil {
		return nil, err
	}
	newMeta := updatedMeta(*meta, f, nx)
	if err := writeMetadata(f.Dir, newMeta); err != nil {
		return nil, err
	}
	if in.sameAsInstalled(x, nx, f.Dir) {
		res.Status = StatusUpToDate
		return res, nil
	}
	if opt.DryRun {
		res.Status, res.Version, res.Previous = StatusWouldUpdate, nx.Version, x.Version
		return res, nil
	}
	decorate := func(t string) string { return withPayloads(withSigning(t, sig), pin.Payloads) }
	text, needs, err := in.updateConsent(ctx, nx, x, meta.Source, rec, decorate, opt.Allow)
	if err != nil {
		return nil, err
	}
	in.crashPoint("update-staged")
	if err := in.swapIn(nx, f.Dir, x, newMeta, text, needs, pin); err != nil {
		return nil, err
	}
	res.Previous, res.Version, res.Install, res.Status, res.Problems, res.Pin = x.Version, nx.Version, newMeta, StatusUpdated, problems, pin
	return res, nil
}

// fetchUpdate fetches x's source (src, recorded as meta) into staging, at the lock's ref
// when opt.Locked says one, and checks it still names x's extension: the options it was
// fetched with, what was fetched and the extension there (named as x is installed).
func (in *Installer) fetchUpdate(ctx context.Context, src Source, x *registry.Extension, meta registry.InstallMetadata, opt Options, staging string) (Options, *Fetched, *registry.Extension, manifest.Problems, error) {
	fopt := opt
	fopt.Ref = meta.Ref
	if opt.Locked != nil {
		fopt.Ref = LockedOptions(opt.Locked, opt.Strict).Ref
	}
	fopt.PreRelease = meta.AllowPreRelease != nil && *meta.AllowPreRelease
	f, nx, problems, err := in.fetchChecked(ctx, src, fopt, staging, "update-fetched")
	if err != nil {
		return fopt, nil, nil, nil, err
	}
	if nx.Name != registry.BaseName(x.Name) {
		return fopt, nil, nil, nil, fmt.Errorf("the source of %q now names its extension %q: uninstall %s and install the source again", x.Name, nx.Name, x.Name)
	}
	nx.Name = x.Name // installed under its qualified name, it stays under it
	return fopt, f, nx, problems, nil
}

// updateCheck reads x's install metadata (a *NoSourceError without; name as asked),
// resolves its source and asks it for something newer: done, with res's status, when there
// is nothing to fetch (a link, which follows its folder; up to date; a dry run that knows
// the version). With opt.Strict, opt.Locked becomes the entry of the lock of x's scope: a
// lock says what to fetch, compared once fetched.
func (in *Installer) updateCheck(ctx context.Context, name string, x *registry.Extension, opt *Options, res *Result) (*registry.InstallMetadata, Source, bool, error) {
	meta := x.Install()
	switch {
	case meta == nil:
		return nil, nil, false, &NoSourceError{Name: name, File: filepath.Join(x.Dir, registry.InstallMetadataFile)}
	case meta.Type == "link":
		res.Status, res.Install = StatusUpToDate, *meta
		return meta, nil, true, nil
	}
	res.Install = *meta
	if opt.Strict && opt.Locked == nil {
		_, e, _, err := in.lockedEntry(x.Level, x.Name)
		if err != nil {
			return nil, nil, false, err
		}
		opt.Locked = e
	}
	src, err := in.Sources.Installed(*meta)
	if err != nil {
		return nil, nil, false, fmt.Errorf("extension %q: %w", x.Name, err)
	}
	newer, latest := true, ""
	if opt.Locked == nil {
		if newer, latest, err = src.Newer(ctx, x, *meta); err != nil {
			return nil, nil, false, err
		}
	}
	switch {
	case !newer:
		res.Status = StatusUpToDate
		return meta, src, true, nil
	case opt.DryRun && latest != "":
		res.Status, res.Version, res.Previous = StatusWouldUpdate, latest, x.Version
		return meta, src, true, nil
	}
	return meta, src, false, nil
}

// updatedMeta is the install metadata of an update fetched as f (nx there): meta with the
// release tag fetched and the version the new manifest records.
func updatedMeta(meta registry.InstallMetadata, f *Fetched, nx *registry.Extension) registry.InstallMetadata {
	meta.ReleaseTag, meta.Version = f.Meta.ReleaseTag, ""
	if nx.VersionRecorded && nx.Version != registry.Unversioned {
		meta.Version = nx.Version
	}
	return meta
}

// updatePin is the pin of the update fetched as f (nx there, fetched with fopt): its
// signature checked against the signer of the version the receipt rec records, and the pin
// checked against opt's lock.
func (in *Installer) updatePin(ctx context.Context, f *Fetched, nx *registry.Extension, fopt, opt Options, rec *registry.Receipt) (*lockfile.Entry, *signing, error) {
	pin, err := in.pinOf(ctx, f, nx, opt.Locked)
	if err != nil {
		return nil, nil, err
	}
	var previous *lockfile.Signer
	if rec != nil && rec.Pin != nil {
		previous = rec.Pin.Signer
	}
	sig, err := in.signed(f, fopt, previous, pin)
	if err != nil {
		return nil, nil, err
	}
	return pin, sig, in.checkLock(nx.Name, opt, pin)
}

// swapIn puts the new version nx, staged at staged, in the place of x, with its receipt
// (meta, the consent text agreed to, needs, pin): both swapped at once, or nothing changes.
func (in *Installer) swapIn(nx *registry.Extension, staged string, x *registry.Extension, meta registry.InstallMetadata, text string, needs registry.Grant, pin *lockfile.Entry) error {
	p, err := in.pending(nx, staged, x.Dir, x.Level, meta, text, needs)
	if err != nil {
		return err
	}
	p.Replaced = staged
	p.Pin = pin
	_, err = in.commit(p, "update-", func() error {
		if err := exchange(staged, x.Dir); err != nil {
			return fmt.Errorf("cannot swap in the new version of %s: %w (the installed version is unchanged)", x.Name, err)
		}
		in.crashPoint("update-swapped")
		return nil
	})
	return err
}

// updateConsent is the consent of updating x to nx (from source): what its programs need,
// admitted (secrets only by name), the consent text (with what decorate adds: signing,
// payloads), asked always when the receipt rec records none, else only when what it brings
// changed (the difference shown).
func (in *Installer) updateConsent(ctx context.Context, nx, x *registry.Extension, source string, rec *registry.Receipt, decorate func(string) string, allow []string) (string, registry.Grant, error) {
	needs := in.needsAt(nx, x.Dir)
	if err := in.admit(nx.Name, &needs, x.Dir, x, allow); err != nil {
		return "", needs, err
	}
	text := decorate(ConsentText(nx, "Updating", source, x.Dir, in.Env, needs))
	if rec == nil || rec.ConsentText == "" {
		return text, needs, in.consent(ctx, text)
	}
	if added, removed := consentDiff(rec.ConsentText, text); len(added)+len(removed) > 0 {
		return text, needs, in.consent(ctx, text+changedSince(added, removed))
	}
	return text, needs, nil
}

// changedSince says what the consent lines added and removed are, after the consent text.
func changedSince(added, removed []string) string {
	var b strings.Builder
	b.WriteString("What it brings has changed since you agreed:\n")
	for _, a := range added {
		b.WriteString("  + " + a + "\n")
	}
	for _, r := range removed {
		b.WriteString("  - " + r + "\n")
	}
	return b.String()
}

// sameAsInstalled reports whether the fetched tree at dir is what x's receipt holds: the
// same version and the same files (an archive URL or a git head that changed nothing).
func (in *Installer) sameAsInstalled(x, nx *registry.Extension, dir string) bool {
	rec, err := registry.ReadReceipt(in.Env, x.Dir)
	if err != nil || rec == nil || nx.Version != x.Version || len(rec.Files) == 0 {
		return false
	}
	now, err := HashTree(dir)
	return err == nil && maps.Equal(now, rec.Files)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Removed is one extension Uninstall took away: its name, scope and folder.
type Removed struct {
	Name  string         `json:"name"`
	Scope registry.Level `json:"scope"`
	Dir   string         `json:"dir"`
	// Deleted are the other folders of the extension removed with it: its data folder and
	// the previous version an update kept. Kept are those left (--keep-data).
	Deleted []string `json:"deleted"`
	Kept    []string `json:"kept"`
}

// UninstallOptions: KeepData leaves the extensions' data folders ($GEM_HOME/data/<name>).
type UninstallOptions struct{ KeepData bool }

// Uninstall removes extensions by name or by source, and says what it removed.
func (in *Installer) Uninstall(targets []string, opt UninstallOptions) ([]Removed, error) {
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	d := registry.Discover(in.Env, registry.Providers)
	var removed []Removed
	var errs []error
	for _, t := range targets {
		x := d.Find(t)
		if x == nil {
			for _, c := range d.Effective() {
				if m := c.Install(); m != nil && (m.Source == t || strings.TrimSuffix(m.Source, ".git") == strings.TrimSuffix(t, ".git")) {
					x = c
					break
				}
			}
		}
		if x == nil {
			errs = append(errs, &NotInstalledError{Target: t})
			continue
		}
		done, err := in.remove(x, opt)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, Removed{Name: x.Name, Scope: x.Level, Dir: x.Dir, Deleted: orEmpty(done.deleted), Kept: orEmpty(done.kept)})
	}
	return removed, errors.Join(errs...)
}

// remove takes x's folder away atomically (rename out of the root, then delete), then what
// it had beside it (settleRemoval).
func (in *Installer) remove(x *registry.Extension, opt UninstallOptions) (settled, error) {
	root := filepath.Dir(x.Dir)
	trash, err := newStaging(root)
	if err != nil {
		return settled{}, err
	}
	defer dropStaging(trash)
	p := &registry.Receipt{Name: x.Name, Dir: x.Dir, Level: x.Level, Remove: true, KeepData: opt.KeepData,
		Folder: registry.FolderStamp(x.Dir), Enablement: in.Env.EnablementPath(x.Provider)}
	if m := x.Install(); m != nil {
		p.Source = m.Source
	}
	return in.commit(p, "uninstall-", func() error {
		if err := os.Rename(x.Dir, filepath.Join(trash, "old")); err != nil {
			return fmt.Errorf("cannot remove %s: %w", x.Dir, err)
		}
		in.crashPoint("uninstall-moved")
		return nil
	})
}

// All returns the names of every effective installed extension (for uninstall/update --all).
func (in *Installer) All() []string {
	var names []string
	for _, x := range registry.Discover(in.Env, registry.Providers).Effective() {
		names = append(names, x.Name)
	}
	return names
}

// AutoUpdating returns the installed extensions whose metadata says autoUpdate.
func (in *Installer) AutoUpdating() []string {
	var names []string
	for _, x := range registry.Discover(in.Env, registry.Providers).Effective() {
		if m := x.Install(); m != nil && m.AutoUpdate != nil && *m.AutoUpdate {
			names = append(names, x.Name)
		}
	}
	return names
}

// Link installs a folder by reference: the extension path is the folder itself.
func (in *Installer) Link(path string, opt Options) (*Result, error) {
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if in.Signatures != nil && in.Signatures.Require {
		return nil, &UnsignedError{Source: abs, Setting: "security.requireSignatures", Origin: in.Signatures.RequireOrigin, NotArchive: true}
	}
	x, problems, err := in.checkStaged(abs, opt.Force, "") // a link follows its source: unversioned
	if err != nil {
		return nil, err
	}
	root := in.root(opt.Scope, x.Format)
	dest := filepath.Join(root, x.Name)
	if _, err := os.Lstat(dest); err == nil && !opt.Force {
		return nil, &AlreadyInstalledError{Name: x.Name, Path: dest, Linking: true}
	}
	needs := in.needs(x)
	if err := in.admit(x.Name, &needs, dest, nil, opt.Allow); err != nil {
		return nil, err
	}
	text := LinkConsentText(x, abs, dest, in.Env, needs)
	if err := in.consent(context.Background(), text); err != nil {
		return nil, err
	}
	staging, err := stage(root)
	if err != nil {
		return nil, err
	}
	defer dropStaging(staging)
	dir := filepath.Join(staging, "link")
	os.MkdirAll(dir, 0o755)
	meta := registry.InstallMetadata{Source: abs, Type: "link"}
	if err := writeMetadata(dir, meta); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	place := os.Rename
	if _, statErr := os.Lstat(dest); statErr == nil {
		place = exchange
	}
	manifestBytes, err := x.ManifestText()
	if err != nil {
		return nil, err
	}
	p := &registry.Receipt{Name: x.Name, Dir: dest, Source: abs, Level: opt.level(), Manifest: string(manifestBytes),
		Grant: needs, Version: x.Version, Install: &meta, ConsentText: text, Folder: registry.FolderStamp(dir), Enable: true}
	_, err = in.commit(p, "link-", func() error {
		if err := place(dir, dest); err != nil {
			return fmt.Errorf("cannot create %s: %w", dest, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{Name: x.Name, Version: x.Version, Path: abs, Install: meta, Status: StatusLinked, Problems: problems}, nil
}

// SetEnabled enables or disables name. scope is "user", "workspace" or "" (disable: user;
// enable: remove every disable that applies here and enable for the user).
func (in *Installer) SetEnabled(name, scope string, enable bool) (string, error) {
	l, x, err := in.lockedFind(name)
	if err != nil {
		return "", err
	}
	defer l.Release()
	path := in.Env.EnablementPath(x.Provider)
	e, err := registry.ReadEnablement(path)
	if err != nil {
		return "", fmt.Errorf("%s is not valid JSON (%v): fix or delete it, then retry", path, err)
	}
	var where string
	switch scope {
	case "workspace":
		e.Add(x.Name, registry.ScopeRule(in.Env.Cwd, !enable))
		where = "in " + in.Env.Cwd + " and below"
	case "user", "":
		if enable && scope == "" {
			e.RemoveDisables(x.Name, in.Env.Cwd)
			e.Add(x.Name, registry.ScopeRule(in.Env.Home, false))
			if on, _ := e.Decide(x.Name, in.Env.Cwd); !on { // an enable rule above home (cwd outside it)
				e.Add(x.Name, registry.ScopeRule(in.Env.Cwd, false))
			}
			where = "everywhere"
		} else {
			e.Add(x.Name, registry.ScopeRule(in.Env.Home, !enable))
			where = "for the user (" + in.Env.Home + " and below)"
		}
	default:
		return "", fmt.Errorf("unknown scope %q: use user or workspace", scope)
	}
	if err := registry.WriteEnablement(path, e); err != nil {
		return "", err
	}
	return where, nil
}

// Rollback puts back the version an update replaced ($GEM_HOME/backups/<name>); the
// replaced one becomes the backup, so a second rollback undoes the first.
func (in *Installer) Rollback(name string) (*Result, error) {
	l, x, err := in.lockedFind(name)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	backup := in.Env.BackupDir(x.Name)
	prev, err := registry.LoadFolder(backup)
	if err != nil {
		return nil, fmt.Errorf("no previous version of %q to roll back to (updates keep one in %s)", x.Name, backup)
	}
	root := filepath.Dir(x.Dir)
	staging, err := stage(root)
	if err != nil {
		return nil, err
	}
	defer dropStaging(staging)
	tree := filepath.Join(staging, "tree")
	if err := copyTree(backup, tree, nil); err != nil {
		return nil, err
	}
	meta := registry.InstallMetadata{}
	if m, _ := registry.ReadInstallMetadata(tree); m != nil {
		meta = *m
	}
	consent := ""
	if rec, err := registry.ReadReceiptFile(in.Env.BackupReceiptFile(x.Name)); err == nil {
		consent = rec.ConsentText
	} else if rec, err := registry.ReadReceiptFile(backup + ".record.json"); err == nil {
		consent = rec.ConsentText // kept by a gem before receipts
	}
	needs := in.needsFrom(prev, tree, x.Dir)
	if err := in.admit(x.Name, &needs, x.Dir, x, nil); err != nil {
		return nil, err
	}
	p, err := in.pending(prev, tree, x.Dir, x.Level, meta, consent, needs)
	if err != nil {
		return nil, err
	}
	p.Replaced = tree
	_, err = in.commit(p, "rollback-", func() error {
		if err := exchange(tree, x.Dir); err != nil {
			return fmt.Errorf("cannot swap %s: %w (nothing changed)", x.Dir, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{Name: x.Name, Version: prev.Version, Previous: x.Version, Path: x.Dir, Install: meta, Status: StatusRolledBack}, nil
}
