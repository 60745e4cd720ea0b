package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/pathx"
)

// The second layer (applied before Landlock, in the helper): gem starts the helper in new
// user, mount, PID and IPC namespaces (and a network namespace when the network is not
// granted), the helper builds the program's view of the filesystem (buildView) and then
// restricts and execs as before. The program is PID 1 of its PID namespace: when it ends,
// everything it started ends with it, and its /proc shows no other process.

// resolveMounts are plan's mounts as the helper makes them, worked out in gem (the helper
// decides nothing): what an emptied folder keeps is named by its real path too — a path
// granted through a link (a project in /work, a link into the home; a home under /home ->
// /usr/home) is bound back where the folder it names really is, which the view may hide
// (the system's own paths are left as they are: resolving them all costs more than the rest
// of the view) —, and the protected entries at the top of a writable workspace are listed:
// of its .git folder, which is git's to write (gitdir.go), only what git obeys, where the
// guard judges the rest.
func resolveMounts(plan Plan) []Mount {
	mounts := slices.Clone(plan.Mounts)
	for _, k := range plan.Keep {
		if slices.Contains(SystemRead, k) || slices.Contains(SystemWrite, k) {
			continue
		}
		if r, err := filepath.EvalSymlinks(k); err == nil && r != k {
			for i := range mounts {
				mounts[i].keep(r)
			}
		}
	}
	in := plan.Intent
	top := in.Workspace + "/" + protectedAtTop
	i := slices.IndexFunc(mounts, func(m Mount) bool { return m.Op == "read-only" && m.Path == top })
	if i < 0 {
		return mounts
	}
	var entries []Mount
	list, _ := os.ReadDir(in.Workspace)
	for _, e := range list {
		path := filepath.Join(in.Workspace, e.Name())
		switch {
		case e.Name() == ".git" && e.IsDir() && plan.Seccomp.Guard && plan.Facts.Supervisor():
			for _, g := range gitClosed(path) {
				entries = append(entries, Mount{Op: "read-only", Path: g})
			}
		case isProtectedName(e.Name()):
			entries = append(entries, Mount{Op: "read-only", Path: path})
		}
	}
	return slices.Concat(mounts[:i], entries, mounts[i+1:])
}

// gitClosedNames are the entries of a repository's folder that git obeys (GitRule closes
// them) and that the view makes read-only where they exist; in a submodule's or worktree's
// repository (modules/…, worktrees/…) the same names at any depth gitClosedDepth allows.
var gitClosedNames = []string{"config", "config.worktree", "commondir", "gitdir", "hooks", "info/attributes",
	"objects/info/alternates", "objects/info/http-alternates", "rebase-merge/strategy", "sequencer/opts"}

const gitClosedDepth = 4

// gitClosed lists what exists of gitClosedNames in the repository's folder gitDir.
func gitClosed(gitDir string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		for _, name := range gitClosedNames {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				out = append(out, filepath.Join(dir, name))
			}
		}
		if depth == gitClosedDepth {
			return
		}
		for _, nested := range []string{"modules", "worktrees"} {
			entries, _ := os.ReadDir(filepath.Join(dir, nested))
			for _, e := range entries {
				if e.IsDir() {
					walkNested(filepath.Join(dir, nested, e.Name()), depth+1, walk)
				}
			}
		}
	}
	walk(gitDir, 0)
	return out
}

// walkNested walks a submodule's repository, or the folders of a name with slashes on the
// way to one (modules/a/b: a folder without HEAD holds more).
func walkNested(dir string, depth int, walk func(string, int)) {
	if _, err := os.Lstat(filepath.Join(dir, "HEAD")); err == nil || depth >= gitClosedDepth {
		walk(dir, depth)
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			walkNested(filepath.Join(dir, e.Name()), depth+1, walk)
		}
	}
}

// namespaceAttrs sets the clone flags that start the helper in namespaces of its own (a
// network namespace too with netNS). With userNS (the plan's: a user other than root) that
// includes a user namespace mapping the user's own uid and gid (so files keep their owners
// and the program gains nothing), and the helper keeps CAP_SYS_ADMIN and CAP_SETPCAP of that
// namespace across its execve (ambient) to build the view and then drop every capability
// before the program runs. CAP_DAC_OVERRIDE is kept too: overlayfs makes its work folder
// with mode 0 and needs it to mount an overlay (Policy.Overlays); in the user namespace it
// covers only the user's own files, which the user may chmod anyway. Root makes these
// namespaces without a user namespace: with one, Go starts the child with a full fork of
// gem-engine (a sandboxed plugin's start went from 1.7× to 1.4× of a plain fork/exec,
// BenchmarkColdStartSandboxed).
func namespaceAttrs(a *syscall.SysProcAttr, userNS, netNS bool) {
	a.Cloneflags = unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC
	if netNS {
		a.Cloneflags |= unix.CLONE_NEWNET
	}
	if !userNS {
		return
	}
	a.Cloneflags |= unix.CLONE_NEWUSER
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_DAC_OVERRIDE}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// buildView makes the program's filesystem view, the mounts of s in order, in the helper's
// new mount namespace, before Landlock. The overlays' folders are opened first (their upper
// folders are in gem's home, which the view may empty). It returns the folders it made
// writable (the overlays mounted); a mount that fails fails the view, but an overlay where
// s carries a fallback (returned in failed: its folder stays read-only).
func buildView(s Step) (writable []string, failed []error, err error) {
	if os.Getpid() != 1 {
		// Not the first process of a PID namespace gem made, so maybe not in a mount
		// namespace of its own either: mounting here could change the whole machine's view.
		return nil, nil, errors.New("the helper is not in namespaces of its own")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, nil, fmt.Errorf("making its mounts private: %w", err)
	}
	cwd, _ := os.Getwd()
	overlay := func(m Mount, err error) error {
		err = fmt.Errorf("an overlay on %s: %w", m.Path, err)
		if s.Fallback == "" {
			return err
		}
		failed = append(failed, err)
		return nil
	}
	opened := map[int][]int{}
	for i, m := range s.Mounts {
		if m.Op != "overlay" {
			continue
		}
		fds, err := openOverlay(m)
		if err != nil {
			if err := overlay(m, err); err != nil {
				return nil, failed, err
			}
			continue
		}
		opened[i] = fds
		defer closeAll(fds)
	}
	for i, m := range s.Mounts {
		var err error
		switch m.Op {
		case "empty":
			err = emptyDir(filepath.Clean(m.Path), m.Keep)
		case "keep": // granted whole: left as it is
		case "mask":
			err = mask(m.Path)
		case "rebind":
			if err = unix.Mount(m.Path, m.Path, "", unix.MS_BIND|unix.MS_REC, ""); errors.Is(err, unix.ENOENT) {
				err = nil
			}
		case "read-only":
			err = readOnly(m.Path)
		case "overlay":
			if fds := opened[i]; fds != nil {
				if e := mountOverlay(m.Path, fds, s.UserNamespace); e != nil {
					err = overlay(m, e)
				} else {
					writable = append(writable, m.Path)
				}
			}
		case "proc":
			err = unix.Mount("proc", m.Path, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
		default:
			err = errors.New("not a mount this helper knows")
		}
		if err != nil {
			return nil, failed, fmt.Errorf("%s %s: %w", m.Op, m.Path, err)
		}
	}
	// The same path, now seen through the new mounts; where the view has no such folder,
	// the root: the old working folder, hidden under a mount now, must not stay reachable
	// by relative paths (Landlock has no rule for connecting to a socket there).
	if cwd == "" || os.Chdir(cwd) != nil {
		os.Chdir("/")
	}
	return writable, failed, nil
}

// mask hides path: a file behind /dev/null, a folder ("…/") behind an empty read-only one;
// absent, nothing.
func mask(path string) error {
	if dir, ok := strings.CutSuffix(path, "/"); ok {
		if st, err := os.Lstat(dir); err == nil && st.IsDir() {
			return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, "size=4k,mode=0500")
		}
		return nil
	}
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		return unix.Mount("/dev/null", path, "", unix.MS_BIND, "")
	}
	return nil
}

// openOverlay opens an overlay's lower, upper and work folders without following links.
func openOverlay(m Mount) ([]int, error) {
	var fds []int
	for _, dir := range []string{m.Path, m.Upper, m.Work} {
		fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			closeAll(fds)
			return nil, err
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// mountOverlay mounts on lower an overlay of the opened folders fds (lower, upper, work):
// its changes go to upper. In a user namespace (userNS) overlayfs keeps its attributes in
// the user's namespace of extended attributes (userxattr).
func mountOverlay(lower string, fds []int, userNS bool) error {
	name := func(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
	opts := "lowerdir=" + name(fds[0]) + ",upperdir=" + name(fds[1]) + ",workdir=" + name(fds[2])
	if userNS {
		opts += ",userxattr"
	}
	return unix.Mount("overlay", lower, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts)
}

// emptyDir mounts an empty tmpfs over dir and binds back the kept paths beneath it (opened
// before, so they are the real ones). A kept path inside another kept path is visible through
// it already and is not bound again; a path that cannot be bound is reported, and the others
// are still bound.
func emptyDir(dir string, keep []string) error {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return nil // absent, or a link (to a folder outside, which stays as it is)
	}
	var under []string
	for _, k := range keep {
		if k == dir {
			return nil // the whole folder is granted: leave it
		}
		if strings.HasPrefix(k, dir+"/") {
			under = append(under, filepath.Clean(k))
		}
	}
	slices.Sort(under) // a parent sorts before what is inside it
	type held struct {
		path string
		fd   int
		dir  bool
	}
	var binds []held
	defer func() {
		for _, b := range binds {
			unix.Close(b.fd)
		}
	}()
	for _, k := range under {
		if slices.ContainsFunc(binds, func(b held) bool { return b.dir && strings.HasPrefix(k, b.path+"/") }) {
			continue // inside a kept folder
		}
		fd, err := unix.Open(k, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // not there: nothing to keep
		}
		var s unix.Stat_t
		unix.Fstat(fd, &s)
		binds = append(binds, held{k, fd, s.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	mode := "0755"
	if dir == "/tmp" || dir == "/var/tmp" || dir == "/dev/shm" {
		mode = "1777"
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode="+mode); err != nil {
		return err
	}
	var errs []error
	for _, b := range binds {
		if b.dir {
			if err := os.MkdirAll(b.path, 0o755); err != nil {
				errs = append(errs, err)
				continue
			}
		} else {
			os.MkdirAll(filepath.Dir(b.path), 0o755)
			// A mount point, opened read-only: the file may be a program running elsewhere.
			f, err := os.OpenFile(b.path, os.O_CREATE|os.O_RDONLY, 0o600)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			f.Close()
		}
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(b.fd), b.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			errs = append(errs, fmt.Errorf("keeping %s: %w", b.path, err))
		}
	}
	return errors.Join(errs...)
}

// readOnlyView makes everything in the program's view read-only but its write roots (and the
// folders bound writable below a read-only one, the view's rebinds; a granted device stays
// read-only, which its writes do not need), each bound onto itself first:
// a mode, owner, time or extended attribute changed outside them fails in the kernel (Landlock
// has no rule for those), and a write root, a mount point now, cannot be renamed, removed or
// replaced (a granted file such as /dev/null included), by the program or by the supervisor
// acting for it. A write root inside a protected folder (a read-only mount of the view: gem's home, an
// extension's code) stays read-only, but for the folders made writable on purpose (an
// overlay, a rebind). Only the mount of each root is writable again, not the mounts below it (the
// workspace's protected entries, another folder's bind). Only in a mount namespace of the
// helper's own, as buildView.
func readOnlyView(writeRoots, protect, writable []string) error {
	if os.Getpid() != 1 {
		return errors.New("the helper is not in namespaces of its own")
	}
	var roots []string
	for _, w := range writeRoots {
		if !slices.ContainsFunc(protect, func(p string) bool { return pathx.Within(p, w) }) {
			roots = append(roots, w) // (a grant inside a protected folder stays read-only)
		}
	}
	roots = append(roots, writable...)
	slices.Sort(roots)
	roots = slices.Compact(roots)
	var bound []string
	for _, w := range roots {
		if w == "" || !filepath.IsAbs(w) {
			continue
		}
		if st, err := os.Stat(w); err == nil && (st.Mode()&(os.ModeDevice|os.ModeCharDevice) != 0 || w == "/dev/pts") {
			// A device (/dev/null, /dev/tty, the terminals in /dev/pts: the machine's) is
			// written through a read-only mount too, and /dev/ptmx finds its terminals beside
			// it: left read-only, so its name, mode and attributes are not the program's to
			// change.
			continue
		}
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
				return fmt.Errorf("a writable %s: %w", w, err)
			}
			continue
		}
		bound = append(bound, w)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return err
	}
	for _, w := range bound {
		// EPERM: a mount the kernel keeps read-only (read-only outside the namespace): it was
		// not writable before either.
		if err := unix.MountSetattr(unix.AT_FDCWD, w, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}); err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("a writable %s: %w", w, err)
		}
	}
	// The working folder again, through the mounts just made (a write root's own).
	if cwd, err := os.Getwd(); err == nil {
		os.Chdir(cwd)
	}
	return nil
}

// readOnly binds path onto itself and makes that mount read-only, keeping the flags the
// kernel locks for mounts seen from a user namespace (nosuid, nodev, noexec).
func readOnly(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return nil // a link can only be replaced by one who may write its folder: the workspace's owner
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(path, &sfs); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if int64(sfs.Flags)&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", path, "", flags, "")
}

// dropCapabilities empties the bounding, ambient and inheritable sets (and so, at execve,
// the permitted and effective ones, root's included).
func dropCapabilities() error {
	last := 40
	if v, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		last, _ = strconv.Atoi(strings.TrimSpace(string(v)))
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}
