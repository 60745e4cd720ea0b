package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is used through golang.org/x/sys/unix on one locked OS thread, the thread that
// then calls execve: a Landlock domain belongs to the thread that restricts itself and is
// inherited across execve. (go-landlock restricts every thread of the process through
// libpsx, which gem does not need: the restricted thread is the one that becomes the
// target program.)

// LandlockABI is the kernel's Landlock ABI version, 0 when it has none (or it is disabled).
func LandlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// rulesetAttr is struct landlock_ruleset_attr up to "scoped" (ABI 6).
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

const (
	fsRead  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	fsFile  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	netTCP  = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	scopeV6 = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
)

// fsRights are the filesystem rights an ABI version knows.
func fsRights(abi int) uint64 {
	switch {
	case abi >= 5:
		return 1<<16 - 1
	case abi >= 3:
		return 1<<15 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi == 1:
		return 1<<13 - 1
	}
	return 0
}

// Apply restricts the calling OS thread (which it locks; the caller must execve on the same
// goroutine) and the process's resource limits to p. Without Landlock it applies what it
// can and reports the rest as missing; a strict policy then fails with ErrNotEnforced.
func Apply(p Policy) (Report, error) {
	r, ruleset, err := apply(p, nil)
	if ruleset >= 0 {
		unix.Close(ruleset)
	}
	return r, err
}

// apply is Apply that runs beforeLandlock (the last step that needs mounts: the read-only
// view) before the thread is restricted, and returns the ruleset it restricted the thread
// with (-1 without Landlock), for the supervisor's threads to restrict themselves with the
// same rules (guard_linux.go). The caller closes it.
func apply(p Policy, beforeLandlock func() []string) (r Report, ruleset int, err error) {
	runtime.LockOSThread()
	ruleset = -1
	if err := setLimits(p.Limits, p.Strict, &r); err != nil {
		return r, -1, err
	}
	if beforeLandlock != nil {
		r.Missing = append(r.Missing, beforeLandlock()...)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return r, -1, fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if !p.Network && p.NetNS {
		// A network namespace of its own (root only: unprivileged user namespaces cannot be
		// made by a multithreaded process) also cuts UDP, which Landlock ABI < 8 leaves open.
		if err := unix.Unshare(unix.CLONE_NEWNET); err == nil {
			r.NetworkNamespace = true
		} else if !seccompUsable() { // else the seccomp filter refuses UDP (filterSet.noNet)
			r.Missing = append(r.Missing, "UDP rules (no network namespace: "+err.Error()+")")
		}
	}
	abi := LandlockABI()
	r.LandlockABI = abi
	if abi < 1 {
		r.Missing = append(r.Missing, "filesystem rules (no Landlock in this kernel)")
		if !p.Network {
			r.Missing = append(r.Missing, "network rules (no Landlock in this kernel)")
		}
		return r, -1, strictError(p, r)
	}
	attr := rulesetAttr{handledFS: fsRights(abi)}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.handledNet)
		if !p.Network {
			attr.handledNet = netTCP
		}
	} else if !p.Network {
		r.Missing = append(r.Missing, fmt.Sprintf("network rules (Landlock ABI %d < 4)", abi))
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = scopeV6
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return r, -1, fmt.Errorf("sandbox: landlock_create_ruleset: %w", e)
	}
	ruleset = int(fd)
	defer func() {
		if err != nil {
			unix.Close(ruleset)
			ruleset = -1
		}
	}()
	for _, path := range p.Read {
		if id := p.ReadIDs[path]; id != "" {
			// As a write root below: a read root agreed to and replaced by a link (to
			// ~/.ssh) after gem's check is refused, not followed.
			if err := addVerifiedRoot(ruleset, path, id, fsRead&attr.handledFS, true); err != nil {
				return r, ruleset, err
			}
			continue
		}
		if err := addPath(ruleset, path, fsRead&attr.handledFS); err != nil {
			return r, ruleset, err
		}
	}
	for _, path := range p.Write {
		rights := attr.handledFS
		if !p.Namespaces && slices.Contains(SystemWrite, path) {
			// The machine's own /tmp, /var/tmp and /dev/shm (no private ones without
			// namespaces): no socket made there, where the user's tools look for theirs (a
			// tmux server's, an agent's); the program's own are made in its own folders. Nor
			// is anything moved or linked out of them into another folder (REFER): an agent's
			// socket moved into the program's own folder would be its to reach.
			rights &^= unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_REFER
		}
		if id := p.WriteIDs[path]; id != "" {
			// The root the user agreed to, opened without following links and compared with
			// the identity recorded then: the rule holds that descriptor's folder, whatever
			// lies at the path a moment later.
			if err := addVerifiedRoot(ruleset, path, id, rights, false); err != nil {
				return r, ruleset, err
			}
			continue
		}
		if err := addPath(ruleset, path, rights); err != nil {
			return r, ruleset, err
		}
	}
	if e := restrictSelf(ruleset); e != nil {
		return r, ruleset, fmt.Errorf("sandbox: landlock_restrict_self: %w", e)
	}
	r.Filesystem, r.Network, r.Scoped = true, attr.handledNet != 0, attr.scoped != 0
	return r, ruleset, strictError(p, r)
}

// restrictSelf restricts the calling thread by ruleset (no_new_privs set first: a thread of
// the supervisor's has not inherited it).
func restrictSelf(ruleset int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); e != 0 {
		return e
	}
	return nil
}

// addPath allows rights beneath path; a path that does not exist is skipped (the policy
// lists system paths of every distribution).
func addPath(ruleset int, path string, rights uint64) error {
	if path == "" {
		return nil
	}
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("sandbox: %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox: %s: %w", path, err)
	}
	return addRule(ruleset, fd, &st, path, rights)
}

// addVerifiedRoot allows rights beneath the root path (a read root when read), opened once
// (openVerified): the rule is added from that descriptor.
func addVerifiedRoot(ruleset int, path, id string, rights uint64, read bool) error {
	fd, st, err := openVerified(path, id, read)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return addRule(ruleset, fd, &st, path, rights)
}

// openVerified opens the root path (O_PATH) without following any link on the way (openat2,
// RESOLVE_NO_SYMLINKS), and, when id is not "", only if it is still the file id ("dev:ino",
// recorded when the user agreed): else a *WriteRootError (Read: a read root).
func openVerified(path, id string, read bool) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return -1, st, &WriteRootError{Read: read, Path: path, Agreed: id, Err: err}
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, fmt.Errorf("sandbox: %s: %w", path, err)
	}
	if now := fmt.Sprintf("%d:%d", st.Dev, st.Ino); id != "" && now != id {
		unix.Close(fd)
		return -1, st, &WriteRootError{Read: read, Path: path, Agreed: id, Now: now}
	}
	return fd, st, nil
}

// addRule allows rights beneath fd (path, st: what it is).
func addRule(ruleset, fd int, st *unix.Stat_t, path string, rights uint64) error {
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fsFile // rights that make sense on a file
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return fmt.Errorf("sandbox: allowing %s: %w", path, e)
	}
	return nil
}

func setLimits(l Limits, strict bool, r *Report) error {
	set := func(resource int, v uint64, name string) error {
		if v == 0 {
			return nil
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(resource, &cur); err != nil {
			return fmt.Errorf("sandbox: %s limit: %w", name, err)
		}
		lim := unix.Rlimit{Cur: min(v, cur.Max), Max: min(v, cur.Max)}
		if resource == unix.RLIMIT_CPU && lim.Max < unix.RLIM_INFINITY-5 {
			lim.Max += 5 // SIGXCPU at the soft limit, SIGKILL 5 s later
			lim.Max = min(lim.Max, cur.Max)
		}
		if err := unix.Setrlimit(resource, &lim); err != nil {
			return fmt.Errorf("sandbox: %s limit: %w", name, err)
		}
		return nil
	}
	if err := set(unix.RLIMIT_CPU, l.CPUSeconds, "CPU"); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_NOFILE, l.OpenFiles, "open files"); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_AS, l.AddressSpace, "address space"); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_NPROC, l.Processes, "processes"); err != nil {
		return err
	}
	r.Limits = true
	r.Processes = l.Processes != 0 && os.Geteuid() != 0
	if l.Processes != 0 && !r.Processes {
		// Root is exempt from RLIMIT_NPROC. A pids cgroup holds for root too, but moving a
		// process into a cgroup v1 waits for an RCU grace period (+8.5 ms on a sandboxed
		// plugin's start here: GEM_SANDBOX_STRICT=1 BenchmarkColdStartSandboxed, in
		// scripts/bench.sh), so it is made under a strict policy only.
		switch {
		case !strict:
			r.Missing = append(r.Missing, "process count (root is exempt from RLIMIT_NPROC; GEM_SANDBOX_STRICT=1 adds a pids cgroup)")
		case pidsCgroup(l.Processes) == nil:
			r.Processes = true
		default:
			r.Missing = append(r.Missing, "process count (root is exempt from RLIMIT_NPROC, and no pids cgroup could be made)")
		}
	}
	return nil
}
