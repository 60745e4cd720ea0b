package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter is assembled with golang.org/x/net/bpf: a few dozen instructions, and a
// syscall-table library (go-seccomp-bpf) costs 1.1 ms of package initialisation on every gem
// start, the light front's included.

// auditArch is this architecture's AUDIT_ARCH value (seccomp_data.arch).
var auditArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64, "riscv64": unix.AUDIT_ARCH_RISCV64,
	"loong64": unix.AUDIT_ARCH_LOONGARCH64, "ppc64le": unix.AUDIT_ARCH_PPC64LE, "386": unix.AUDIT_ARCH_I386, "arm": unix.AUDIT_ARCH_ARM,
}

// seccomp_data offsets (little-endian: an argument's low half comes first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

func offArg(i int) uint32 { return uint32(offArg0 + 8*i) }

// x32Bit marks the x32 ABI's syscall numbers, which share AUDIT_ARCH_X86_64 with the native
// ones: without a check, ioctl(TIOCSTI) or any guarded call would pass under its x32 number.
const x32Bit = 0x40000000

// guardedWrites are the calls that create, rename, link, remove or change a name, or open a
// file for writing: with the guard, every one goes to the supervisor (guard_linux.go), which
// checks the path and makes the call itself. The legacy (non-"at") calls exist on amd64 only.
func guardedCalls() (notify []uint32, openFlagsArg map[uint32]int) {
	notify = []uint32{
		unix.SYS_MKDIRAT, unix.SYS_MKNODAT, unix.SYS_LINKAT, unix.SYS_SYMLINKAT, unix.SYS_RENAMEAT2,
		unix.SYS_UNLINKAT, unix.SYS_TRUNCATE, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_UMASK,
	}
	notify = append(notify, legacyNotify...)
	openFlagsArg = map[uint32]int{unix.SYS_OPENAT: 2}
	for nr, arg := range legacyOpen {
		openFlagsArg[nr] = arg
	}
	return notify, openFlagsArg
}

// xattrCalls are the calls that set or remove an extended attribute (filterSet.attrs, and the
// guard's).
var xattrCalls = []uint32{unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR}

// attrIoctls set a file's flags (nodump, noatime, compression; fs-verity makes it read-only
// for good) on a descriptor opened only to read: refused with filterSet.attrs, where the
// supervisor judges modes and nothing outside the write roots is read-only in the view.
var attrIoctls = []uint32{uint32(unix.FS_IOC_SETFLAGS), iow('f', 2, 4) /* FS_IOC32_SETFLAGS */, iow('X', 32, 28) /* FS_IOC_FSSETXATTR */, uint32(unix.FS_IOC_ENABLE_VERITY)}

// iow is _IOW(typ, nr, size) in this architecture's encoding (its direction bits are
// FS_IOC_SETFLAGS's, a write).
func iow(typ, nr, size uint32) uint32 {
	dir := uint32(unix.FS_IOC_SETFLAGS) &^ (0x3fff<<16 | 0xffff)
	return dir | size<<16 | typ<<8 | nr
}

// refusedWithGuard are calls that would get around the guard (besides io_uring, which does
// opens, renames and links from the kernel on its own and is refused to every program):
// openat2's flags sit behind a pointer the filter cannot read; open_by_handle_at opens by
// inode. They fail with ENOSYS (programs then fall back to the plain calls, as libuv and glibc
// do) or EPERM.
var refusedWithGuard = map[uint32]uint32{
	unix.SYS_OPENAT2: uint32(unix.ENOSYS), unix.SYS_OPEN_BY_HANDLE_AT: uint32(unix.EPERM),
}

// writeIntent are the open flags that make an open a write (or a creation).
const writeIntent = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// filterSet says which parts of the filter a program gets.
type filterSet struct {
	// guard: the workspace guard's calls go to the supervisor (guard_linux.go).
	guard bool
	// sockets: connect goes to the supervisor, which makes it itself and lets a unix socket
	// be reached only beneath the program's own write roots (socket_linux.go); unix
	// datagram sockets, which name their peer on every send, are refused.
	sockets bool
	// noNet: the program may not use the network and has no network namespace of its own:
	// Landlock rules TCP, so every other internet socket (UDP, SCTP, ping) is refused, and
	// so is TCP fast open, a connect made by a send.
	noNet bool
	// attrs: mode and attribute changes (chmod, and extended attributes: ACLs) go to the
	// supervisor, which allows them beneath the program's folder write roots only: without
	// namespaces nothing outside is read-only in its view (Landlock has no rule for them).
	attrs bool
	// families: the program may not use the network, so only unix, netlink and internet
	// sockets may be made (internet ones ruled by its network namespace, or by noNet): the
	// other families are not in a network namespace at all — vsock reaches the virtual
	// machine's host (its agents), and Bluetooth, TIPC, CAN and the like reach further.
	families bool
}

// supervised: some calls go to a supervisor.
func (f filterSet) supervised() bool { return f.guard || f.sockets }

// closedCall is one row of the surface every sandboxed program is refused, whatever its
// policy: calls that would give it back what the other layers take (mounts, another
// program's memory) or reach past them (io_uring makes its calls from the kernel, past this
// filter and the guard). mask, when set, refuses the call only when its argument arg has one
// of those bits (a clone or unshare that makes a namespace).
type closedCall struct {
	what  string
	nrs   []uint32
	arg   int
	mask  uint32
	errno unix.Errno
}

// newNamespaces are the clone and unshare flags that make a namespace.
const newNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// closedSurface is the table the filter refuses from (after the syscalls of another ABI: the
// 32-bit one of a 64-bit kernel, x32, which fail with EPERM before any row). Without it a
// program made a user namespace of its own, cloned the workspace with open_tree and wrote
// through the detached mount, where the guard saw another name (a nested .git as /tmp/x/.git).
// clone3 and io_uring fail with ENOSYS, which glibc, libuv and Go fall back from; the rest
// with EPERM.
var closedSurface = []closedCall{
	{what: "new namespaces", nrs: []uint32{unix.SYS_UNSHARE, unix.SYS_CLONE}, arg: 0, mask: newNamespaces, errno: unix.EPERM},
	{what: "clone3 (its flags are behind a pointer)", nrs: []uint32{unix.SYS_CLONE3}, errno: unix.ENOSYS},
	{what: "entering namespaces", nrs: []uint32{unix.SYS_SETNS}, errno: unix.EPERM},
	{what: "the mount API", nrs: []uint32{unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_MOVE_MOUNT,
		unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR, unix.SYS_PIVOT_ROOT}, errno: unix.EPERM},
	{what: "io_uring", nrs: []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}, errno: unix.ENOSYS},
	{what: "set-user-ID and set-group-ID bits (a granted file made to run as its owner)", nrs: append([]uint32{unix.SYS_FCHMOD}, legacyChmod...), arg: 1, mask: unix.S_ISUID | unix.S_ISGID, errno: unix.EPERM},
	{what: "set-user-ID and set-group-ID bits, by name", nrs: []uint32{unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2}, arg: 2, mask: unix.S_ISUID | unix.S_ISGID, errno: unix.EPERM},
	{what: "ptrace and another process's memory", nrs: []uint32{unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV}, errno: unix.EPERM},
	// Not namespaced for root, nor without a user namespace of the program's own: the keys
	// of the session it started in (a Kerberos ticket in a KEYRING: cache) were read.
	{what: "the kernel keyring", nrs: []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY}, errno: unix.EPERM},
}

// closedRules are closedSurface's instructions: each ends in a refusal or falls through with
// the number loaded again.
func closedRules() []bpf.Instruction {
	var prog []bpf.Instruction
	for _, row := range closedSurface {
		refuse := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(row.errno)}
		for _, nr := range row.nrs {
			if row.mask == 0 {
				prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, refuse)
				continue
			}
			prog = append(prog,
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 4},
				bpf.LoadAbsolute{Off: offArg(row.arg), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: row.mask, SkipFalse: 1},
				refuse,
				bpf.LoadAbsolute{Off: offNr, Size: 4})
		}
	}
	return prog
}

// buildFilter is the program's seccomp filter: a syscall of another ABI (the 32-bit one of a
// 64-bit kernel, x32) fails with EPERM, and so does every call of closedSurface;
// ioctl(fd, TIOCSTI or TIOCLINUX, …) fails with EPERM
// (the request compared on its low 32 bits, all the kernel reads); with f.guard, the guarded
// calls go to the supervisor (SECCOMP_RET_USER_NOTIF) and the calls that would get around it
// are refused; f.sockets and f.noNet add their socket rules; everything else is allowed.
func buildFilter(f filterSet) ([]bpf.RawInstruction, error) {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	eacces := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)}
	allow := bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	notify := bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		bpf.RetConstant{Val: eperm},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if runtime.GOARCH == "amd64" {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: eperm})
	}
	prog = append(prog, closedRules()...)
	if f.attrs || f.guard {
		// Extended attributes (an ACL is a mode) with the guard too: they are rare, and a
		// write root's own are not the program's to change.
		calls := xattrCalls
		if f.attrs {
			// chown too: a change to the owner it has (no right needed) still clears a file's
			// set-user-ID bit (sudo's, passwd's) and file capabilities.
			calls = append(append([]uint32{unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_FCHOWN, unix.SYS_FCHOWNAT}, legacyChmod...), legacyChown...)
			calls = append(calls, xattrCalls...)
		}
		for _, nr := range calls {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, notify)
		}
		// Their forms with the path behind a pointer to a structure (Linux 6.13), and
		// file_setattr (6.17: a file's flags by name, nodump or noatime on a system file): ENOSYS.
		for _, nr := range []uint32{unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT, unix.SYS_FILE_SETATTR} {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1},
				bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
		}
	}
	if f.guard {
		calls, opens := guardedCalls()
		for _, nr := range calls {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, notify)
		}
		for nr, errno := range refusedWithGuard {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1},
				bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | errno})
		}
		// fchmod(fd, mode) changes a file opened for reading: making a protected file
		// executable (a disabled .git hook) goes to the supervisor; a mode without the
		// execute, setuid, setgid or sticky bits cannot make anything run and passes (tar and
		// npm set modes on every file they unpack).
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(unix.SYS_FCHMOD), SkipFalse: 4},
			bpf.LoadAbsolute{Off: offArg(1), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0o7111, SkipFalse: 1},
			notify,
			allow)
		for nr, arg := range opens {
			// The flags are loaded over the number: these blocks end in a return either way.
			prog = append(prog,
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 4},
				bpf.LoadAbsolute{Off: offArg(arg), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: writeIntent, SkipFalse: 1},
				notify,
				allow)
		}
	}
	if f.sockets {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CONNECT, SkipFalse: 1}, notify)
	}
	if f.sockets || f.noNet || f.families {
		prog = append(prog, socketCallRules(f, eacces, allow)...)
	}
	if f.noNet {
		// A send with MSG_FASTOPEN connects a TCP socket without connect(2).
		for nr, arg := range map[uint32]int{unix.SYS_SENDTO: 3, unix.SYS_SENDMSG: 2, unix.SYS_SENDMMSG: 3} {
			prog = append(prog,
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 4},
				bpf.LoadAbsolute{Off: offArg(arg), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.MSG_FASTOPEN, SkipFalse: 1},
				eacces,
				allow)
		}
	}
	requests := []uint32{unix.TIOCSTI, unix.TIOCLINUX}
	if f.attrs {
		requests = append(requests, attrIoctls...)
	}
	n := len(requests)
	prog = append(prog,
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(unix.SYS_IOCTL), SkipTrue: uint8(n + 1)},
		bpf.LoadAbsolute{Off: offArg(1), Size: 4})
	for i, r := range requests {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: r, SkipTrue: uint8(n - i)})
	}
	prog = append(prog, allow, bpf.RetConstant{Val: eperm})
	return bpf.Assemble(prog)
}

// socketCallRules is the block for socket(2) and socketpair(2) (domain, type, protocol): with
// f.sockets a unix datagram socket is refused (a send names any socket file; a pair's ends
// can too); with f.families only unix, netlink and internet sockets are made; with f.noNet an
// internet socket other than TCP is refused. It ends in a return for these two calls and
// falls through for the others (the number still loaded).
func socketCallRules(f filterSet, refuse, allow bpf.Instruction) []bpf.Instruction {
	var unixBlock, inetBlock []bpf.Instruction
	if f.sockets {
		unixBlock = []bpf.Instruction{
			bpf.LoadAbsolute{Off: offArg(1), Size: 4},
			bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf}, // the type without SOCK_NONBLOCK|SOCK_CLOEXEC
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_DGRAM, SkipFalse: 1},
			refuse,
		}
	}
	unixBlock = append(unixBlock, allow)
	if f.noNet {
		inetBlock = []bpf.Instruction{
			bpf.LoadAbsolute{Off: offArg(1), Size: 4},
			bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipFalse: 3},
			bpf.LoadAbsolute{Off: offArg(2), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 2},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.IPPROTO_TCP, SkipTrue: 1},
			refuse,
		}
	}
	inetBlock = append(inetBlock, allow)
	// Dispatch on the domain: unix, netlink and internet go to their blocks; any other
	// family is refused with f.families and allowed without.
	u := 6                  // the unix block's index in body (after the load, four jumps, other)
	i := u + len(unixBlock) // the internet block's
	a := i + len(inetBlock) // the netlink allow
	other := refuse
	if !f.families {
		other = allow
	}
	body := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArg(0), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipTrue: uint8(u - 2)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: uint8(i - 3)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: uint8(i - 4)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_NETLINK, SkipTrue: uint8(a - 5)},
	}
	body = append(body, other)
	body = append(body, unixBlock...)
	body = append(body, inetBlock...)
	body = append(body, allow)
	return append([]bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKETPAIR, SkipFalse: uint8(len(body))},
	}, body...)
}

// loadFilter loads the filter on the calling thread (inherited across clone and execve;
// no_new_privs is set first). With a supervisor it returns the listener the supervisor reads.
func loadFilter(f filterSet) (listener int, err error) {
	raw, err := buildFilter(f)
	if err != nil {
		return -1, err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, err
	}
	var flags uintptr
	guard := f.supervised()
	if guard {
		// WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has a call, only a fatal signal
		// interrupts the caller's wait. Without it a signal (Go's preemption signal, every
		// few ms) restarts a call the supervisor already made: a file created with O_EXCL
		// would then fail with EEXIST.
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
	}
	fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
	if e == unix.EINVAL && guard {
		flags &^= unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV // an older kernel
		fd, _, e = unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
	}
	if e != 0 {
		return -1, fmt.Errorf("seccomp: %w", e)
	}
	if !guard {
		return -1, nil
	}
	return int(fd), nil
}

// denyTerminalInjection loads the filter without a supervisor on the calling thread: a
// program must not push input into the user's terminal, which the user's shell would run
// after gem exits. It adds the socket rules of a program without the network (noNet,
// families: filterSet).
func denyTerminalInjection(noNet, families bool) error {
	_, err := loadFilter(filterSet{noNet: noNet, families: families})
	return err
}

// seccompUsable reports whether the kernel has seccomp filters (and gem one for this
// architecture).
func seccompUsable() bool {
	if _, err := buildFilter(filterSet{}); err != nil {
		return false
	}
	v, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil && v >= 0
}
