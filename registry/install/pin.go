package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/gemhost/gem/internal/filehash"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/oci"
)

// Platform is the lock's name of the platform gem installs for (Node's names: linux/x64).
func Platform(getenv func(string) string) string {
	p := manifest.HostPlatforms(getenv)[0]
	return p.OS + "/" + p.Arch
}

// H1 is the h1: hash of an extension folder's files (golang.org/x/mod's dirhash.Hash1): every
// regular file and link under dir by its slash path, without .git folders and the install
// metadata gem writes. The same files give the same hash whatever they came in (a git
// checkout, an archive, a copy).
func H1(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case rel == registry.InstallMetadataFile:
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	return dirhash.Hash1(files, func(rel string) (io.ReadCloser, error) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p) // a link is hashed as what it says, never followed
			if err != nil {
				return nil, err
			}
			return io.NopCloser(strings.NewReader("link:" + filepath.ToSlash(target))), nil
		}
		return os.Open(p)
	})
}

// pinOf is what f, fetched and loaded as x, pins: the lock entry for this platform, with the
// payloads its MCP servers fetch (resolved at locked's versions when locked is given).
func (in *Installer) pinOf(ctx context.Context, f *Fetched, x *registry.Extension, locked *lockfile.Entry) (*lockfile.Entry, error) {
	h1, err := H1(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("hashing %s: %w", f.Meta.Source, err)
	}
	plat := &lockfile.Platform{H1: h1, Asset: f.Asset}
	if f.Archive != "" {
		if plat.SHA256, err = filehash.SHA256(f.Archive); err != nil {
			return nil, err
		}
	}
	e := &lockfile.Entry{
		Source: f.Meta.Source, Type: f.Meta.Type, Ref: f.Meta.Ref, Version: x.Version,
		Commit: f.Commit, ReleaseTag: f.Meta.ReleaseTag, Digest: f.Digest,
		Platforms: map[string]*lockfile.Platform{Platform(in.Env.Getenv): plat},
	}
	if in.Payloads != nil {
		if e.Payloads, err = in.Payloads(ctx, x, locked, heldPayloads(f)); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// checkLock compares what was fetched with the lock's entry when the install follows a lock
// (Options.Locked): any difference fails closed, naming it.
func (in *Installer) checkLock(name string, opt Options, pin *lockfile.Entry) error {
	if opt.Locked == nil {
		return nil
	}
	return lockfile.Check(name, opt.Locked, pin, Platform(in.Env.Getenv), opt.Strict)
}

// LockedOptions are the options that install an extension as its lock entry pins it: at the
// commit for a git source that followed a branch, else at the ref or tag the lock records
// (a tag that moved then fails the commit check instead of installing something else).
func LockedOptions(e *lockfile.Entry, strict bool) Options {
	opt := Options{Locked: e, Strict: strict}
	switch e.Type {
	case "oci":
		opt.Ref = e.Ref
		if e.Digest != "" { // a tag moves; the digest is what was locked
			opt.Ref = e.Digest
		}
	case "git", "github-release":
		opt.Ref = e.Ref
		switch {
		case e.Ref == "" && e.Commit != "":
			opt.Ref = e.Commit
		case e.Ref == "" && e.ReleaseTag != "":
			opt.Ref = e.ReleaseTag
		}
	}
	return opt
}

// NotLockedError is an extension --locked cannot install: the lock of Scope, at Lock, does not
// name it, or there is none (Missing). Elsewhere is the other scope whose lock (at
// ElsewherePath) records it: --locked reads the scope's lock alone (the user's by default),
// never another one in its place.
type NotLockedError struct {
	Source, Lock  string
	Scope         registry.Level
	Missing       bool
	Elsewhere     registry.Level
	ElsewherePath string
}

func (e *NotLockedError) Error() string {
	msg := fmt.Sprintf("%s is not in %s", e.Source, e.Lock)
	if e.Missing {
		msg = fmt.Sprintf("%s cannot be installed as locked: there is no %s (the %s's lock)", e.Source, e.Lock, e.Scope)
	}
	if e.Elsewhere != "" {
		msg += fmt.Sprintf(", but the %s's %s records it", e.Elsewhere, e.ElsewherePath)
	}
	return msg
}

// FindLocked returns the name and entry of the lock that installs source (its name, or the source
// it records).
func FindLocked(f *lockfile.File, source string) (string, *lockfile.Entry, bool) {
	if e, ok := f.Extensions[source]; ok {
		return source, e, true
	}
	abs, _ := filepath.Abs(source)
	repo := source
	if r, err := oci.ParseRef(source); err == nil { // oci://registry/repo:tag records the repository
		repo = r.Repository()
	}
	for _, name := range f.Names() {
		e := f.Extensions[name]
		if e.Source == source || e.Source == abs || e.Source == "https://github.com/"+source || e.Type == "oci" && e.Source == repo {
			return name, e, true
		}
	}
	return "", nil, false
}

// lockedEntry resolves --locked without an entry given: the name and entry of the scope's
// gem.lock that installs key (a name or a source), and the lock.
func (in *Installer) lockedEntry(scope registry.Level, key string) (string, *lockfile.Entry, *lockfile.File, error) {
	path := in.LockPath(scope)
	f, err := lockfile.Read(path)
	missing := errors.Is(err, os.ErrNotExist)
	if err != nil && !missing {
		return "", nil, nil, err
	}
	name, e, ok := "", (*lockfile.Entry)(nil), false
	if !missing {
		name, e, ok = FindLocked(f, key)
	}
	if !ok {
		nl := &NotLockedError{Source: key, Lock: path, Scope: scope, Missing: missing}
		other := registry.LevelProject
		if scope == registry.LevelProject {
			other = registry.LevelUser
		}
		if of, err := lockfile.Read(in.LockPath(other)); err == nil {
			if _, _, ok := FindLocked(of, key); ok {
				nl.Elsewhere, nl.ElsewherePath = other, in.LockPath(other)
			}
		}
		return "", nil, nil, nl
	}
	return name, e, f, nil
}

// lockedSource is the entry of install --locked: key named a source, which the lock pins;
// or the extension's name, and then a project's lock names the source, fetched as sync
// fetches it: only in a trusted folder, only a source it may name (checkedEntries), and once
// the user agreed to the fetch (the question names the source; --consent answers it).
func (in *Installer) lockedSource(ctx context.Context, scope registry.Level, key string) (*lockfile.Entry, error) {
	name, e, f, err := in.lockedEntry(scope, key)
	if err != nil || scope != registry.LevelProject || name != key {
		return e, err
	}
	entries, err := in.checkedEntries(scope, f, []string{name}, false)
	if err != nil {
		return nil, err
	}
	if err := in.agreeToFetch(ctx, in.LockPath(scope), []string{name}, entries); err != nil {
		return nil, err
	}
	return entries[name], nil
}
