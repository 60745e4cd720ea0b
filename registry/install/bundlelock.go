package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// BundleLock is the lock gem ext bundle writes a bundle of (Bundle): the extensions named, as
// a lock records them, or every extension of a lock when none is named.
//
// With no scope, a name is looked up in the project's gem.lock, then the user's; one that
// neither records but is installed is pinned as it is installed (as gem lock would record it):
// the bundle's own gem.lock then records it, and no lock file of the user's is written (a
// bundle is made from the project, never changes it). Without names, the project's lock is
// bundled when it locks any extension, else the user's. A scope looks in that scope's lock
// alone. out is only named in errors.
func (in *Installer) BundleLock(ctx context.Context, names []string, scope registry.Level, out string) (*lockfile.File, error) {
	scopes := []registry.Level{registry.LevelProject, registry.LevelUser}
	if scope != "" {
		scopes = []registry.Level{scope}
	}
	var locks []lockIn
	for _, sc := range scopes {
		l, err := in.readLockIn(sc)
		if err != nil {
			return nil, err
		}
		locks = append(locks, l)
	}
	if len(names) == 0 {
		for _, l := range locks {
			if l.file != nil && len(l.file.Extensions) > 0 {
				return in.checkedLock(ctx, l)
			}
		}
		return nil, &EmptyLockError{Locks: lockPaths(locks), Missing: missingLocks(locks)}
	}
	bundle := lockfile.New()
	d := registry.Discover(in.Env, registry.Providers)
	for _, name := range names {
		key, e, err := in.bundleEntry(ctx, d, name, scope, locks, out)
		if err != nil {
			return nil, err
		}
		bundle.Extensions[key] = e
	}
	return bundle, nil
}

// lockIn is a scope's gem.lock (file nil when there is none).
type lockIn struct {
	scope registry.Level
	path  string
	file  *lockfile.File
}

func (in *Installer) readLockIn(scope registry.Level) (lockIn, error) {
	l := lockIn{scope: scope, path: in.LockPath(scope)}
	f, err := lockfile.Read(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	l.file = f
	return l, err
}

func lockPaths(locks []lockIn) []string {
	var out []string
	for _, l := range locks {
		out = append(out, l.path)
	}
	return out
}

func missingLocks(locks []lockIn) []string {
	var out []string
	for _, l := range locks {
		if l.file == nil {
			out = append(out, l.path)
		}
	}
	return out
}

// bundleEntry finds name's entry: in the first lock that records it, else (no scope) as it
// is installed.
func (in *Installer) bundleEntry(ctx context.Context, d *registry.Discovery, name string, scope registry.Level, locks []lockIn, out string) (string, *lockfile.Entry, error) {
	for _, l := range locks {
		if l.file == nil {
			continue
		}
		if key, _, ok := FindLocked(l.file, name); ok {
			entries, err := in.checkedEntries(l.scope, l.file, []string{key}, false)
			return key, entries[key], err
		}
	}
	nb := &NotBundledError{Name: name, Locks: lockPaths(locks), Scope: scope, Output: out}
	x := d.Find(name)
	if x != nil {
		nb.Installed = x.Level
	}
	if scope != "" { // the other lock may record it
		other := registry.LevelUser
		if scope == registry.LevelUser {
			other = registry.LevelProject
		}
		if l, err := in.readLockIn(other); err == nil && l.file != nil {
			if _, _, ok := FindLocked(l.file, name); ok {
				nb.Elsewhere, nb.ElsewherePath = other, l.path
			}
		}
		return "", nil, nb
	}
	if x == nil {
		return "", nil, nb
	}
	pin, err := in.installedPin(ctx, x)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	if pin == nil {
		nb.Linked = x.Path
		return "", nil, nb
	}
	return x.Name, pin, nil
}

// NotBundledError is an extension gem ext bundle cannot take: no lock it looked in records
// it, and (when every lock was looked in) it is not installed, or only linked.
type NotBundledError struct {
	Name   string
	Locks  []string       // the lock files looked in
	Scope  registry.Level // the one scope looked in ("" for every one)
	Output string         // the bundle asked for
	// Installed is the level it is installed at ("" when it is not); Linked the folder of a
	// linked one (nothing to pin); Elsewhere the scope whose lock records it, not looked in.
	Installed     registry.Level
	Linked        string
	Elsewhere     registry.Level
	ElsewherePath string
}

func (e *NotBundledError) Error() string {
	msg := fmt.Sprintf("%s is not in %s", e.Name, strings.Join(e.Locks, " or "))
	switch {
	case e.Linked != "":
		msg += fmt.Sprintf(", and is linked (the folder %s: nothing to pin)", e.Linked)
	case e.Scope == "" && e.Installed == "":
		msg += ", and is not installed"
	}
	return msg
}

// EmptyLockError: gem ext bundle without names, and no lock looked in locks an extension.
type EmptyLockError struct {
	Locks   []string // looked in
	Missing []string // those of Locks that do not exist
}

func (e *EmptyLockError) Error() string {
	var says []string
	for _, p := range e.Locks {
		if slices.Contains(e.Missing, p) {
			says = append(says, "there is no "+p)
		} else {
			says = append(says, p+" locks no extension")
		}
	}
	return "nothing to bundle: " + strings.Join(says, ", and ")
}

// checkedLock is l with every entry as a fetch of its scope's lock may use it
// (checkedEntries). Without names the lock, not the user, says what to fetch: a project's
// lock is fetched only once the user agreed, as gem ext sync asks (agreeToFetch).
func (in *Installer) checkedLock(ctx context.Context, l lockIn) (*lockfile.File, error) {
	entries, err := in.checkedEntries(l.scope, l.file, nil, false)
	if err != nil {
		return nil, err
	}
	if l.scope == registry.LevelProject {
		if err := in.agreeToFetch(ctx, l.path, l.file.Names(), entries); err != nil {
			return nil, err
		}
	}
	out := *l.file
	out.Extensions = entries
	return &out, nil
}
