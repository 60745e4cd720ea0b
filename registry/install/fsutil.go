package install

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/gemhost/gem/internal/pathx"
)

// crashPoint kills the process at step when CrashAt names it (tests only).
func (in *Installer) crashPoint(step string) {
	if in.CrashAt != "" && in.CrashAt == step {
		p, _ := os.FindProcess(os.Getpid())
		p.Signal(syscall.SIGKILL)
		select {}
	}
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// stagingDir is where staged folders for root live.
func stagingDir(root string) string {
	return filepath.Join(filepath.Dir(root), ".gem-staging")
}

// dropStaging removes a staging folder, and the staging parent when it is left empty.
func dropStaging(dir string) {
	os.RemoveAll(dir)
	os.Remove(filepath.Dir(dir)) // fails, harmlessly, while others are in use
}

// checkStaging refuses a staging folder that is not gem's: a link (a cloned project's
// .gemini/.gem-staging pointing at the user's files would have gem delete them as stale
// staging) or a file.
func checkStaging(root string) error {
	dir := stagingDir(root)
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil // not there yet: newStaging makes it
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return &StagingError{Path: dir}
	}
	return nil
}

// StagingError is a staging folder gem did not make (a link or a file where it stages).
type StagingError struct{ Path string }

func (e *StagingError) Error() string {
	return fmt.Sprintf("%s is not a folder gem made (a link or a file): gem stages installs there; remove it and retry", e.Path)
}

// stage removes what failed installs left in root's staging parent and makes a fresh
// staging folder.
func stage(root string) (string, error) {
	cleanStale(root)
	return newStaging(root)
}

// newStaging makes a fresh staging folder for root.
func newStaging(root string) (string, error) {
	if err := checkStaging(root); err != nil {
		return "", err
	}
	dir := filepath.Join(stagingDir(root), randomSuffix())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create a staging folder in %s: %w", stagingDir(root), err)
	}
	return dir, nil
}

// copyTree copies the folder src into dst (which must not exist). Regular files keep their
// mode; symlinks are copied as links only when they point inside src; devices, sockets and
// pipes are refused. skip names top-level entries to leave out.
func copyTree(src, dst string, skip func(rel string) bool) error {
	srcReal, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(srcReal, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(srcReal, path)
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			return os.MkdirAll(target, mode.Perm()|0o700)
		case mode&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			resolved := link
			if !filepath.IsAbs(link) {
				resolved = filepath.Join(filepath.Dir(path), link)
			}
			if !pathx.Within(srcReal, filepath.Clean(resolved)) {
				return fmt.Errorf("%s is a symlink to %s, outside the extension folder; replace it with the file itself", filepath.Join(src, rel), link)
			}
			return os.Symlink(link, target)
		case mode.IsRegular():
			return copyFile(path, target, mode.Perm())
		default:
			return fmt.Errorf("%s is a %v, not a file or folder; extensions may only hold files, folders and links", filepath.Join(src, rel), mode.Type())
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// LinkError is a symbolic link in a fetched extension that resolves outside its folder (or
// does not resolve): reading through it would hand gem, or the model, a file the extension
// does not own.
type LinkError struct {
	Link, Target, Why string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a link to %s, which %s; extensions may only link inside their own folder", e.Link, e.Target, e.Why)
}

// CheckLinks resolves every symbolic link below dir against the real tree (links through
// links included: "deep -> ." then "deep/deep/x -> ../../../y") and refuses any that leaves
// dir or does not resolve.
func CheckLinks(dir string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		text, _ := os.Readlink(path)
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return &LinkError{Link: path, Target: text, Why: "does not resolve (" + err.Error() + ")"}
		}
		if !pathx.Within(root, real) {
			return &LinkError{Link: path, Target: text, Why: "resolves to " + real + ", outside the extension"}
		}
		return nil
	})
}

// errLeadsOut: a folder reached through a link that leads out of where it must stay.
var errLeadsOut = errors.New("a link on the way leads out of the repository")

// errNoFolder: no such folder.
var errNoFolder = errors.New("the repository has no such folder")

// subfolder is the folder rel names under root (a repository's checkout), resolved: every
// link on the way (the last component or a parent, like a repository's exts -> the user's
// home) must stay inside root, else errLeadsOut; errNoFolder when it is not a folder.
func subfolder(root, rel string) (string, error) {
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", errNoFolder
	}
	if !pathx.Within(rootReal, real) {
		return "", errLeadsOut
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", errNoFolder
	}
	return real, nil
}
