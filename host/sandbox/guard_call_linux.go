package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/pathx"
)

// call is one notification being answered: the descriptors it opened are closed at its end.
// The reader fills fetched with what the call names in the program (reading: its strings,
// its folders and descriptors as gem's descriptors, its mask), and the actor answers from
// them alone: what the reader did not take, the actor refuses.
type call struct {
	g       *guard
	tid     uint32
	id      uint64
	op      guardOp
	fds     []int
	proc    string // /proc/<tid>
	reading bool
	fetched map[fetchKey]fetched
	mask    uint32 // the program's umask, for the calls that make a file
}

// fetchKey names one thing the reader took: the string at addr ('s'), the folder or
// descriptor dir (as addr) a relative path starts at ('b'), or the file one of the program's
// own descriptors leads to, named by path ('m').
type fetchKey struct {
	kind byte
	addr uint64
	path string
}

type fetched struct {
	s     string
	fd    int
	errno unix.Errno
}

// fetch is the reader's part: it takes from the program what answering op needs.
func (c *call) fetch() {
	c.reading = true
	op := c.op
	path := func(dir int32, addr uint64) {
		p, errno := c.readPath(addr)
		if errno != 0 {
			return
		}
		if base, p, errno := c.base(dir, p); errno == 0 && c.ownMagic(p) {
			c.resolve(base, p, 0)
		}
	}
	switch op.nr {
	case unix.SYS_SYMLINKAT:
		c.readPath(op.target)
		path(op.dir1, op.path1)
	case unix.SYS_LINKAT, unix.SYS_RENAMEAT2:
		path(op.dir1, op.path1)
		path(op.dir2, op.path2)
	case unix.SYS_FCHMODAT, unix.SYS_FCHOWNAT, unix.SYS_SETXATTR, unix.SYS_REMOVEXATTR:
		if op.nr != unix.SYS_FCHMODAT && op.nr != unix.SYS_FCHOWNAT {
			c.readPath(op.name)
		}
		if op.nr == unix.SYS_SETXATTR {
			c.readValue(op.value, op.length)
		}
		if op.fdOnly || op.flags&unix.AT_EMPTY_PATH != 0 {
			c.base(op.dir1, ".")
		}
		if !op.fdOnly {
			path(op.dir1, op.path1)
		}
	default:
		path(op.dir1, op.path1)
	}
	if op.nr == unix.SYS_MKDIRAT || op.nr == unix.SYS_MKNODAT || (op.nr == unix.SYS_OPENAT && op.flags&unix.O_CREAT != 0) {
		c.mask = c.umask()
	}
}

// readValue reads an extended attribute's value (size bytes at addr) for the actor.
func (c *call) readValue(addr, size uint64) {
	k := fetchKey{kind: 'v', addr: addr}
	switch {
	case size > 1<<16: // XATTR_SIZE_MAX
		c.fetched[k] = fetched{errno: unix.E2BIG}
	case size == 0:
		c.fetched[k] = fetched{}
	default:
		buf := make([]byte, size)
		errno := c.readMem(addr, buf)
		c.fetched[k] = fetched{s: string(buf), errno: errno}
	}
}

// took is what the reader took under k; the actor gets EACCES for anything else.
func (c *call) took(k fetchKey) fetched {
	if f, ok := c.fetched[k]; ok {
		return f
	}
	return fetched{fd: -1, errno: unix.EACCES}
}

func (c *call) close() {
	for _, fd := range c.fds {
		unix.Close(fd)
	}
}

func (c *call) keep(fd int) int {
	c.fds = append(c.fds, fd)
	return fd
}

func (c *call) procDir() string {
	if c.proc == "" {
		c.proc = "/proc/" + strconv.FormatUint(uint64(c.tid), 10)
	}
	return c.proc
}

// readPath reads a NUL-terminated path from the program's memory.
func (c *call) readPath(addr uint64) (string, unix.Errno) {
	k := fetchKey{kind: 's', addr: addr}
	if !c.reading {
		f := c.took(k)
		return f.s, f.errno
	}
	s, errno := c.readMem0(addr)
	c.fetched[k] = fetched{s: s, errno: errno}
	return s, errno
}

func (c *call) readMem0(addr uint64) (string, unix.Errno) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var out []byte
	buf := make([]byte, 256)
	for len(out) < unix.PathMax {
		// Read up to the end of addr's page first: the next page may not be mapped.
		n := min(uint64(len(buf)), 4096-addr%4096)
		local := []unix.Iovec{{Base: &buf[0], Len: n}}
		remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: int(n)}}
		got, err := unix.ProcessVMReadv(int(c.tid), local, remote, 0)
		if err != nil || got == 0 {
			return "", unix.EFAULT
		}
		if i := bytes.IndexByte(buf[:got], 0); i >= 0 {
			return string(append(out, buf[:i]...)), 0
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return "", unix.ENAMETOOLONG
}

// magicRewrite turns the names that mean "this process" into the program's own: opened by
// the supervisor as they are, /proc/self and /dev/stdout would be the supervisor's.
func (c *call) magicRewrite(p string) string {
	for _, m := range []struct{ from, to string }{
		{"/dev/stdin", "/fd/0"}, {"/dev/stdout", "/fd/1"}, {"/dev/stderr", "/fd/2"},
	} {
		if p == m.from {
			return c.procDir() + m.to
		}
	}
	for _, prefix := range []string{"/proc/self/", "/proc/thread-self/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			return c.procDir() + "/" + rest
		}
	}
	if rest, ok := strings.CutPrefix(p, "/dev/fd/"); ok {
		return c.procDir() + "/fd/" + rest
	}
	return p
}

// at is where a path of the program starts: gem's descriptor for its folder (or its
// descriptor dir) and the path, rewritten; an absolute path starts at the root, shared.
func (c *call) at(dir int32, addr uint64) (int, string, unix.Errno) {
	p, errno := c.readPath(addr)
	if errno != 0 {
		return -1, "", errno
	}
	return c.base(dir, p)
}

func (c *call) base(dir int32, p string) (int, string, unix.Errno) {
	p = c.magicRewrite(p)
	if strings.HasPrefix(p, "/") {
		return unix.AT_FDCWD, p, 0
	}
	k := fetchKey{kind: 'b', addr: uint64(uint32(dir))}
	if !c.reading {
		f := c.took(k)
		return f.fd, p, f.errno
	}
	if f, ok := c.fetched[k]; ok {
		return f.fd, p, f.errno
	}
	fd, errno := c.openBase(dir)
	c.fetched[k] = fetched{fd: fd, errno: errno}
	return fd, p, errno
}

// openBase opens the folder dir names in the program (its working folder for AT_FDCWD), or
// the file its descriptor dir is.
func (c *call) openBase(dir int32) (int, unix.Errno) {
	where := c.procDir() + "/cwd"
	if dir != unix.AT_FDCWD {
		if dir < 0 {
			return -1, unix.EBADF
		}
		where = c.procDir() + "/fd/" + strconv.Itoa(int(dir))
	}
	fd, err := unix.Open(where, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT {
			err = unix.EBADF
		}
		return -1, err.(unix.Errno)
	}
	return c.keep(fd), 0
}

// resolve opens p (from base) as the kernel would for the program, as an O_PATH descriptor,
// following no magic link but the calling thread's own descriptors (ownMagic).
func (c *call) resolve(base int, p string, flags uint64) (int, unix.Errno) {
	flags = flags&(unix.O_NOFOLLOW|unix.O_DIRECTORY) | unix.O_PATH | unix.O_CLOEXEC
	if p == "" {
		return -1, unix.ENOENT
	}
	if c.ownMagic(p) {
		return c.ownDescriptor(p, flags)
	}
	fd, err := unix.Openat2(base, p, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return -1, err.(unix.Errno)
	}
	return c.keep(fd), 0
}

// ownDescriptor opens what the program's own descriptor p (/proc/<tid>/fd/<n>) leads to: the
// reader opens it (the program's descriptors are behind the ptrace right), the actor takes
// it as the kernel would with flags (a magic link is a link: O_NOFOLLOW refuses it).
func (c *call) ownDescriptor(p string, flags uint64) (int, unix.Errno) {
	k := fetchKey{kind: 'm', path: p}
	if c.reading {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		} else {
			c.keep(fd)
		}
		c.fetched[k] = fetched{fd: fd, errno: errnoOf(err)}
		return fd, errnoOf(err)
	}
	f := c.took(k)
	if f.errno != 0 {
		return -1, f.errno
	}
	if flags&unix.O_NOFOLLOW != 0 {
		return -1, unix.ELOOP
	}
	var st unix.Stat_t
	if flags&unix.O_DIRECTORY != 0 && (unix.Fstat(f.fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR) {
		return -1, unix.ENOTDIR
	}
	return f.fd, 0
}

// ownMagic: p is /proc/<tid>/fd/<n> of the calling thread itself (what /proc/self/fd,
// /dev/fd and /dev/stdout were rewritten to), the one magic link the supervisor follows: not
// another process's descriptors (without a PID namespace of its own, gem's are there too),
// nor the supervisor's.
func (c *call) ownMagic(p string) bool {
	rest, ok := strings.CutPrefix(p, c.procDir()+"/fd/")
	if !ok || c.procDir() == "/proc/"+c.g.self {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

// parent opens the folder that holds p's last component and returns that component.
func (c *call) parent(base int, p string) (int, string, unix.Errno) {
	trimmed := strings.TrimRight(p, "/")
	if trimmed == "" {
		return -1, "", unix.EEXIST // "/" itself
	}
	dir, name := filepath.Split(trimmed)
	if dir == "" {
		dir = "."
	}
	fd, errno := c.resolve(base, dir, unix.O_DIRECTORY)
	return fd, name, errno
}

// nameIn is the real path of name in the folder dir ("" when the folder's is not known,
// which may refuses).
func nameIn(dir int, name string) string {
	d := realPath(dir)
	if !strings.HasPrefix(d, "/") {
		return ""
	}
	return filepath.Join(d, name)
}

// realPath is where a descriptor of gem's leads (its path in this view).
func realPath(fd int) string {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(buf[:n]), " (deleted)")
}

// may decides whether the program may change real, before the actor tries (the kernel then
// holds the actor to the program's Landlock rules as well). What a change needs:
//   - content (a file opened for writing, truncated): at or beneath a write root, a granted
//     file included (/dev/null written);
//   - a name (made, removed, renamed, linked) or a mode (chmod): strictly beneath a write
//     root that is a folder — a granted file's name (/dev/null, /dev/tty) and a write root
//     itself are never replaced, removed, moved or linked, nor their modes changed (a mode
//     change is no Landlock right; the guard is its only judge where the view is not
//     read-only) — with the workspace's own mode excepted;
//
// and never the workspace or a folder above it as a name, nor inside the workspace what
// WorkspaceRule does not allow (a protected name; inside a repository's .git folder what
// git obeys), nor a frozen folder (compared as a case-folding file system would). Names
// that are not paths (pipe:[…], socket:[…]: the program's own descriptors) may be written
// and have their modes changed.
func (g *guard) may(real string, k change) unix.Errno {
	if guardChecksOff {
		return 0
	}
	if real == "" {
		return unix.EACCES // where it leads is not known: not allowed
	}
	if !strings.HasPrefix(real, "/") {
		if k.names() {
			return unix.EACCES
		}
		return 0
	}
	real = filepath.Clean(real)
	if g.workspace != "" {
		if pathx.Within(real, g.workspace) && (real != g.workspace || k.names()) {
			return unix.EACCES
		}
		if pathx.Within(g.workspace, real) && !WorkspaceRule(real[len(g.workspace):]).Allows(k) {
			return unix.EACCES
		}
	}
	if len(g.frozen) > 0 {
		folded := foldPath(real)
		for _, f := range g.frozen {
			if pathx.Within(f, folded) || (k.names() && pathx.Within(folded, f)) {
				return unix.EACCES // a frozen folder, or a folder above one renamed or removed
			}
		}
	}
	switch {
	case k == changeContent && !within(g.write, real, true):
		return unix.EACCES
	case k.names() && !within(g.dirs, real, false):
		return unix.EACCES
	case k == changeMode && !within(g.dirs, real, false) && real != g.workspace:
		return unix.EACCES
	}
	return 0
}

// foldPath is p with each component folded (foldName).
func foldPath(p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		parts[i] = foldName(c)
	}
	return strings.Join(parts, "/")
}

// guardChecksOff lets every call through the guard's checks: set only by this package's
// tests, in the helper, to show that the kernel still refuses the actor what Landlock
// refuses the program (a slip in may grants nothing more).
var guardChecksOff bool

// within: real is beneath one of roots (or one of them, with orAt).
func within(roots []string, real string, orAt bool) bool {
	for _, w := range roots {
		if pathx.Within(w, real) && (orAt || real != w) {
			return true
		}
	}
	return false
}

// umask is the program's file mode creation mask.
// The reader reads it (into call.mask) for the calls that make a file.
func (c *call) umask() uint32 {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	if m, ok := c.g.umasks[c.tid]; ok {
		return m
	}
	m := uint32(0o022)
	if data, err := os.ReadFile(c.procDir() + "/status"); err == nil {
		if _, rest, ok := bytes.Cut(data, []byte("\nUmask:\t")); ok {
			line, _, _ := bytes.Cut(rest, []byte("\n"))
			if v, err := strconv.ParseUint(string(line), 8, 32); err == nil {
				m = uint32(v)
			}
		}
	}
	c.g.umasks[c.tid] = m
	return m
}
