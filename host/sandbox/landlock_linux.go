package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is used through golang.org/x/sys/unix on one locked OS thread, the thread that
// then calls execve: a Landlock domain belongs to the thread that restricts itself and is
// inherited across execve. (go-landlock restricts every thread of the process through
// libpsx, which gem does not need: the restricted thread is the one that becomes the
// target program.)

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

// applyLandlock restricts the calling thread with the plan's ruleset ll (StepLandlock): the
// rights of ll.ABI, TCP and scoping as ll says, the write roots the user agreed to (ids)
// opened without following links. It returns the ruleset, which the caller closes.
func applyLandlock(ll Landlock, ids, readIDs map[string]string) (ruleset int, err error) {
	attr := rulesetAttr{handledFS: fsRights(ll.ABI)}
	size := unsafe.Sizeof(attr.handledFS)
	if ll.ABI >= 4 {
		size += unsafe.Sizeof(attr.handledNet)
		if ll.TCP {
			attr.handledNet = netTCP
		}
	}
	if ll.ABI >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		if ll.Scoped {
			attr.scoped = scopeV6
		}
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset (ABI %d): %w", ll.ABI, e)
	}
	ruleset = int(fd)
	defer func() {
		if err != nil {
			unix.Close(ruleset)
			ruleset = -1
		}
	}()
	for _, path := range ll.Read {
		if id := readIDs[path]; id != "" {
			// As a write root below: a read root agreed to and replaced by a link (to
			// ~/.ssh) after gem's check is refused, not followed.
			if err := addVerifiedRoot(ruleset, path, id, fsRead&attr.handledFS, true); err != nil {
				return ruleset, err
			}
			continue
		}
		if err := addPath(ruleset, path, fsRead&attr.handledFS); err != nil {
			return ruleset, err
		}
	}
	for _, path := range ll.Write {
		rights := attr.handledFS
		if ll.SharedNoSocket && slices.Contains(SystemWrite, path) {
			// The machine's own /tmp, /var/tmp and /dev/shm (no private ones without
			// namespaces): no socket made there, where the user's tools look for theirs (a
			// tmux server's, an agent's); the program's own are made in its own folders. Nor
			// is anything moved or linked out of them into another folder (REFER): an agent's
			// socket moved into the program's own folder would be its to reach.
			rights &^= unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_REFER
		}
		if id := ids[path]; id != "" {
			// The root the user agreed to, opened without following links and compared with
			// the identity recorded then: the rule holds that descriptor's folder, whatever
			// lies at the path a moment later.
			if err := addVerifiedRoot(ruleset, path, id, rights, false); err != nil {
				return ruleset, err
			}
			continue
		}
		if err := addPath(ruleset, path, rights); err != nil {
			return ruleset, err
		}
	}
	if e := restrictSelf(ruleset); e != nil {
		return ruleset, fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return ruleset, nil
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
	if errors.Is(err, errRootAbsent) {
		return nil // absent at the check and now: nothing to grant
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return addRule(ruleset, fd, &st, path, rights)
}

// openVerified opens the root path (O_PATH) without following any link on the way (openat2,
// RESOLVE_NO_SYMLINKS; with a link on the way and an id, as it resolves), and, when id is not
// "", only if it is still the file id ("dev:ino", recorded when the user agreed, or found by
// gem's check at this start for a path in the workspace): else a *WriteRootError (Read: a
// read root). A root gem found absent (RootAbsent) and still absent is errRootAbsent.
func openVerified(path, id string, read bool) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if id == RootAbsent && errors.Is(err, unix.ENOENT) {
		return -1, st, errRootAbsent
	}
	if errors.Is(err, unix.ELOOP) && id != "" {
		// A path in the workspace as the workspace is named (a link on the way, such as the
		// folder the user entered the project by): opened as it resolves, it still must be
		// the file id, which a swapped link's target is not.
		fd, err = unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	}
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

// errRootAbsent: a root absent at gem's check (RootAbsent) is absent still.
var errRootAbsent = errors.New("absent")

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

// setLimits sets the rlimits of l (0: left as they are), never above the hard limits the
// process has.
func setLimits(l Limits) error {
	set := func(resource int, v uint64, name string) error {
		if v == 0 {
			return nil
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(resource, &cur); err != nil {
			return fmt.Errorf("%s limit: %w", name, err)
		}
		lim := unix.Rlimit{Cur: min(v, cur.Max), Max: min(v, cur.Max)}
		if resource == unix.RLIMIT_CPU && lim.Max < unix.RLIM_INFINITY-5 {
			lim.Max += 5 // SIGXCPU at the soft limit, SIGKILL 5 s later
			lim.Max = min(lim.Max, cur.Max)
		}
		if err := unix.Setrlimit(resource, &lim); err != nil {
			return fmt.Errorf("%s limit: %w", name, err)
		}
		return nil
	}
	// Root is exempt from RLIMIT_NPROC: the plan adds a pids cgroup under a strict policy
	// (StepPidsCgroup), as moving a process into a cgroup v1 waits for an RCU grace period
	// (+8.5 ms on a sandboxed plugin's start here: GEM_SANDBOX_STRICT=1
	// BenchmarkColdStartSandboxed, in scripts/bench.sh).
	return errors.Join(set(unix.RLIMIT_CPU, l.CPUSeconds, "CPU"), set(unix.RLIMIT_NOFILE, l.OpenFiles, "open files"),
		set(unix.RLIMIT_AS, l.AddressSpace, "address space"), set(unix.RLIMIT_NPROC, l.Processes, "processes"))
}
