package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/filehash"
	"github.com/gemhost/gem/registry"
)

// A change of what is installed (install, update, link, rollback, uninstall) is one
// transaction, under the state lock:
//
//  1. the new receipt is written as pending, naming the folder it describes by its file
//     identity (crash points "pending", "update-pending", "uninstall-pending", …);
//  2. the folder is renamed into place, swapped with the installed one, or renamed away:
//     the commit point, after which readers take the pending receipt as current;
//  3. settle: enablement, the backup of the replaced version, the user's grant of a removed
//     extension, and finally the receipt made current and the pending one dropped.
//
// Every step of settle can run again, so the next lock settles what a killed gem left
// (reconcile): committed changes are finished, the others forgotten.

// commit runs steps 1 to 3 of p's change: place is the rename (step 2).
func (in *Installer) commit(p *registry.Receipt, verb string, place func() error) (settled, error) {
	p.Time = time.Now().UTC()
	if err := registry.WritePendingReceipt(in.Env, p); err != nil {
		return settled{}, err
	}
	in.crashPoint(verb + "pending")
	if err := place(); err != nil {
		registry.DropPendingReceipt(in.Env, p.Dir)
		return settled{}, err
	}
	return in.settle(p)
}

// settled is what settling a removal deleted and kept beside the folder.
type settled struct{ deleted, kept []string }

// settle finishes p's change when it was committed, and forgets it when not (step 3).
func (in *Installer) settle(p *registry.Receipt) (settled, error) {
	if !p.Committed() {
		return settled{}, registry.DropPendingReceipt(in.Env, p.Dir)
	}
	var out settled
	if p.Remove {
		if err := in.settleRemoval(p, &out); err != nil {
			return out, err
		}
	} else {
		if p.Enable {
			if err := in.enable(p.Name, p.Dir); err != nil {
				return out, err
			}
			in.crashPoint("enabled")
		}
		if p.Replaced != "" {
			in.keepBackup(p.Name, p.Dir, p.Replaced)
		}
		if !in.newerReceipt(p) {
			if err := registry.WriteReceipt(in.Env, p); err != nil {
				return out, err
			}
		}
	}
	in.crashPoint("recorded")
	return out, registry.DropPendingReceipt(in.Env, p.Dir)
}

// newerReceipt reports whether the folder's current receipt was written after p (a consent
// recorded between the commit and the settle): it stands, and p only settles the rest.
func (in *Installer) newerReceipt(p *registry.Receipt) bool {
	cur, err := registry.CurrentReceipt(in.Env, p.Dir)
	return err == nil && cur != nil && cur.Time.After(p.Time)
}

// settleRemoval takes away what a removed extension owned beside its folder (owned.go).
func (in *Installer) settleRemoval(p *registry.Receipt, out *settled) error {
	var err error
	out.deleted, out.kept, err = in.removeOwned(p)
	return err
}

// reconcile settles the changes killed gems left, then removes what they left in staging
// (the lock is held).
func (in *Installer) reconcile() {
	for _, p := range registry.PendingReceipts(in.Env) {
		if _, err := in.settle(p); err != nil && in.Out != nil {
			fmt.Fprintf(in.Out, "note: could not finish an interrupted change of %s: %v\n", p.Dir, err)
		}
	}
	for _, scope := range []registry.Level{registry.LevelUser, registry.LevelProject} {
		for _, root := range in.Env.InstallRoots(scope) {
			if checkStaging(root) == nil { // never through a link (a cloned project's)
				cleanStale(root)
				os.Remove(stagingDir(root))
			}
		}
	}
}

// pending is the receipt of x, staged at dir and about to be placed at dest.
func (in *Installer) pending(x *registry.Extension, dir, dest string, scope registry.Level, meta registry.InstallMetadata, text string, needs registry.Grant) (*registry.Receipt, error) {
	manifestBytes, err := x.ManifestText()
	if err != nil {
		return nil, err
	}
	files, err := HashTree(dir)
	if err != nil {
		return nil, err
	}
	return &registry.Receipt{
		Name: x.Name, Dir: filepath.Clean(dest), Source: meta.Source, Level: scope,
		Manifest: string(manifestBytes), Grant: needs, Version: x.Version, Install: &meta,
		ConsentText: text, Files: files, Folder: registry.FolderStamp(dir),
	}, nil
}

// keepBackup moves the replaced version (now at old) to $GEM_HOME/backups/<name>, with the
// receipt of the folder dir it was in (for rollback).
func (in *Installer) keepBackup(name, dir, old string) {
	if _, err := os.Lstat(old); err != nil || !registry.PlainName(name) {
		return // kept already (a settle run again), or no folder of gem's may be named so
	}
	backup := in.Env.BackupDir(name)
	os.RemoveAll(backup)
	os.Remove(in.Env.BackupReceiptFile(name))
	if err := os.MkdirAll(filepath.Dir(backup), 0o700); err != nil {
		return
	}
	if r, err := registry.CurrentReceipt(in.Env, dir); err == nil && r != nil {
		registry.WriteReceiptFile(in.Env.BackupReceiptFile(name), r)
	}
	if os.Rename(old, backup) != nil {
		copyTree(old, backup, nil) // another filesystem
		os.RemoveAll(old)
	}
}

// hashSkipped are files that change after install by design.
func hashSkipped(rel string) bool {
	return rel == ".git" || strings.HasPrefix(rel, ".git/") || rel == ".env" || rel == registry.InstallMetadataFile
}

// HashTree returns the SHA-256 of every regular file below dir (links as their text).
func HashTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if hashSkipped(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256([]byte(link))
			out[rel] = "link:" + hex.EncodeToString(sum[:])
		case d.Type().IsRegular():
			sum, err := filehash.SHA256(path)
			if err != nil {
				return err
			}
			out[rel] = sum
		}
		return nil
	})
	return out, err
}

// NoReceiptError: an extension gem did not install (linked, hand-placed, or installed by
// Gemini CLI) has no file hashes to verify against.
type NoReceiptError struct{ Name string }

func (e *NoReceiptError) Error() string {
	return fmt.Sprintf("no install record for %q: only extensions installed by gem have one; reinstall it to create one", e.Name)
}

// Verify compares the installed extension name's files with its receipt. It returns the
// changed, missing and added files (sorted).
func Verify(env registry.Env, name string) (changed, missing, added []string, err error) {
	x, err := registry.Discover(env, registry.Providers).Get(name)
	if err != nil {
		return nil, nil, nil, err // no such extension: not a missing record
	}
	return VerifyExtension(env, x)
}

// VerifyExtension is Verify of a found extension.
func VerifyExtension(env registry.Env, x *registry.Extension) (changed, missing, added []string, err error) {
	r, err := registry.ReadReceipt(env, x.Dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the install record of %q is unreadable (%w): reinstall it to write a new one", x.Name, err)
	}
	if r == nil || r.Files == nil {
		return nil, nil, nil, &NoReceiptError{Name: x.Name}
	}
	now, err := HashTree(x.Dir)
	if err != nil {
		return nil, nil, nil, err
	}
	for rel, sum := range r.Files {
		got, ok := now[rel]
		switch {
		case !ok:
			missing = append(missing, rel)
		case got != sum:
			changed = append(changed, rel)
		}
	}
	for rel := range now {
		if _, ok := r.Files[rel]; !ok {
			added = append(added, rel)
		}
	}
	sort.Strings(changed)
	sort.Strings(missing)
	sort.Strings(added)
	return changed, missing, added, nil
}
