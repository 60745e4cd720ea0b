package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// LockPath is the gem.lock of a scope: the project's beside its .gemini folder, the user's
// in $GEM_HOME.
func (in *Installer) LockPath(scope registry.Level) string {
	if scope == registry.LevelProject {
		return paths.Workspace(in.Env.Cwd).ExtensionLock()
	}
	return in.Env.ExtensionLock()
}

// ReadLock reads the scope's gem.lock (an error wrapping os.ErrNotExist when there is none).
func (in *Installer) ReadLock(scope registry.Level) (*lockfile.File, error) {
	return lockfile.Read(in.LockPath(scope))
}

// LockReport is what writing a lock did.
type LockReport struct {
	Path      string   `json:"path"`
	Added     []string `json:"added"`     // newly locked
	Changed   []string `json:"changed"`   // a new pin, or this platform's hashes added
	Unchanged []string `json:"unchanged"` // as locked
	Removed   []string `json:"removed"`   // locked, no longer installed
	Skipped   []string `json:"skipped"`   // linked: a link follows its folder and is not locked
	// Written is false when there was nothing to lock and no lock to update: no empty lock
	// is made.
	Written bool `json:"written"`
}

// WriteLock writes the scope's gem.lock from what is installed there: each extension's pin
// as its receipt records it (computed from the installed folder when the receipt predates
// pins), merged with what the lock held (another platform's hashes stay). Extensions no
// longer installed leave the lock. A different hash at the same pin is a
// *lockfile.MismatchError and nothing is written.
func (in *Installer) WriteLock(ctx context.Context, scope registry.Level) (*LockReport, error) {
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	path := in.LockPath(scope)
	old, err := lockfile.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		old, err = lockfile.New(), nil
	}
	if err != nil {
		return nil, err
	}
	rep := &LockReport{Path: path, Added: []string{}, Changed: []string{}, Unchanged: []string{}, Removed: []string{}, Skipped: []string{}}
	next := lockfile.New()
	for _, x := range in.installedIn(in.root(scope)) {
		pin, err := in.installedPin(ctx, x)
		if err != nil {
			return nil, err
		}
		if pin == nil {
			rep.Skipped = append(rep.Skipped, x.Name)
			continue
		}
		merged, err := lockfile.Merge(x.Name, old.Extensions[x.Name], pin)
		if err != nil {
			return nil, err
		}
		next.Extensions[x.Name] = merged
		prev := old.Extensions[x.Name]
		switch {
		case prev == nil:
			rep.Added = append(rep.Added, x.Name)
		case sameEntry(prev, merged):
			rep.Unchanged = append(rep.Unchanged, x.Name)
		default:
			rep.Changed = append(rep.Changed, x.Name)
		}
	}
	for _, name := range old.Names() {
		if next.Extensions[name] == nil {
			rep.Removed = append(rep.Removed, name)
		}
	}
	if len(next.Extensions) == 0 && len(old.Extensions) == 0 {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return rep, nil
		}
	}
	rep.Written = true
	return rep, next.Write(path)
}

func sameEntry(a, b *lockfile.Entry) bool {
	x, _ := (&lockfile.File{LockVersion: 1, Extensions: map[string]*lockfile.Entry{"x": a}}).Marshal()
	y, _ := (&lockfile.File{LockVersion: 1, Extensions: map[string]*lockfile.Entry{"x": b}}).Marshal()
	return string(x) == string(y)
}

// installedIn loads the extensions installed under root (sorted by name).
func (in *Installer) installedIn(root string) []*registry.Extension {
	entries, _ := os.ReadDir(root)
	var out []*registry.Extension
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		x, err := registry.LoadFolder(filepath.Join(root, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, x)
	}
	return out
}

// installedPin is x's pin: its receipt's, else computed from its folder and install
// metadata; nil for a link.
func (in *Installer) installedPin(ctx context.Context, x *registry.Extension) (*lockfile.Entry, error) {
	meta := x.Install()
	if meta == nil || meta.Type == "link" {
		return nil, nil
	}
	if rec, err := registry.ReadReceipt(in.Env, x.Dir); err == nil && rec != nil && rec.Pin != nil {
		return rec.Pin, nil
	}
	f := &Fetched{Dir: x.Dir, Meta: *meta, Commit: gitHeadOf(x.Dir)}
	return in.pinOf(ctx, f, x, nil)
}

// SyncOptions say how Sync applies a lock.
type SyncOptions struct {
	Scope  registry.Level
	Strict bool // --locked: the lock must hold this platform's hashes and every payload
	Prune  bool // uninstall what is installed in the scope and not locked
	Jobs   int  // sources fetched at once (default 4; 1: one by one)
}

// Sync makes the scope's extensions what lock pins: each locked extension not installed at
// its pin is fetched (several at once, under one state lock), compared with the lock, and only
// when every one matched are they put in place, one by one with consent; so a mismatch
// changes nothing. Extensions installed and not locked are reported (StatusNotLocked), or
// uninstalled with Prune.
func (in *Installer) Sync(ctx context.Context, lock *lockfile.File, opt SyncOptions) ([]*Result, error) {
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	root := in.root(opt.Scope)
	cleanStale(root) // before the fetches, which stage side by side
	platform := Platform(in.Env.Getenv)
	var results []*Result
	type job struct {
		name  string
		entry *lockfile.Entry
		opt   Options
		prep  *prepared
		err   error
	}
	var jobs []*job
	for _, name := range lock.Names() {
		e := lock.Extensions[name]
		if err := in.checkLocalSource(opt.Scope, name, e); err != nil {
			return nil, err
		}
	}
	for _, name := range lock.Names() {
		e := lock.Extensions[name]
		dest := filepath.Join(root, name)
		if rec, err := registry.ReadReceipt(in.Env, dest); err == nil && rec != nil && rec.Pin != nil && lockfile.SamePin(rec.Pin, e) {
			if err := lockfile.Check(name, e, rec.Pin, platform, opt.Strict); err == nil {
				results = append(results, &Result{Name: name, Version: rec.Version, Path: dest, Install: *rec.Install, Status: StatusUpToDate, Pin: rec.Pin})
				continue
			}
		}
		o := LockedOptions(e, opt.Strict)
		o.Scope = opt.Scope
		if _, err := os.Lstat(dest); err == nil {
			o.Force = true // another version is installed: the locked one replaces it
		}
		jobs = append(jobs, &job{name: name, entry: e, opt: o})
	}
	n := opt.Jobs
	if n <= 0 {
		n = 4
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			j.prep, j.err = in.prepare(ctx, j.opt, func() (Source, error) {
				return in.Sources.Installed(registry.InstallMetadata{Source: j.entry.Source, Type: j.entry.Type, Ref: j.entry.Ref})
			})
			if j.err == nil && j.prep.x.Name != j.name {
				j.err = fmt.Errorf("%s: %s now names its extension %q", j.name, j.entry.Source, j.prep.x.Name)
			}
		})
	}
	wg.Wait()
	defer func() {
		for _, j := range jobs {
			if j.prep != nil {
				dropStaging(j.prep.staging)
			}
		}
	}()
	var errs []error
	for _, j := range jobs {
		if j.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", j.name, j.err))
		}
	}
	if len(errs) > 0 {
		return results, &SyncError{Errs: errs}
	}
	for _, j := range jobs {
		res, err := in.place(ctx, j.prep, j.opt)
		if err != nil {
			return results, fmt.Errorf("%s: %w", j.name, err)
		}
		results = append(results, res)
	}
	for _, x := range in.installedIn(root) {
		if lock.Extensions[x.Name] != nil {
			continue
		}
		res := &Result{Name: x.Name, Version: x.Version, Path: x.Dir, Status: StatusNotLocked}
		if m := x.Install(); m != nil {
			res.Install = *m
		}
		if opt.Prune {
			if _, err := in.remove(x, UninstallOptions{}); err != nil {
				return results, err
			}
			res.Status = StatusPruned
		}
		results = append(results, res)
	}
	return results, nil
}

// SyncError is a sync that changed nothing: these locked extensions could not be fetched as
// locked.
type SyncError struct{ Errs []error }

func (e *SyncError) Error() string {
	return errors.Join(e.Errs...).Error()
}

func (e *SyncError) Unwrap() []error { return e.Errs }

// LocalSourceError is a project's gem.lock naming a folder or archive outside the project:
// a cloned repository's lock must not make gem copy the user's other files into it.
type LocalSourceError struct{ Name, Source, Project string }

func (e *LocalSourceError) Error() string {
	return fmt.Sprintf("%s: the project's gem.lock names %s, which is outside the project (%s): a project's lock may name local folders and archives inside it only", e.Name, e.Source, e.Project)
}

// checkLocalSource refuses, for a project's lock, a local source outside the project (its
// links resolved: a link in the project leading out is outside too).
func (in *Installer) checkLocalSource(scope registry.Level, name string, e *lockfile.Entry) error {
	if scope != registry.LevelProject || e.Type != "local" || strings.Contains(e.Source, "://") {
		return nil
	}
	project := filepath.Dir(in.LockPath(registry.LevelProject))
	src := e.Source
	if !filepath.IsAbs(src) {
		src = filepath.Join(project, src)
	}
	if real, err := filepath.EvalSymlinks(src); err == nil {
		src = real
	}
	if realProject, err := filepath.EvalSymlinks(project); err == nil {
		project = realProject
	}
	if !pathx.Within(project, src) {
		return &LocalSourceError{Name: name, Source: e.Source, Project: project}
	}
	return nil
}
