package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter is assembled with golang.org/x/net/bpf: it is eight instructions, and
// a syscall-table library (go-seccomp-bpf) costs 1.1 ms of package initialisation on every
// gem start, the light front's included.

// auditArch is this architecture's AUDIT_ARCH value (seccomp_data.arch).
var auditArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64, "riscv64": unix.AUDIT_ARCH_RISCV64,
	"loong64": unix.AUDIT_ARCH_LOONGARCH64, "ppc64le": unix.AUDIT_ARCH_PPC64LE, "386": unix.AUDIT_ARCH_I386, "arm": unix.AUDIT_ARCH_ARM,
}

// terminalFilter is the filter of denyTerminalInjection: ioctl(fd, TIOCSTI or TIOCLINUX, …)
// fails with EPERM; a syscall of another architecture (the 32-bit ABI of a 64-bit kernel,
// whose numbers differ) fails with EPERM too; everything else is allowed. The request is
// compared on its low 32 bits, all the kernel reads of it.
func terminalFilter() ([]bpf.RawInstruction, error) {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	const (
		offNr   = 0
		offArch = 4
		offArg1 = 16 + 8*1 // args[1], low half on a little-endian machine
	)
	errno := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	return bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		bpf.RetConstant{Val: errno},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(unix.SYS_IOCTL), SkipTrue: 3},
		bpf.LoadAbsolute{Off: offArg1, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCSTI, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCLINUX, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		bpf.RetConstant{Val: errno},
	})
}

// denyTerminalInjection loads the terminal filter on the calling thread (inherited across
// execve; no_new_privs must be set): a program must not push input into the user's
// terminal, which the user's shell would run after gem exits.
func denyTerminalInjection() error {
	raw, err := terminalFilter()
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}

// seccompUsable reports whether the kernel has seccomp filters (and gem one for this
// architecture).
func seccompUsable() bool {
	if _, err := terminalFilter(); err != nil {
		return false
	}
	v, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil && v >= 0
}
