package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/pathx"
)

// Unix sockets without the namespace layer. A socket file is reached by connect(2), which
// Landlock (up to ABI 7) does not rule: with namespaces the program sees an empty /tmp, /run
// and /dev/shm, so the sockets that matter (ssh-agent, GnuPG, the session bus whose
// systemd --user runs any command unsandboxed, Docker, X11, another extension's plugin) are
// not there; without them (a machine whose AppArmor forbids unprivileged user namespaces, or
// GEM_SANDBOX_NAMESPACES=off) every one would be reachable. So there every program runs
// beside a supervisor (the guard's, in the helper) that receives each connect(2)
// (SECCOMP_RET_USER_NOTIF) and makes it itself; with namespaces a program the guard
// supervises anyway gets the same (the folders it reads may hold a daemon's socket), the
// others do not (the helper would have to stay beside each: ≈ 5 ms per start here):
//   - it copies the address from the program's memory and takes the program's socket with
//     pidfd_getfd(2): the call it makes uses that copy on that socket, so changing the
//     address, or the descriptor's socket, after the check changes nothing;
//   - for a unix socket it opens the path as the program would (from its folder; symbolic
//     links followed, the magic links of /proc not), and connects through the descriptor it
//     opened (/proc/self/fd/N, so the file checked is the file reached) only when that file is
//     a socket with one name beneath the program's own write roots: its data and temporary
//     folders, the workspace when it may write it, the manifest's sandbox.write — never the
//     folders every program shares (/tmp, /var/tmp, /dev/shm; TMPDIR is the program's own);
//     with the network, the name lookup services too (systemd-resolved's, nscd's).
//     A socket with a second name (a hard link made into a write root) is refused, and the
//     root is judged by identity (the folder Landlock holds the rule on), not by name: a root
//     directly in the shared /tmp renamed away and an agent's folder renamed to its name does
//     not count; nothing can be moved out of the shared folders into a root (Landlock: no
//     REFER or MAKE_SOCK there without namespaces, landlock_linux.go). Abstract
//     addresses are refused (EPERM, as Landlock's scoping does): they have no folder to judge
//     by, and a program's own abstract socket is rare;
//   - any other socket (TCP, netlink) is connected from a thread restricted by a Landlock
//     ruleset of the program's network rules, so a TCP connect is judged as the program's own
//     would be;
//   - unix datagram sockets are refused at socket(2) and socketpair(2) (a datagram names its
//     peer on every send, past connect), and io_uring is refused (it connects past seccomp).
//
// The connect runs on a thread of its own (a blocking connect must not hold the supervisor),
// its signals blocked: the program waits for it as for any guarded call, killable by a fatal
// signal only. Reaching the program needs the ptrace right over it (pidfd_getfd,
// process_vm_readv), which the helper, its parent, has under Yama's default; where Yama
// forbids it (ptrace_scope 2 or 3) there is no supervisor (guardUsable: gem doctor says so),
// and a connect the supervisor cannot reach is refused.

// socketRules are what the supervisor judges a program's connects by.
type socketRules struct {
	roots    []string        // real paths beneath which a socket file may be reached
	rootIDs  map[fileID]bool // the same folders by identity, as Landlock holds its rules
	abstract bool            // abstract addresses reachable: a network namespace of the program's own
	network  bool            // TCP allowed
}

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) fileID { return fileID{uint64(st.Dev), st.Ino} }

// nameServiceSockets are the machine's name lookup services, reachable with the network
// (glibc asks them first and falls back to DNS itself when refused, only slower).
var nameServiceSockets = []string{"/run/systemd/resolve/io.systemd.Resolve", "/run/nscd/socket"}

// newSocketRules are p's rules: its write roots (without the shared system folders when it
// has no namespaces of its own, where they are the machine's), and with the network the name
// lookup services. Each root is opened once and judged by what the kernel resolved then: its
// path and identity both read from that descriptor. A root the user agreed to (WriteIDs) is
// opened without following links and only while it is the folder agreed to: one replaced by
// a link (to ~/.ssh) after consent admits no socket.
func newSocketRules(p Policy) socketRules {
	r := socketRules{abstract: p.Namespaces && !p.Network, network: p.Network, rootIDs: map[fileID]bool{}}
	write := p.Write
	if p.Network {
		write = append(slices.Clone(write), nameServiceSockets...)
	}
	for _, w := range write {
		if !p.Namespaces && slices.Contains(SystemWrite, w) {
			continue
		}
		fd, err := openSocketRoot(w, p.WriteIDs[w])
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if real := realPath(fd); real != "" && unix.Fstat(fd, &st) == nil {
			r.roots = append(r.roots, real)
			r.rootIDs[idOf(&st)] = true
		}
		unix.Close(fd)
	}
	return r
}

// openSocketRoot opens the write root w (O_PATH): the folder agreed to (id, not following
// links), else w as it resolves now (gem's own folders and the workspace, given by real path).
func openSocketRoot(w, id string) (int, error) {
	if id != "" {
		fd, _, err := openVerified(w, id, false)
		return fd, err
	}
	return unix.Open(w, unix.O_PATH|unix.O_CLOEXEC, 0)
}

// maxConnects bounds the connects made at once (each on a thread of its own): past it a
// connect fails with EAGAIN, as when the kernel has no room.
const maxConnects = 128

// connect answers one connect(2) of the program, on a thread of its own that is discarded
// afterwards (its signal mask, capabilities and Landlock domain are changed).
func (g *guard) connect(n seccompNotif) {
	defer func() { <-g.connects }()
	runtime.LockOSThread() // never unlocked
	blockSignals()
	dropThreadCapabilities()
	val, errno := g.connectFor(&n)
	g.reply(n.ID, val, errno)
}

func (g *guard) connectFor(n *seccompNotif) (int64, unix.Errno) {
	addrLen := int(int32(uint32(n.Args[2])))
	if addrLen < 2 || addrLen > int(unsafe.Sizeof(unix.RawSockaddrAny{})) {
		return 0, unix.EINVAL
	}
	// Read and made on this thread: connecting is no Landlock right (up to ABI 7) but TCP's,
	// which restrictTCP holds it to.
	c := &call{g: g, tid: n.Pid, id: n.ID, reading: true, fetched: map[fetchKey]fetched{}}
	defer c.close()
	addr := make([]byte, addrLen)
	if errno := c.readMem(n.Args[1], addr); errno != 0 {
		return 0, errno
	}
	sock, errno := c.socketOf(int32(uint32(n.Args[0])))
	if errno != 0 {
		return 0, errno
	}
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return 0, errnoOf(err)
	}
	if domain == unix.AF_UNIX && binary16(addr) == unix.AF_UNIX {
		path := addr[2:]
		switch {
		case len(path) == 0:
			// the kernel's own answer (EINVAL)
		case path[0] == 0:
			if !g.sockets.abstract {
				return 0, unix.EPERM
			}
		default:
			if i := bytes.IndexByte(path, 0); i >= 0 {
				path = path[:i]
			}
			via, errno := c.socketFile(string(path))
			if errno != 0 {
				return 0, errno
			}
			addr = append([]byte{addr[0], addr[1]}, via...)
			addr = append(addr, 0)
		}
	}
	// Restricted last: a thread in a Landlock domain of its own may no longer reach the
	// program's memory and descriptors (ptrace rules).
	if !g.sockets.network {
		if err := restrictTCP(); err != nil {
			return 0, unix.EACCES
		}
	}
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), uintptr(unsafe.Pointer(&addr[0])), uintptr(len(addr)))
	return 0, e
}

func binary16(b []byte) uint16 { return *(*uint16)(unsafe.Pointer(&b[0])) }

// readMem fills buf from the program's memory at addr.
func (c *call) readMem(addr uint64, buf []byte) unix.Errno {
	if addr == 0 {
		return unix.EFAULT
	}
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	if got, err := unix.ProcessVMReadv(int(c.tid), local, remote, 0); err != nil || got != len(buf) {
		return unix.EFAULT
	}
	return 0
}

// socketOf is the program's descriptor fd, duplicated into the supervisor (pidfd_getfd): the
// same open socket. The notification is checked still waiting after the thread is pinned by
// its pidfd, so a reused thread id cannot hand over another process's socket.
func (c *call) socketOf(fd int32) (int, unix.Errno) {
	pidfd, err := unix.PidfdOpen(int(c.tid), unix.PIDFD_THREAD)
	if err == unix.EINVAL { // before Linux 6.9: the thread group's leader
		pidfd, err = unix.PidfdOpen(tgidOf(c.tid), 0)
	}
	if err != nil {
		return -1, unix.EACCES
	}
	c.keep(pidfd)
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(c.g.listener), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&c.id))); e != 0 {
		return -1, unix.ENOENT
	}
	sock, err := unix.PidfdGetfd(pidfd, int(fd), 0)
	switch {
	case err == unix.EBADF:
		return -1, unix.EBADF
	case err != nil:
		return -1, unix.EACCES // not ours to reach (ptrace rules): refused, not let through
	}
	return c.keep(sock), 0
}

// tgidOf is the thread group (process) of thread tid.
func tgidOf(tid uint32) int {
	data, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(tid), 10) + "/status")
	if err == nil {
		if _, rest, ok := bytes.Cut(data, []byte("\nTgid:\t")); ok {
			line, _, _ := bytes.Cut(rest, []byte("\n"))
			if v, err := strconv.Atoi(string(line)); err == nil {
				return v
			}
		}
	}
	return int(tid)
}

// socketFile opens the socket file p names for the program and returns the path that reaches
// exactly that file from the supervisor (its descriptor under /proc/self/fd), or why not.
func (c *call) socketFile(p string) (string, unix.Errno) {
	base, p, errno := c.base(unix.AT_FDCWD, p)
	if errno != 0 {
		return "", errno
	}
	fd, errno := c.resolve(base, p, 0)
	if errno != 0 {
		return "", errno
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", errnoOf(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return "", unix.ECONNREFUSED // what the kernel answers for a file that is not a socket
	}
	real := realPath(fd)
	if !c.g.sockets.reachable(real) || st.Nlink != 1 || !c.g.sockets.insideRoot(&st, real) {
		return "", unix.EACCES
	}
	return "/proc/self/fd/" + strconv.Itoa(fd), 0
}

// reachable: a socket file at real may be connected to.
func (r socketRules) reachable(real string) bool {
	if real == "" || real[0] != '/' {
		return false
	}
	for _, root := range r.roots {
		if pathx.Within(root, real) {
			return true
		}
	}
	return false
}

// insideRoot: the socket sock (at real) is, now, in a folder beneath a root folder itself —
// by identity, not by name: a root whose name was taken by another folder (a root directly
// in the shared /tmp renamed away, an agent's folder renamed to its name) does not count.
func (r socketRules) insideRoot(sock *unix.Stat_t, real string) bool {
	dir, err := unix.Open(filepath.Dir(real), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer func() { unix.Close(dir) }()
	var st unix.Stat_t
	if unix.Fstatat(dir, filepath.Base(real), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || idOf(&st) != idOf(sock) {
		return false // not in that folder under that name (any more)
	}
	for range 256 {
		if unix.Fstat(dir, &st) != nil {
			return false
		}
		if r.rootIDs[idOf(&st)] {
			return true
		}
		up, err := unix.Openat(dir, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		var upSt unix.Stat_t
		if unix.Fstat(up, &upSt) != nil || idOf(&upSt) == idOf(&st) {
			unix.Close(up)
			return false // the top
		}
		unix.Close(dir)
		dir = up
	}
	return false
}

// restrictTCP restricts the calling thread by a Landlock ruleset that handles TCP connect
// and bind and allows neither (the program's rules when it has no network). Without Landlock's
// network rules (ABI < 4) the program's own connects are not restricted either.
func restrictTCP() error {
	if LandlockABI() < 4 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	attr := rulesetAttr{handledNet: netTCP}
	size := unsafe.Sizeof(attr.handledFS) + unsafe.Sizeof(attr.handledNet)
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return e
	}
	defer unix.Close(int(fd))
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return e
	}
	return nil
}
