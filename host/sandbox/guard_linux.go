package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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
// Calls that would get around the supervisor are refused: io_uring, user namespaces and the
// mount API (a detached clone of the workspace gives its files other names) to every program
// (closedSurface), openat2 (ENOSYS: its flags are behind a pointer), open_by_handle_at, and
// syscalls of another ABI (x32, 32-bit). The supervisor reads the program on one thread and
// makes the calls on another, restricted with the program's own Landlock ruleset (guard). Unix sockets bound to a path create a socket file,
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
	fdOnly       bool   // fchmod, fchown, fsetxattr: dir1 is the file itself
	name, value  uint64 // an extended attribute's name and value (length: its size)
	owner, group uint64 // chown's
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
	case unix.SYS_FCHOWNAT:
		return guardOp{nr: nr, dir1: fd(a[0]), path1: a[1], owner: a[2], group: a[3], flags: a[4]}
	case unix.SYS_FCHOWN:
		return guardOp{nr: unix.SYS_FCHOWNAT, dir1: fd(a[0]), owner: a[1], group: a[2], fdOnly: true}
	case unix.SYS_UMASK:
		return guardOp{nr: nr}
	case unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR:
		op := guardOp{nr: unix.SYS_SETXATTR, dir1: unix.AT_FDCWD, path1: a[0], name: a[1], value: a[2], length: a[3], mode: a[4]}
		return xattrForm(nr, op, a)
	case unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR:
		return xattrForm(nr, guardOp{nr: unix.SYS_REMOVEXATTR, dir1: unix.AT_FDCWD, path1: a[0], name: a[1]}, a)
	}
	return guardOp{}
}

// xattrForm sets which file an attribute call names: its descriptor (f…), or its path
// followed (set…, remove…) or not (l…). setxattr's flags travel in mode.
func xattrForm(nr uint32, op guardOp, a [6]uint64) guardOp {
	switch nr {
	case unix.SYS_FSETXATTR, unix.SYS_FREMOVEXATTR:
		op.dir1, op.path1, op.fdOnly = int32(uint32(a[0])), 0, true
	case unix.SYS_LSETXATTR, unix.SYS_LREMOVEXATTR:
		op.flags = unix.AT_SYMLINK_NOFOLLOW
	}
	return op
}

// guard is the supervisor of one sandboxed program and everything it starts. It is two
// threads: the reader (serve), which receives each call and takes from the program what the
// call names — its strings, and its folders and descriptors as descriptors of gem's — and
// the actor (act), which decides and makes the call. Reading the program needs the ptrace
// right over it, which a thread in a Landlock domain of its own lacks (the program's domain
// is not beneath it); making the call is done under the program's own rules: the actor is
// restricted with the ruleset the program was (landlock_linux.go), so whatever slips past
// the guard's checks, the kernel still refuses what Landlock refuses the program (a name
// in /dev replaced, a write root removed). The reader makes no call that changes anything.
type guard struct {
	listener  int
	ruleset   int      // the program's Landlock ruleset (-1: no Landlock here)
	workspace string   // real path
	write     []string // real paths of the write roots
	dirs      []string // those of them that are folders (a file root's name is never changed)
	frozen    []string // real paths no call may change (Policy.Frozen)
	self      string   // this process's id, as the program's /proc shows it
	sockets   socketRules
	connects  chan struct{} // a slot per connect being made (maxConnects)
	jobs      chan *call    // read, for the actor to answer
	posted    atomic.Uint32 // bumped at each job posted: the actor's futex word

	mu     sync.Mutex
	umasks map[uint32]uint32 // by thread, read from /proc/<tid>/status
}

// newGuard prepares the supervisor of listener for policy p (in the program's view), whose
// thread was restricted with ruleset.
func newGuard(listener, ruleset int, p Policy) *guard {
	g := &guard{listener: listener, ruleset: ruleset, umasks: map[uint32]uint32{}, self: strconv.Itoa(os.Getpid()),
		sockets: newSocketRules(p), connects: make(chan struct{}, maxConnects), jobs: make(chan *call, 1024)}
	g.workspace = realOr(p.Workspace)
	for _, w := range p.Write {
		r, err := filepath.EvalSymlinks(w)
		if err != nil {
			continue
		}
		g.write = append(g.write, r)
		if st, err := os.Stat(r); err == nil && st.IsDir() {
			g.dirs = append(g.dirs, r)
		}
	}
	for _, f := range p.Frozen {
		g.frozen = append(g.frozen, foldPath(realOr(f)))
	}
	return g
}

func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// serve receives the program's calls until the listener is closed. It runs on a thread of its
// own with every signal blocked (an interrupted SECCOMP_IOCTL_NOTIF_ADDFD would be restarted
// after the program already got its descriptor) and no capability.
func (g *guard) serve(ready <-chan struct{}) {
	runtime.LockOSThread() // never unlocked: the thread's signal mask and capabilities are changed
	blockSignals()
	dropThreadCapabilities()
	started := make(chan error)
	go g.act(started, ready)
	if err := <-started; err != nil {
		g.refuseAll() // the actor could not be held to the program's rules: it makes nothing
		return
	}
	<-ready
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

// refuseAll answers every call with EACCES (the supervisor cannot work).
func (g *guard) refuseAll() {
	for {
		var n seccompNotif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); e != 0 {
			if e == unix.EINTR || e == unix.ENOENT {
				continue
			}
			return
		}
		g.reply(n.ID, 0, unix.EACCES)
	}
}

// holdToProgram makes the calling goroutine's thread one that acts for the program: locked
// for good (its state is changed), no signal, no capability, and restricted with the
// program's Landlock ruleset.
func (g *guard) holdToProgram() error {
	runtime.LockOSThread() // never unlocked
	blockSignals()
	dropThreadCapabilities()
	if g.ruleset < 0 {
		return nil // no Landlock on this machine: the program is not held to it either
	}
	return restrictSelf(g.ruleset)
}

// act makes the calls the reader has read, one after another, on a thread restricted as the
// program is. It waits for work on a futex, not on the Go scheduler: both threads are locked,
// and handing a goroutine between locked threads costs several times more.
func (g *guard) act(started chan<- error, ready <-chan struct{}) {
	err := g.holdToProgram()
	started <- err
	if err != nil {
		return
	}
	<-ready
	// Files the actor makes get the program's own mask, applied by the actor; the program,
	// forked already, keeps its own (the mask is the process's, not the thread's).
	syscall.Umask(0)
	for {
		seen := g.posted.Load()
		select {
		case c := <-g.jobs:
			c.answer()
			continue
		default:
		}
		futex(&g.posted, futexWaitPrivate, seen)
	}
}

// post hands a call the reader has read to the actor.
func (g *guard) post(c *call) {
	g.jobs <- c
	g.posted.Add(1)
	futex(&g.posted, futexWakePrivate, 1)
}

// FUTEX_WAIT and FUTEX_WAKE with FUTEX_PRIVATE_FLAG (linux/futex.h).
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

func futex(addr *atomic.Uint32, op int, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), uintptr(op), uintptr(val), 0, 0, 0)
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

// handle reads one call (the reader's part) and posts it to the actor.
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
	c := &call{g: g, tid: n.Pid, id: n.ID, op: op, fetched: map[fetchKey]fetched{}}
	c.fetch()
	g.post(c)
}

// answer decides and makes one call read by the reader (the actor's part).
func (c *call) answer() {
	g, op := c.g, c.op
	c.reading = false
	defer c.close()
	if op.nr == unix.SYS_OPENAT {
		fd, deferred, errno := c.open(op)
		switch {
		case errno != 0:
			g.reply(c.id, 0, errno)
		case deferred != nil:
			go deferred() // a FIFO or a device may block its open: not on this thread
		default:
			g.sendFD(c.id, fd, op.flags&unix.O_CLOEXEC != 0)
		}
		return
	}
	val, errno := c.run(op)
	// The program may have been killed while the path was read: its call is gone then.
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&c.id))); e != 0 {
		return
	}
	g.reply(c.id, val, errno)
}
