package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runFilter runs f's filter in a BPF machine on one call (arch: seccomp_data.arch).
func runFilter(t *testing.T, f filterSet, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	raw, err := buildFilter(f)
	if err != nil {
		t.Fatal(err)
	}
	prog, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	data := seccompData(nr, args...)
	binary.BigEndian.PutUint32(data[offArch:], arch)
	got, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(got)
}

// TestClosedSurface: every row of closedSurface is refused, with its errno, by every filter a
// program can get (with or without the guard, the socket judge, the network); a call of
// another ABI is refused before any row; and what the rows leave alone (a thread's clone, an
// unshare of the files table) passes.
func TestClosedSurface(t *testing.T) {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		t.Skip("no filter for " + runtime.GOARCH)
	}
	eperm := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	sets := map[string]filterSet{
		"terminal rule only": {}, "guard": {guard: true}, "socket judge": {sockets: true},
		"no network": {noNet: true, families: true}, "everything": {guard: true, sockets: true, noNet: true, families: true},
	}
	for name, f := range sets {
		t.Run(name, func(t *testing.T) {
			for _, row := range closedSurface {
				want := unix.SECCOMP_RET_ERRNO | uint32(row.errno)
				for _, nr := range row.nrs {
					var args []uint64
					if row.mask != 0 {
						args = make([]uint64, row.arg+1)
						args[row.arg] = uint64(row.mask)
					}
					if got := runFilter(t, f, arch, nr, args...); got != want {
						t.Errorf("%s (%d): got %#x, want %#x", row.what, nr, got, want)
					}
				}
			}
			for _, c := range []struct {
				what string
				nr   uint32
				args []uint64
			}{
				{"a thread", unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD}},
				{"a fork", unix.SYS_CLONE, []uint64{uint64(unix.SIGCHLD)}},
				{"unshare of the files table", unix.SYS_UNSHARE, []uint64{unix.CLONE_FILES}},
				{"a read", unix.SYS_READ, nil},
			} {
				if got := runFilter(t, f, arch, c.nr, c.args...); got != unix.SECCOMP_RET_ALLOW {
					t.Errorf("%s: got %#x, want it allowed", c.what, got)
				}
			}
			for _, ns := range []uint64{unix.CLONE_NEWNS, unix.CLONE_NEWUSER | unix.CLONE_NEWNS, unix.CLONE_NEWPID, unix.CLONE_NEWNET} {
				if got := runFilter(t, f, arch, unix.SYS_UNSHARE, ns); got != eperm {
					t.Errorf("unshare(%#x): got %#x, want EPERM", ns, got)
				}
			}
			other := uint32(unix.AUDIT_ARCH_I386)
			if runtime.GOARCH == "arm64" {
				other = unix.AUDIT_ARCH_ARM
			}
			if got := runFilter(t, f, other, unix.SYS_READ); got != eperm {
				t.Errorf("a call of another ABI: got %#x, want EPERM", got)
			}
			if runtime.GOARCH == "amd64" {
				if got := runFilter(t, f, arch, x32Bit|unix.SYS_READ); got != eperm {
					t.Errorf("an x32 call: got %#x, want EPERM", got)
				}
			}
		})
	}
}
