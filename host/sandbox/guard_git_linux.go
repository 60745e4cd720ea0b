package sandbox

import (
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/pathx"
)

// rename answers renameat2: both names are judged as the kind of thing moved (a folder is
// judged as a folder at both ends: renamed whole, it takes everything inside along), and a
// rename onto a file only a checked rename may put in place (a repository's config, a
// rebase's todo: gitdir.go) is made by putChecked.
func (c *call) rename(odir int, oname string, ndir int, nname string, flags uint64) (int64, unix.Errno) {
	from, to := nameIn(odir, oname), nameIn(ndir, nname)
	if what := c.g.checked(to); what != "" && flags&unix.RENAME_EXCHANGE == 0 {
		return 0, c.putChecked(odir, oname, ndir, nname, flags, what, to)
	}
	k := changeRenameFile
	if isDir(odir, oname) || (flags&unix.RENAME_EXCHANGE != 0 && isDir(ndir, nname)) {
		k = changeRenameDir
	}
	for _, real := range []string{from, to} {
		if e := c.g.may(real, k); e != 0 {
			return 0, e
		}
	}
	return 0, errnoOf(unix.Renameat2(odir, oname, ndir, nname, uint(flags)))
}

// checked is what real is when only a checked rename may put it in place ("config",
// "todo"), or "".
func (g *guard) checked(real string) string {
	if guardChecksOff || g.workspace == "" || real == "" || real == g.workspace || !pathx.Within(g.workspace, real) {
		return ""
	}
	return WorkspaceRule(real[len(g.workspace):]).Checked()
}

// maxChecked is the largest config or todo a program may put in place; maxIndex the largest
// index (about a million files).
const maxChecked, maxIndex = 1 << 20, 256 << 20

// putChecked makes a rename onto a repository's config or a rebase's todo the program
// asked for (git writes both to a lock and renames it): the file renamed must be a regular
// one the program may move, and its content pass CheckGitFile; a config is replaced only
// while it holds git init's keys alone (a repository just made), never an existing
// repository's own. The guard puts a copy of the checked content in place — a file of its
// own, made, written and renamed here — and removes the program's: what the program writes
// into its file after the check goes nowhere. An index is also compared with the one it
// replaces: no protected name's entry added or changed (checkIndexUpdate); a ref (real: its
// path) names no commit that changes a protected path (checkRefUpdate).
func (c *call) putChecked(odir int, oname string, ndir int, nname string, flags uint64, what, real string) unix.Errno {
	if flags&^uint64(unix.RENAME_NOREPLACE) != 0 {
		return unix.EACCES
	}
	if e := c.g.may(nameIn(odir, oname), changeRenameFile); e != 0 {
		return e
	}
	limit := int64(maxChecked)
	if what == "index" || what == "ref" {
		limit = maxIndex // packed-refs of many tags
	}
	content, mode, errno := readRegular(odir, oname, limit)
	if errno != 0 {
		return errno
	}
	if CheckGitFile(what, content) != nil {
		return unix.EACCES
	}
	var old []byte // the index replaced (nil: none)
	if exists(ndir, nname) {
		if flags&unix.RENAME_NOREPLACE != 0 {
			return unix.EEXIST
		}
		if what == "config" || what == "index" {
			var errno unix.Errno
			if old, _, errno = readRegular(ndir, nname, limit); errno != 0 {
				return unix.EACCES
			}
		}
		if what == "config" && CheckGitFile(what, old) != nil {
			return unix.EACCES // an existing repository's config stays its own
		}
	}
	if what == "index" && checkIndexUpdate(old, content) != nil {
		return unix.EACCES // a protected name's entry added or changed
	}
	if what == "ref" && checkRefUpdate(real, content) != nil {
		return unix.EACCES // a commit that changes a protected path
	}
	tmp := ".gem-" + nname + "-" + strconv.FormatUint(c.id, 16)
	fd, err := unix.Openat(ndir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode&0o777)
	if err != nil {
		return errnoOf(err)
	}
	_, werr := unix.Write(fd, content)
	unix.Close(fd)
	if werr == nil {
		werr = unix.Renameat(ndir, tmp, ndir, nname)
	}
	if werr != nil {
		unix.Unlinkat(ndir, tmp, 0)
		return errnoOf(werr)
	}
	unix.Unlinkat(odir, oname, 0)
	return 0
}

// readRegular reads the regular file name in dir (not a link, a FIFO or a device; at most
// limit bytes), with its mode.
func readRegular(dir int, name string, limit int64) ([]byte, uint32, unix.Errno) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, errnoOf(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, 0, errnoOf(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > limit {
		return nil, 0, unix.EACCES
	}
	buf := make([]byte, st.Size+1)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err != nil {
			return nil, 0, errnoOf(err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	if n > int(st.Size) {
		return nil, 0, unix.EACCES // growing while read
	}
	return buf[:n], st.Mode, 0
}

// isDir reports whether dir holds a folder called name (not following a link).
func isDir(dir int, name string) bool {
	var st unix.Stat_t
	return name != "" && unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}
