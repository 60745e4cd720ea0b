package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// stampName is the file beside an overlay's upper and work folders that names the lower
// folder (device, inode and change time) its upper folder was last checked against.
const stampName = "lower"

// Rebase makes o's upper folder fit its lower folder when that folder was replaced (an
// update swaps in a new extension folder): what the program wrote that
// would hide a file of the new version (a file of the same name, a whiteout of a deleted
// file, a folder made opaque) is removed, and what it made that the new version does not
// have (its state: memory.jsonl) is kept. Nothing is done while the lower folder is the one
// last checked, so a start pays one stat. It never follows a link in the upper folder (the
// program wrote it) and is safe to repeat: a crash part-way leaves the stamp unwritten, and
// the next start finishes the job.
func (o Overlay) Rebase() error {
	st, err := os.Stat(o.Lower)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	// The inode alone could be a removed folder's again; its change time with it is not.
	want := fmt.Sprintf("%d:%d:%d.%09d\n", sys.Dev, sys.Ino, sys.Ctim.Sec, sys.Ctim.Nsec)
	stamp := filepath.Join(filepath.Dir(o.Upper), stampName)
	if b, err := os.ReadFile(stamp); err == nil && string(b) == want {
		return nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	fresh := false
	if entries, err := os.ReadDir(o.Upper); err == nil && len(entries) == 0 {
		fresh = true // nothing written yet: nothing to check
	}
	if !fresh {
		root, err := os.OpenRoot(o.Upper)
		if err != nil {
			return err
		}
		err = pruneUpper(root, ".", o.Lower)
		root.Close()
		if err != nil {
			return fmt.Errorf("fitting the writes kept in %s to the new %s: %w", o.Upper, o.Lower, err)
		}
	}
	tmp := stamp + ".new"
	if err := os.WriteFile(tmp, []byte(want), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, stamp)
}

// pruneUpper removes from rel, a folder of the upper folder root, what would hide an entry of
// lower: a file, link or whiteout where lower has an entry of that name, a whiteout anywhere
// (it hides a file the new version may have again), the opaque mark of a folder lower has;
// folders both have are walked. Everything goes through root: the program may be running
// and swap a folder for a link meanwhile, and no link leads the removal out of its upper
// folder.
func pruneUpper(root *os.Root, rel, lower string) error {
	dir, err := root.Open(rel)
	if err != nil {
		return err
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return err
	}
	for _, e := range entries {
		u, l := filepath.Join(rel, e.Name()), filepath.Join(lower, e.Name())
		ust, err := root.Lstat(u)
		if err != nil {
			continue
		}
		lst, lerr := os.Lstat(l)
		switch {
		case isWhiteout(ust):
			err = root.Remove(u)
		case lerr != nil:
			continue // made by the program: its state
		case ust.IsDir() && lst.IsDir():
			if d, err := root.Open(u); err == nil {
				for _, name := range []string{"trusted.overlay.opaque", "user.overlay.opaque"} {
					unix.Fremovexattr(int(d.Fd()), name)
				}
				d.Close()
			}
			err = pruneUpper(root, u, l)
		default:
			err = root.RemoveAll(u)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// isWhiteout reports whether st is overlayfs's mark of a deleted lower entry: a character
// device 0:0.
func isWhiteout(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && st.Mode()&os.ModeCharDevice != 0 && sys.Rdev == 0
}
