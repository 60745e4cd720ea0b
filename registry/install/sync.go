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
// longer installed leave the lock, but only with prune when that is every one it locks (a
// cloned project's lock before gem ext sync installed anything) or the project's folder is
// not trusted (its lock is someone else's): a *LockRemovalError, and nothing is written. A
// different hash at the same pin is a *lockfile.MismatchError and nothing is written.
func (in *Installer) WriteLock(ctx context.Context, scope registry.Level, prune bool) (*LockReport, error) {
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
	for _, x := range in.installedIn(scope) {
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
	if err := in.checkRemoval(scope, path, rep.Removed, len(next.Extensions) == 0, prune); err != nil {
		return nil, err
	}
	if len(next.Extensions) == 0 && len(old.Extensions) == 0 {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return rep, nil
		}
	}
	rep.Written = true
	return rep, next.Write(path)
}

// checkRemoval refuses, without prune, removing every entry of the lock at path (all: no
// entry is left) or any entry of an untrusted project's lock.
func (in *Installer) checkRemoval(scope registry.Level, path string, removed []string, all, prune bool) error {
	if prune || len(removed) == 0 {
		return nil
	}
	if dir := filepath.Dir(path); scope == registry.LevelProject && !in.Env.FolderTrusted(dir) {
		return &LockRemovalError{Lock: path, Removed: removed, Untrusted: dir}
	}
	if all {
		return &LockRemovalError{Lock: path, Removed: removed}
	}
	return nil
}

// LockRemovalError is gem lock removing, without prune, every extension a lock locks, or any
// in an untrusted folder (Untrusted): nothing is written.
type LockRemovalError struct {
	Lock      string
	Removed   []string // the entries it would remove: not installed here
	Untrusted string   // the untrusted folder, when that is why
}

func (e *LockRemovalError) Error() string {
	what := strings.Join(e.Removed, ", ")
	if e.Untrusted != "" {
		return fmt.Sprintf("%s is not trusted, so gem lock does not remove from its %s what is not installed here: %s", e.Untrusted, e.Lock, what)
	}
	return fmt.Sprintf("gem lock would remove every extension %s locks, none being installed here: %s", e.Lock, what)
}

func sameEntry(a, b *lockfile.Entry) bool {
	x, _ := (&lockfile.File{LockVersion: 1, Extensions: map[string]*lockfile.Entry{"x": a}}).Marshal()
	y, _ := (&lockfile.File{LockVersion: 1, Extensions: map[string]*lockfile.Entry{"x": b}}).Marshal()
	return string(x) == string(y)
}

// installedIn loads the extensions installed in every root of scope (sorted by name in
// each root).
func (in *Installer) installedIn(scope registry.Level) []*registry.Extension {
	var out []*registry.Extension
	for _, root := range in.Env.InstallRoots(scope) {
		entries, _ := os.ReadDir(root)
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
	}
	return out
}

// installedDir is the folder of scope's roots that holds name, or "".
func (in *Installer) installedDir(scope registry.Level, name string) string {
	for _, root := range in.Env.InstallRoots(scope) {
		if _, err := os.Lstat(filepath.Join(root, name)); err == nil {
			return filepath.Join(root, name)
		}
	}
	return ""
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
	// Named: the user named this lock's fetch (a bundle's lock, gem ext install x.tar), so
	// neither the folder's trust nor the question before fetching applies; the scope's own
	// gem.lock (gem ext sync) is someone else's list of sources.
	Named bool
}

// Sync makes the scope's extensions what lock pins: each locked extension not installed at
// its pin is fetched (several at once, under one state lock), compared with the lock, and only
// when every one matched are they put in place, one by one with consent; so a mismatch
// changes nothing. Extensions installed and not locked are reported (StatusNotLocked), or
// uninstalled with Prune. Before anything is fetched: a project's lock is fetched only in a
// trusted folder (*UntrustedLockError), names only remote sources or folders inside the
// project (*LocalSourceError), and the user agrees to fetching what it names (the question
// is put to in.Prompt; --consent answers it), unless opt.Named.
func (in *Installer) Sync(ctx context.Context, lock *lockfile.File, opt SyncOptions) ([]*Result, error) {
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	in.cleanStaleAll(opt.Scope) // before the fetches, which stage side by side
	entries, err := in.checkedEntries(opt.Scope, lock, nil, opt.Named)
	if err != nil {
		return nil, err
	}
	results, jobs := in.syncPlan(lock, entries, opt)
	if len(jobs) > 0 && !opt.Named {
		var fetch []string
		for _, j := range jobs {
			fetch = append(fetch, j.name)
		}
		if err := in.agreeToFetch(ctx, in.LockPath(opt.Scope), fetch, entries); err != nil {
			return nil, err
		}
	}
	defer func() {
		for _, j := range jobs {
			if j.prep != nil {
				j.prep.drop()
			}
		}
	}()
	if err := in.fetchJobs(ctx, jobs, opt.Jobs); err != nil {
		return results, err
	}
	for _, j := range jobs {
		res, err := in.place(ctx, j.prep, j.opt)
		if err != nil {
			return results, fmt.Errorf("%s: %w", j.name, err)
		}
		results = append(results, res)
	}
	rest, err := in.notLocked(lock, opt)
	return append(results, rest...), err
}

// syncJob is a locked extension Sync fetches: its entry, how it installs, and once fetched
// what was prepared (or why not).
type syncJob struct {
	name  string
	entry *lockfile.Entry
	opt   Options
	prep  *prepared
	err   error
}

// syncPlan splits the lock's entries (checked) into those installed at their pin, which
// are up to date, and the jobs that fetch the others.
func (in *Installer) syncPlan(lock *lockfile.File, entries map[string]*lockfile.Entry, opt SyncOptions) ([]*Result, []*syncJob) {
	platform := Platform(in.Env.Getenv)
	var results []*Result
	var jobs []*syncJob
	for _, name := range lock.Names() {
		e := entries[name]
		dest := in.installedDir(opt.Scope, name)
		if rec, err := registry.ReadReceipt(in.Env, dest); dest != "" && err == nil && rec != nil && rec.Pin != nil && lockfile.SamePin(rec.Pin, e) {
			if err := lockfile.Check(name, e, rec.Pin, platform, opt.Strict); err == nil {
				results = append(results, &Result{Name: name, Version: rec.Version, Path: dest, Install: *rec.Install, Status: StatusUpToDate, Pin: rec.Pin})
				continue
			}
		}
		o := LockedOptions(e, opt.Strict)
		o.Scope = opt.Scope
		o.Qualified = registry.BaseName(name) != name
		if dest != "" {
			o.Force = true // another version is installed: the locked one replaces it
		}
		jobs = append(jobs, &syncJob{name: name, entry: e, opt: o})
	}
	return results, jobs
}

// fetchJobs fetches and prepares every job, n at once (default 4): a *SyncError naming each
// that failed.
func (in *Installer) fetchJobs(ctx context.Context, jobs []*syncJob, n int) error {
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
			if j.err == nil && j.prep.x.Name != registry.BaseName(j.name) {
				j.err = fmt.Errorf("%s: %s now names its extension %q", j.name, j.entry.Source, j.prep.x.Name)
			}
		})
	}
	wg.Wait()
	var errs []error
	for _, j := range jobs {
		if j.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", j.name, j.err))
		}
	}
	if len(errs) > 0 {
		return &SyncError{Errs: errs}
	}
	return nil
}

// notLocked reports what is installed in the scope and not locked, uninstalling it with
// opt.Prune.
func (in *Installer) notLocked(lock *lockfile.File, opt SyncOptions) ([]*Result, error) {
	var results []*Result
	for _, x := range in.installedIn(opt.Scope) {
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
