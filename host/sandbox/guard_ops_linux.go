package sandbox

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// open answers an open for writing: an existing file is checked where it really is and
// reopened through gem's descriptor of it; a new one is checked by its folder and name and
// made with O_EXCL|O_NOFOLLOW there. A FIFO's or device's open may block, so it is returned
// as deferred work.
func (c *call) open(op guardOp) (int, func(), unix.Errno) {
	base, p, errno := c.at(op.dir1, op.path1)
	if errno != 0 {
		return -1, nil, errno
	}
	flags := op.flags
	for range 8 {
		if flags&unix.O_CREAT == 0 || flags&unix.O_EXCL == 0 {
			fd, errno := c.resolve(base, p, flags)
			if errno == 0 {
				return c.reopen(fd, flags)
			}
			if errno != unix.ENOENT || flags&unix.O_CREAT == 0 {
				return -1, nil, errno
			}
		}
		dir, name, errno := c.parent(base, p)
		if errno != 0 {
			return -1, nil, errno
		}
		if strings.HasSuffix(p, "/") {
			return -1, nil, unix.EISDIR
		}
		if e := c.g.may(nameIn(dir, name), changeMakeFile); e != 0 {
			return -1, nil, e
		}
		mode := uint32(op.mode) & 0o7777 &^ c.mask
		fd, err := unix.Openat(dir, name, int(flags|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC), mode)
		if err == nil {
			return fd, nil, 0
		}
		if err != unix.EEXIST || flags&unix.O_EXCL != 0 {
			return -1, nil, err.(unix.Errno)
		}
		// Made by someone else since, or a dangling link, which the kernel would follow.
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if flags&unix.O_NOFOLLOW != 0 {
				return -1, nil, unix.ELOOP
			}
			buf := make([]byte, unix.PathMax)
			n, err := unix.Readlinkat(dir, name, buf)
			if err != nil {
				return -1, nil, err.(unix.Errno)
			}
			target := string(buf[:n])
			if !strings.HasPrefix(target, "/") {
				// Relative to the link's folder: still from base when p was relative.
				target = filepath.Join(filepath.Dir(strings.TrimRight(p, "/")), target)
			}
			p = target
		}
	}
	return -1, nil, unix.ELOOP
}

// reopen opens what fd (an O_PATH descriptor) leads to with the program's flags, once the
// name it really has may be changed.
func (c *call) reopen(fd int, flags uint64) (int, func(), unix.Errno) {
	if e := c.g.may(realPath(fd), changeContent); e != 0 {
		return -1, nil, e
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return -1, nil, err.(unix.Errno)
	}
	kind := st.Mode & unix.S_IFMT
	if kind == unix.S_IFLNK {
		return -1, nil, unix.ELOOP // O_NOFOLLOW on a link
	}
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	oflags := int(flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW) | unix.O_CLOEXEC)
	if kind == unix.S_IFREG || kind == unix.S_IFDIR {
		nfd, err := unix.Open(self, oflags, 0)
		if err != nil {
			return -1, nil, err.(unix.Errno)
		}
		return nfd, nil, 0
	}
	// A FIFO, a device or a socket: its open may wait (a FIFO for a reader), so it runs on
	// a thread of its own, held to the program's rules as the actor is, holding a descriptor
	// of the checked file.
	held, err := unix.Dup(fd)
	if err != nil {
		return -1, nil, err.(unix.Errno)
	}
	g, id := c.g, c.id
	return -1, func() {
		defer unix.Close(held)
		if err := g.holdToProgram(); err != nil {
			g.reply(id, 0, unix.EACCES)
			return
		}
		nfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(held), oflags, 0)
		if err != nil {
			var errno unix.Errno
			if !errors.As(err, &errno) {
				errno = unix.EIO
			}
			g.reply(id, 0, errno)
			return
		}
		g.sendFD(id, nfd, flags&unix.O_CLOEXEC != 0)
	}, 0
}

// run answers the calls that change names (all but open).
func (c *call) run(op guardOp) (int64, unix.Errno) {
	switch op.nr {
	case unix.SYS_MKDIRAT, unix.SYS_MKNODAT, unix.SYS_SYMLINKAT:
		dir, name, errno := c.parentAt(op.dir1, op.path1)
		if errno != 0 {
			return 0, errno
		}
		if exists(dir, name) {
			return 0, unix.EEXIST // what the kernel says first (mkdir -p of the workspace itself)
		}
		k := changeMakeOther
		if op.nr == unix.SYS_MKDIRAT {
			k = changeMakeDir
		}
		if e := c.g.may(nameIn(dir, name), k); e != 0 {
			return 0, e
		}
		var err error
		switch op.nr {
		case unix.SYS_MKDIRAT:
			err = unix.Mkdirat(dir, name, uint32(op.mode)&0o7777&^c.mask)
		case unix.SYS_MKNODAT:
			mode := uint32(op.mode)&unix.S_IFMT | uint32(op.mode)&0o7777&^c.mask
			err = unix.Mknodat(dir, name, mode, int(op.dev))
		default:
			target, errno := c.readPath(op.target)
			if errno != 0 {
				return 0, errno
			}
			err = unix.Symlinkat(target, dir, name)
		}
		return 0, errnoOf(err)
	case unix.SYS_UNLINKAT:
		dir, name, errno := c.parentAt(op.dir1, op.path1)
		if errno != 0 {
			return 0, errno
		}
		if e := c.g.may(nameIn(dir, name), changeRemove); e != 0 {
			return 0, e
		}
		return 0, errnoOf(unix.Unlinkat(dir, name, int(op.flags)))
	case unix.SYS_RENAMEAT2:
		odir, oname, errno := c.parentAt(op.dir1, op.path1)
		if errno != 0 {
			return 0, errno
		}
		ndir, nname, errno := c.parentAt(op.dir2, op.path2)
		if errno != 0 {
			return 0, errno
		}
		return c.rename(odir, oname, ndir, nname, op.flags)
	case unix.SYS_LINKAT:
		old, errno := c.linkSource(op)
		if errno != 0 {
			return 0, errno
		}
		// The file linked must be one the program may write: a second name in the workspace
		// for a read-only file would make it writable there.
		if e := c.g.may(realPath(old), changeContent); e != 0 {
			return 0, e
		}
		ndir, nname, errno := c.parentAt(op.dir2, op.path2)
		if errno != 0 {
			return 0, errno
		}
		if exists(ndir, nname) {
			return 0, unix.EEXIST
		}
		if e := c.g.may(nameIn(ndir, nname), changeMakeFile); e != 0 {
			return 0, e
		}
		return 0, errnoOf(unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(old), ndir, nname, unix.AT_SYMLINK_FOLLOW))
	case unix.SYS_TRUNCATE:
		base, p, errno := c.at(op.dir1, op.path1)
		if errno != 0 {
			return 0, errno
		}
		fd, errno := c.resolve(base, p, 0)
		if errno != 0 {
			return 0, errno
		}
		if e := c.g.may(realPath(fd), changeContent); e != 0 {
			return 0, e
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			if st.Mode&unix.S_IFMT == unix.S_IFDIR {
				return 0, unix.EISDIR
			}
			return 0, unix.EINVAL
		}
		w, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0, errnoOf(err)
		}
		c.keep(w)
		return 0, errnoOf(unix.Ftruncate(w, int64(op.length)))
	case unix.SYS_FCHMODAT, unix.SYS_FCHOWNAT, unix.SYS_SETXATTR, unix.SYS_REMOVEXATTR:
		fd, errno := c.attrTarget(op)
		if errno != 0 {
			return 0, errno
		}
		// A mode or an ACL (an extended attribute) is no Landlock right: the guard judges it
		// alone (where the view is not read-only, everywhere).
		if e := c.g.may(realPath(fd), changeMode); e != 0 {
			return 0, e
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return 0, errnoOf(err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			if op.nr == unix.SYS_FCHOWNAT { // lchown: the link itself
				return 0, errnoOf(unix.Fchownat(fd, "", int(int32(op.owner)), int(int32(op.group)), unix.AT_EMPTY_PATH))
			}
			if op.nr == unix.SYS_FCHMODAT {
				return 0, unix.EOPNOTSUPP
			}
			return 0, unix.EPERM // what a link's user.* attributes get
		case unix.S_IFCHR, unix.S_IFBLK:
			return 0, unix.EPERM // a device (/dev/pts/ptmx, a terminal) is the machine's
		}
		self := "/proc/self/fd/" + strconv.Itoa(fd)
		switch op.nr {
		case unix.SYS_FCHMODAT:
			return 0, errnoOf(unix.Fchmodat(unix.AT_FDCWD, self, uint32(op.mode)&0o7777, 0))
		case unix.SYS_FCHOWNAT:
			return 0, errnoOf(unix.Fchownat(fd, "", int(int32(op.owner)), int(int32(op.group)), unix.AT_EMPTY_PATH))
		case unix.SYS_SETXATTR:
			name, errno := c.readPath(op.name)
			if errno != 0 {
				return 0, errno
			}
			value := c.took(fetchKey{kind: 'v', addr: op.value})
			if value.errno != 0 {
				return 0, value.errno
			}
			return 0, errnoOf(unix.Setxattr(self, name, []byte(value.s), int(op.mode)))
		default:
			name, errno := c.readPath(op.name)
			if errno != 0 {
				return 0, errno
			}
			return 0, errnoOf(unix.Removexattr(self, name))
		}
	}
	return 0, unix.ENOSYS
}

// attrTarget opens the file a mode or attribute call names: its descriptor (fchmod,
// fsetxattr), the folder it starts at with an empty path and AT_EMPTY_PATH, or its path (not
// followed at the end with AT_SYMLINK_NOFOLLOW: lsetxattr).
func (c *call) attrTarget(op guardOp) (int, unix.Errno) {
	if op.fdOnly {
		if op.dir1 < 0 {
			return -1, unix.EBADF
		}
		base, _, errno := c.base(op.dir1, ".")
		return base, errno
	}
	if op.flags&unix.AT_EMPTY_PATH != 0 {
		if p, errno := c.readPath(op.path1); errno == 0 && p == "" {
			base, _, errno := c.base(op.dir1, ".")
			return base, errno
		}
	}
	base, p, errno := c.at(op.dir1, op.path1)
	if errno != 0 {
		return -1, errno
	}
	var follow uint64
	if op.flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
		follow = unix.O_NOFOLLOW
	}
	return c.resolve(base, p, follow)
}

// exists reports whether dir holds name (a link included).
func exists(dir int, name string) bool {
	var st unix.Stat_t
	return name != "" && unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

func (c *call) parentAt(dir int32, addr uint64) (int, string, unix.Errno) {
	base, p, errno := c.at(dir, addr)
	if errno != 0 {
		return -1, "", errno
	}
	return c.parent(base, p)
}

// linkSource opens linkat's existing file (an O_PATH descriptor of it).
func (c *call) linkSource(op guardOp) (int, unix.Errno) {
	p, errno := c.readPath(op.path1)
	if errno != 0 {
		return -1, errno
	}
	if p == "" && op.flags&unix.AT_EMPTY_PATH != 0 {
		fd, _, errno := c.base(op.dir1, ".")
		return fd, errno
	}
	base, p, errno := c.base(op.dir1, p)
	if errno != 0 {
		return -1, errno
	}
	var follow uint64 = unix.O_NOFOLLOW
	if op.flags&unix.AT_SYMLINK_FOLLOW != 0 {
		follow = 0
	}
	return c.resolve(base, p, follow)
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EIO
}
