package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/pathx"
)

// The guard closes a writable workspace's protected names by construction (IsProtected: any
// .git, agent and editor configuration, context files, .env*, shell rc files — existing or
// not, at any depth).
//
// Why this mechanism: Landlock grants rights on a hierarchy and cannot take a name back
// inside it, and read-only mounts protect only entries that already exist (and move with a
// renamed parent). So a program that may write the workspace runs under a seccomp filter
// that sends every call which creates, renames, links, removes or changes a name, or opens a
// file for writing, to a supervisor (SECCOMP_RET_USER_NOTIF). The supervisor runs in the
// sandbox helper, which stays as the program's parent (PID 1 of its namespaces): it reads
// the path from the program's memory, resolves it against the program's folder or
// descriptor, checks the real path it reached (beneath the policy's write roots, as Landlock
// would, and no protected component inside the workspace) and then makes the call itself on
// the descriptors it checked, handing a new file to the program with SECCOMP_IOCTL_NOTIF_ADDFD.
// The program's own call never runs, so changing the path in its memory after the check
// (the classic race of seccomp supervisors) changes nothing; every name-changing call of the
// sandbox goes through the same check, so a folder that was not protected cannot be renamed
// or linked into a protected place between the check and the call.
//
// Calls that would get around the supervisor are refused: io_uring (ENOSYS: libuv and others
// fall back), openat2 (ENOSYS: its flags are behind a pointer), open_by_handle_at, and
// syscalls of another ABI (x32, 32-bit). Unix sockets bound to a path create a socket file,
// which no tool obeys; they are not checked. Without namespaces the same supervisor also
// makes every connect(2) (socket_linux.go). Renaming a folder that holds a nested .git is
// allowed (it moves a repository; it plants nothing).
//
// Cost: each guarded call is a round trip to the supervisor (two context switches), so a
// job that creates many small files pays it per file (scripts/bench.sh: the unpack of a
// 10,000-file tree and a git add of it, with and without the guard, in one run).

// seccomp_notif, seccomp_notif_resp and seccomp_notif_addfd (linux/seccomp.h).
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

type seccompAddFD struct {
	ID         uint64
	Flags      uint32
	SrcFD      uint32
	NewFD      uint32
	NewFDFlags uint32
}

// guardOp is one guarded call in its "at" form.
type guardOp struct {
	nr           uint32 // the "at" syscall (SYS_OPENAT, SYS_MKDIRAT, …)
	dir1, dir2   int32  // descriptors the paths are relative to
	path1, path2 uint64 // addresses in the program's memory
	target       uint64 // symlinkat's link text
	flags, mode  uint64
	dev, length  uint64
	fdOnly       bool // fchmod: dir1 is the file itself
}

// decodeAt reads the arguments of an "at" call.
func decodeAt(nr uint32, a [6]uint64) guardOp {
	fd := func(v uint64) int32 { return int32(uint32(v)) }
	switch nr {
	case unix.SYS_OPENAT:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], flags: a[2] & 0xffffffff, mode: a[3]}
	case unix.SYS_MKDIRAT:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], mode: a[2]}
	case unix.SYS_MKNODAT:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], mode: a[2], dev: a[3]}
	case unix.SYS_LINKAT, unix.SYS_RENAMEAT2:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], dir2: fd(a[2]), path2: a[3], flags: a[4]}
	case unix.SYS_SYMLINKAT:
		return guardOp{nr: nr, target: a[0], dir1: fd(a[1]), path1: a[2]}
	case unix.SYS_UNLINKAT:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], flags: a[2]}
	case unix.SYS_TRUNCATE:
		return guardOp{nr: nr, dir1: unix.AT_FDCWD, path1: a[0], length: a[1]}
	case unix.SYS_FCHMODAT:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], mode: a[2]}
	case unix.SYS_FCHMODAT2:
		return guardOp{nr: unix.SYS_FCHMODAT, dir1: fd(a[0]), path1: a[1], mode: a[2], flags: a[3]}
	case unix.SYS_FCHMOD:
		return guardOp{nr: unix.SYS_FCHMODAT, dir1: fd(a[0]), mode: a[1], fdOnly: true}
	case unix.SYS_UMASK:
		return guardOp{nr: nr}
	}
	return guardOp{}
}

// guard is the supervisor of one sandboxed program and everything it starts.
type guard struct {
	listener  int
	workspace string   // real path
	write     []string // real paths of the write roots
	frozen    []string // real paths no call may change (Policy.Frozen)
	self      string   // this process's id, as the program's /proc shows it
	sockets   socketRules
	connects  chan struct{} // a slot per connect being made (maxConnects)

	mu     sync.Mutex
	umasks map[uint32]uint32 // by thread, read from /proc/<tid>/status
}

// newGuard prepares the supervisor of listener for policy p (in the program's view).
func newGuard(listener int, p Policy) *guard {
	g := &guard{listener: listener, umasks: map[uint32]uint32{}, self: strconv.Itoa(os.Getpid()), sockets: newSocketRules(p), connects: make(chan struct{}, maxConnects)}
	g.workspace = realOr(p.Workspace)
	for _, w := range p.Write {
		if r, err := filepath.EvalSymlinks(w); err == nil {
			g.write = append(g.write, r)
		}
	}
	for _, f := range p.Frozen {
		g.frozen = append(g.frozen, realOr(f))
	}
	return g
}

func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// serve answers notifications until the listener is closed. It runs on a thread of its own
// with every signal blocked (an interrupted SECCOMP_IOCTL_NOTIF_ADDFD would be restarted
// after the program already got its descriptor) and no capability (the calls it makes are
// the program's, checked by the kernel as the program's user).
func (g *guard) serve(ready <-chan struct{}) {
	runtime.LockOSThread() // never unlocked: the thread's signal mask and capabilities are changed
	blockSignals()
	dropThreadCapabilities()
	<-ready
	// Files the supervisor makes get the program's own mask, applied by the supervisor; the
	// program, forked already, keeps its own.
	syscall.Umask(0)
	// The program and the supervisor hand the CPU to each other (Linux 6.6+; a hint).
	unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	for {
		var n seccompNotif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); e != 0 {
			if e == unix.EINTR || e == unix.ENOENT {
				continue // ENOENT: the caller was interrupted before we received its call
			}
			return
		}
		g.handle(&n)
	}
}

func blockSignals() {
	var all unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^all.Val[i]
	}
	unix.PthreadSigmask(unix.SIG_BLOCK, &all, nil)
}

// dropThreadCapabilities empties the calling thread's capability sets (root's and those of a
// user namespace): the file calls the supervisor makes are checked as the program's would be.
func dropThreadCapabilities() {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	unix.Capset(&hdr, &data[0])
}

func (g *guard) reply(id uint64, val int64, errno unix.Errno) {
	r := seccompResp{ID: id, Val: val, Error: -int32(errno)}
	unix.RawSyscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&r)))
}

func (g *guard) continueCall(id uint64) {
	r := seccompResp{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	unix.RawSyscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&r)))
}

// sendFD installs fd in the program as the call's result (and closes gem's copy).
func (g *guard) sendFD(id uint64, fd int, cloexec bool) {
	a := seccompAddFD{ID: id, Flags: unix.SECCOMP_ADDFD_FLAG_SEND, SrcFD: uint32(fd)}
	if cloexec {
		a.NewFDFlags = unix.O_CLOEXEC
	}
	if _, _, e := unix.RawSyscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_ADDFD, uintptr(unsafe.Pointer(&a))); e != 0 && e != unix.ENOENT {
		g.reply(id, 0, e) // ENOENT: the program is gone (killed while it waited)
	}
	unix.Close(fd)
}

func (g *guard) handle(n *seccompNotif) {
	if n.Nr == unix.SYS_CONNECT {
		select {
		case g.connects <- struct{}{}:
			go g.connect(*n) // socket_linux.go; it may block
		default:
			g.reply(n.ID, 0, unix.EAGAIN) // a flood of blocking connects: not a thread each
		}
		return
	}
	op, ok := decodeLegacy(n.Nr, n.Args)
	if !ok {
		op = decodeAt(uint32(n.Nr), n.Args)
	}
	tid := n.Pid
	switch {
	case op.nr == unix.SYS_UMASK:
		// The program's own setting, safe to let through; the cached masks are stale now.
		g.mu.Lock()
		clear(g.umasks)
		g.mu.Unlock()
		g.continueCall(n.ID)
		return
	case op.nr == unix.SYS_OPENAT && op.flags&unix.O_PATH != 0:
		// A path descriptor opens nothing for writing, whatever the flags say; the flags are
		// registers, not memory, so they are the ones checked.
		g.continueCall(n.ID)
		return
	case op.nr == 0:
		g.reply(n.ID, 0, unix.ENOSYS)
		return
	}
	c := &call{g: g, tid: tid, id: n.ID}
	defer c.close()
	if op.nr == unix.SYS_OPENAT {
		fd, deferred, errno := c.open(op)
		switch {
		case errno != 0:
			g.reply(n.ID, 0, errno)
		case deferred != nil:
			go deferred() // a FIFO or a device may block its open: not on this thread
		default:
			g.sendFD(n.ID, fd, op.flags&unix.O_CLOEXEC != 0)
		}
		return
	}
	val, errno := c.run(op)
	// The program may have been killed while the path was read: its call is gone then.
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&n.ID))); e != 0 {
		return
	}
	g.reply(n.ID, val, errno)
}

// call is one notification being answered: the descriptors it opened are closed at its end.
type call struct {
	g    *guard
	tid  uint32
	id   uint64
	fds  []int
	proc string // /proc/<tid>
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
	where := c.procDir() + "/cwd"
	if dir != unix.AT_FDCWD {
		if dir < 0 {
			return -1, "", unix.EBADF
		}
		where = c.procDir() + "/fd/" + strconv.Itoa(int(dir))
	}
	fd, err := unix.Open(where, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT {
			err = unix.EBADF
		}
		return -1, "", err.(unix.Errno)
	}
	return c.keep(fd), p, 0
}

// resolve opens p (from base) as the kernel would for the program, as an O_PATH descriptor,
// following no magic link but the calling thread's own descriptors (ownMagic).
func (c *call) resolve(base int, p string, flags uint64) (int, unix.Errno) {
	flags = flags&(unix.O_NOFOLLOW|unix.O_DIRECTORY) | unix.O_PATH | unix.O_CLOEXEC
	if p == "" {
		return -1, unix.ENOENT
	}
	var fd int
	var err error
	if c.ownMagic(p) {
		fd, err = unix.Openat(base, p, int(flags), 0)
	} else {
		fd, err = unix.Openat2(base, p, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_MAGICLINKS})
	}
	if err != nil {
		return -1, err.(unix.Errno)
	}
	return c.keep(fd), 0
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

// may decides whether the program may change real: beneath a write root (what Landlock
// allows it; not asked for a mode change, which Landlock does not restrict), never the
// workspace or a folder above it as a name (renamed, removed, replaced), and with no
// protected component inside the workspace. Names that are not paths (pipe:[…], socket:[…]:
// the program's own descriptors) are allowed.
func (g *guard) may(real string, k change) unix.Errno {
	if real == "" {
		return unix.EACCES // where it leads is not known: not allowed
	}
	if !strings.HasPrefix(real, "/") {
		return 0
	}
	real = filepath.Clean(real)
	if g.workspace != "" {
		if pathx.Within(real, g.workspace) && (real != g.workspace || k == changeName) {
			return unix.EACCES
		}
		if pathx.Within(g.workspace, real) && IsProtected(real[len(g.workspace):]) {
			return unix.EACCES
		}
	}
	for _, f := range g.frozen {
		if pathx.Within(f, real) || (k == changeName && pathx.Within(real, f)) {
			return unix.EACCES // a frozen folder, or a folder above one renamed or removed
		}
	}
	if k != changeMode && !g.writable(real) {
		return unix.EACCES
	}
	return 0
}

// change is what a call does to a path.
type change int

const (
	changeContent change = iota // opened for writing, truncated
	changeName                  // made, removed, renamed, linked
	changeMode                  // chmod
)

func (g *guard) writable(real string) bool {
	for _, w := range g.write {
		if pathx.Within(w, real) {
			return true
		}
	}
	return false
}

// umask is the program's file mode creation mask.
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
		if e := c.g.may(nameIn(dir, name), changeName); e != 0 {
			return -1, nil, e
		}
		mode := uint32(op.mode) & 0o7777 &^ c.umask()
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
	// a thread of its own, holding a descriptor of the checked file.
	held, err := unix.Dup(fd)
	if err != nil {
		return -1, nil, err.(unix.Errno)
	}
	g, id := c.g, c.id
	return -1, func() {
		runtime.LockOSThread() // never unlocked: the thread's capabilities are dropped
		blockSignals()
		dropThreadCapabilities()
		defer unix.Close(held)
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
		if e := c.g.may(nameIn(dir, name), changeName); e != 0 {
			return 0, e
		}
		var err error
		switch op.nr {
		case unix.SYS_MKDIRAT:
			err = unix.Mkdirat(dir, name, uint32(op.mode)&0o7777&^c.umask())
		case unix.SYS_MKNODAT:
			mode := uint32(op.mode)&unix.S_IFMT | uint32(op.mode)&0o7777&^c.umask()
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
		if e := c.g.may(nameIn(dir, name), changeName); e != 0 {
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
		for _, real := range []string{nameIn(odir, oname), nameIn(ndir, nname)} {
			if e := c.g.may(real, changeName); e != 0 {
				return 0, e
			}
		}
		return 0, errnoOf(unix.Renameat2(odir, oname, ndir, nname, uint(op.flags)))
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
		if e := c.g.may(nameIn(ndir, nname), changeName); e != 0 {
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
	case unix.SYS_FCHMODAT:
		fd := -1
		if op.fdOnly {
			if op.dir1 < 0 {
				return 0, unix.EBADF
			}
			base, _, errno := c.base(op.dir1, ".")
			if errno != 0 {
				return 0, errno
			}
			fd = base
		} else if op.flags&unix.AT_EMPTY_PATH != 0 {
			if p, errno := c.readPath(op.path1); errno == 0 && p == "" {
				base, _, errno := c.base(op.dir1, ".")
				if errno != 0 {
					return 0, errno
				}
				fd = base
			}
		}
		if fd < 0 {
			base, p, errno := c.at(op.dir1, op.path1)
			if errno != 0 {
				return 0, errno
			}
			var follow uint64
			if op.flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
				follow = unix.O_NOFOLLOW
			}
			if fd, errno = c.resolve(base, p, follow); errno != 0 {
				return 0, errno
			}
		}
		// Mode changes are not a Landlock right: only a protected name is refused.
		if e := c.g.may(realPath(fd), changeMode); e != 0 {
			return 0, e
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return 0, unix.EOPNOTSUPP
		}
		return 0, errnoOf(unix.Fchmodat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), uint32(op.mode)&0o7777, 0))
	}
	return 0, unix.ENOSYS
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
