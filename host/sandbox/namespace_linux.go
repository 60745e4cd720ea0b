package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/config"
	"github.com/gemhost/gem/internal/pathx"
)

// The second layer (applied before Landlock, in the helper): gem starts the helper in new
// user, mount, PID and IPC namespaces (and a network namespace when the network is not
// granted), the helper builds the program's view of the filesystem (buildView) and then
// restricts and execs as before. The program is PID 1 of its PID namespace: when it ends,
// everything it started ends with it, and its /proc shows no other process.

// View is what the helper builds in the program's mount namespace.
type View struct {
	// Keep are the paths that must stay visible under the folders the view replaces with
	// empty ones (/tmp, /var/tmp, /run, /root): what the policy lets the program read or
	// write there (the workspace, the extension, its private folders).
	Keep []string `json:"keep,omitempty"`
	// Protect are paths inside the writable workspace made read-only (agent and VCS
	// configuration: what the next program, or the user's next git command, would obey).
	Protect []string `json:"protect,omitempty"`
	// Rebind are made mounts of their own before Protect (Policy.Rebind): they stay
	// writable under a read-only folder.
	Rebind []string `json:"rebind,omitempty"`
	// Overlays are mounted (Policy.Overlays).
	Overlays []Overlay `json:"overlays,omitempty"`
	// Private are more folders the program sees empty, as emptied: the user's home. Landlock
	// has no rule for connect(2), so a unix socket anywhere in the program's view is
	// reachable by its path whatever the program may read: an ssh ControlMaster socket in
	// ~/.ssh (a shell on the user's servers), gpg-agent's in ~/.gnupg, a Docker socket in
	// ~/.colima or ~/.docker. The home is hidden as /root is, and what the program was
	// granted there (its extension and data folders, toolchains and caches, the workspace) is
	// bound back: what it can reach in the home is what it was given.
	Private []string `json:"private,omitempty"`
}

// Namespaces reports whether this machine lets gem give programs namespaces of their own
// (user, mount, PID, network): root always can; another user needs unprivileged user
// namespaces (not disabled by kernel.unprivileged_userns_clone, user.max_user_namespaces or
// AppArmor's kernel.apparmor_restrict_unprivileged_userns). GEM_SANDBOX_NAMESPACES=off turns
// the layer off.
func Namespaces() (bool, string) { return namespacesOnce() }

var namespacesOnce = sync.OnceValues(func() (bool, string) {
	if config.Getenv("GEM_SANDBOX_NAMESPACES") == "off" {
		return false, "GEM_SANDBOX_NAMESPACES=off"
	}
	if v := readSysctl("/proc/sys/user/max_user_namespaces"); v == "0" {
		return false, "user.max_user_namespaces is 0"
	}
	if os.Geteuid() == 0 {
		return true, ""
	}
	if readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return false, "kernel.unprivileged_userns_clone is 0"
	}
	if readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" {
		return false, "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)"
	}
	return true, ""
})

func readSysctl(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// viewOf is the view the helper builds for p as plan says (plan.Namespaces): what stays
// visible under the emptied folders (plan.Keep) and by its real path too, the homes hidden,
// and the read-only mounts, among them the protected entries at the workspace's top level.
func viewOf(p Policy, plan Plan) *View {
	v := &View{Keep: slices.Clone(plan.Keep), Private: slices.Clone(plan.Facts.Homes)}
	// What is kept is named by its real path too: a path granted through a link (a project
	// in /work, a link into the home; a home under /home -> /usr/home) must be bound back
	// where the folder it names really is, which the view may hide. The system's own paths
	// are left as they are (resolving them all costs more than the rest of the view).
	for _, k := range slices.Clone(v.Keep) {
		if slices.Contains(SystemRead, k) || slices.Contains(SystemWrite, k) {
			continue
		}
		if r, err := filepath.EvalSymlinks(k); err == nil && r != k {
			v.Keep = append(v.Keep, r)
		}
	}
	v.Protect = append(v.Protect, p.Protect...)
	v.Rebind = append(v.Rebind, p.Rebind...)
	if p.Guard && p.Workspace != "" {
		// Defence in depth beside the guard (guard_linux.go), which decides every write: the
		// protected entries at the workspace's top level are read-only mounts too.
		v.Protect = append(v.Protect, p.Frozen...)
		// The repository's .git folder is git's to write (gitdir.go): only what git obeys in
		// it is a read-only mount, where the guard judges the rest.
		entries, _ := os.ReadDir(p.Workspace)
		for _, e := range entries {
			path := filepath.Join(p.Workspace, e.Name())
			switch {
			case e.Name() == ".git" && e.IsDir() && guardUsable():
				v.Protect = append(v.Protect, gitClosed(path)...)
			case isProtectedName(e.Name()):
				v.Protect = append(v.Protect, path)
			}
		}
	}
	v.Overlays = p.Overlays
	return v
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

// privateHomes are the user's homes as the view hides them: $HOME, and the account's home
// when $HOME names another folder (ssh keeps its ControlMaster sockets in the account's
// home whatever $HOME says). Neither when unset, relative, or the root folder.
func privateHomes() []string {
	var homes []string
	env, _ := config.Home()
	for _, home := range []string{env, config.AccountHome()} {
		if home == "" || !filepath.IsAbs(home) || filepath.Clean(home) == "/" || slices.Contains(homes, filepath.Clean(home)) {
			continue
		}
		homes = append(homes, filepath.Clean(home))
	}
	return homes
}

// namespaceAttrs sets the clone flags that start the helper in namespaces of its own. For a
// user other than root that includes a user namespace mapping the user's own uid and gid (so
// files keep their owners and the program gains nothing), and the helper keeps CAP_SYS_ADMIN
// and CAP_SETPCAP of that namespace across its execve (ambient) to build the view and then
// drop every capability before the program runs. CAP_DAC_OVERRIDE is kept too: overlayfs
// makes its work folder with mode 0 and needs it to mount an overlay (Policy.Overlays); in
// the user namespace it covers only the user's own files, which the user may chmod anyway.
func namespaceAttrs(a *syscall.SysProcAttr, network bool) {
	a.Cloneflags = unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC
	if !network {
		a.Cloneflags |= unix.CLONE_NEWNET
	}
	if os.Geteuid() == 0 {
		// Root makes these namespaces without a user namespace: with one, Go starts the child
		// with a full fork of gem-engine (a sandboxed plugin's start went from 1.7× to 1.4× of
		// a plain fork/exec, BenchmarkColdStartSandboxed); the helper drops every capability
		// before the program runs.
		return
	}
	a.Cloneflags |= unix.CLONE_NEWUSER
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_DAC_OVERRIDE}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// buildView makes the program's filesystem view; the helper calls it in its new mount
// namespace, before Landlock. Every step that fails is returned as missing, not fatal:
// the layers after it still hold.
func buildView(v *View, pidNS bool) (missing, writable []string) {
	if os.Getpid() != 1 {
		// Not the first process of a PID namespace gem made, so maybe not in a mount
		// namespace of its own either: mounting here could change the whole machine's view.
		return []string{"a filesystem view of its own (the helper is not in namespaces of its own)"}, nil
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return []string{"a filesystem view of its own (" + err.Error() + ")"}, nil
	}
	cwd, _ := os.Getwd()
	// The overlays' folders are opened before the view hides any (their upper folders are
	// in gem's home, which the view may empty).
	overlays := make([][]int, len(v.Overlays))
	for i, o := range v.Overlays {
		fds, err := openOverlay(o)
		if err != nil {
			missing = append(missing, fmt.Sprintf("a writable view of %s (%v)", o.Lower, err))
		}
		overlays[i] = fds
		defer closeAll(fds)
	}
	for i, dir := range append(slices.Clone(emptied), v.Private...) {
		if i >= len(emptied) && (!filepath.IsAbs(dir) || filepath.Clean(dir) == "/" || slices.Contains(emptied, dir)) {
			continue // a home that is not one, or is emptied already
		}
		if err := emptyDir(filepath.Clean(dir), v.Keep); err != nil {
			missing = append(missing, fmt.Sprintf("a private %s (%v)", dir, err))
		}
	}
	for _, f := range masked {
		if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() {
			if err := unix.Mount("/dev/null", f, "", unix.MS_BIND, ""); err != nil {
				missing = append(missing, fmt.Sprintf("hiding %s (%v)", f, err))
			}
		}
	}
	for _, d := range maskedDirs {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, "size=4k,mode=0500"); err != nil {
				missing = append(missing, fmt.Sprintf("hiding %s (%v)", d, err))
			}
		}
	}
	for _, p := range v.Rebind {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil && !errors.Is(err, unix.ENOENT) {
			missing = append(missing, fmt.Sprintf("a writable %s (%v)", p, err))
		}
	}
	for _, p := range v.Protect {
		if err := readOnly(p); err != nil {
			missing = append(missing, fmt.Sprintf("read-only %s (%v)", p, err))
		}
	}
	for i, o := range v.Overlays {
		if overlays[i] == nil {
			continue
		}
		if err := mountOverlay(o.Lower, overlays[i]); err != nil {
			missing = append(missing, fmt.Sprintf("a writable view of %s (%v)", o.Lower, err))
			continue
		}
		writable = append(writable, o.Lower)
	}
	if pidNS {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			missing = append(missing, "a /proc of its own ("+err.Error()+")")
		}
	}
	// The same path, now seen through the new mounts; where the view has no such folder,
	// the root: the old working folder, hidden under a mount now, must not stay reachable
	// by relative paths (Landlock has no rule for connecting to a socket there).
	if cwd == "" || os.Chdir(cwd) != nil {
		os.Chdir("/")
	}
	return missing, writable
}

// openOverlay opens an overlay's lower, upper and work folders without following links.
func openOverlay(o Overlay) ([]int, error) {
	var fds []int
	for _, dir := range []string{o.Lower, o.Upper, o.Work} {
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
// its changes go to upper.
func mountOverlay(lower string, fds []int) error {
	name := func(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
	opts := "lowerdir=" + name(fds[0]) + ",upperdir=" + name(fds[1]) + ",workdir=" + name(fds[2])
	if os.Geteuid() != 0 {
		opts += ",userxattr" // overlayfs in a user namespace
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
// folders bound writable below a read-only one, View.Rebind; a granted device stays
// read-only, which its writes do not need), each bound onto itself first:
// a mode, owner, time or extended attribute changed outside them fails in the kernel (Landlock
// has no rule for those), and a write root, a mount point now, cannot be renamed, removed or
// replaced (a granted file such as /dev/null included), by the program or by the supervisor
// acting for it. A write root inside a protected folder (View.Protect: gem's home, an
// extension's code) stays read-only, but for the folders made writable on purpose (an
// overlay, View.Rebind). Only the mount of each root is writable again, not the mounts below it (the
// workspace's protected entries, another folder's bind). Only in a mount namespace of the
// helper's own, as buildView.
func readOnlyView(writeRoots, protect, writable []string) (missing []string) {
	if os.Getpid() != 1 {
		return []string{"a read-only view (the helper is not in namespaces of its own)"}
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
				missing = append(missing, fmt.Sprintf("a writable %s (%v)", w, err))
			}
			continue
		}
		bound = append(bound, w)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return append(missing, "a read-only view ("+err.Error()+")")
	}
	for _, w := range bound {
		// EPERM: a mount the kernel keeps read-only (read-only outside the namespace): it was
		// not writable before either.
		if err := unix.MountSetattr(unix.AT_FDCWD, w, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}); err != nil && !errors.Is(err, unix.EPERM) {
			missing = append(missing, fmt.Sprintf("a writable %s (%v)", w, err))
		}
	}
	// The working folder again, through the mounts just made (a write root's own).
	if cwd, err := os.Getwd(); err == nil {
		os.Chdir(cwd)
	}
	return missing
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
	if v := readSysctl("/proc/sys/kernel/cap_last_cap"); v != "" {
		last, _ = strconv.Atoi(v)
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

// harden applies, in the helper, every layer of p in order: the view (in the namespaces gem
// started it in), the resource limits, no_new_privs and Landlock (Apply), the seccomp filter,
// and, where the helper holds capabilities (its user namespace, or root), dropping them all.
// What cannot be applied is warned about once, or refused under a strict policy. With the
// guard it also returns the seccomp listener the supervisor answers (-1 without) and the
// Landlock ruleset the thread was restricted with (-1 without), which the supervisor holds
// itself to.
func harden(p Policy) (listener, ruleset int, err error) {
	runtime.LockOSThread() // Landlock and seccomp hold for this thread, the one that execs
	listener, ruleset = -1, -1
	defer func() {
		if listener < 0 && ruleset >= 0 {
			unix.Close(ruleset) // no supervisor to hold to it
			ruleset = -1
		}
	}()
	var missing []string
	var readOnlyStep func() []string
	if p.Namespaces && p.View != nil {
		var writable []string
		missing, writable = buildView(p.View, true)
		p.Write = append(p.Write, writable...) // only what is an overlay now: its writes land elsewhere
		if len(writable) > 0 && len(p.WriteIDs) > 0 {
			// an overlay's mount is another file than the folder agreed to, by design
			ids := maps.Clone(p.WriteIDs)
			for _, w := range writable {
				delete(ids, w)
			}
			p.WriteIDs = ids
		}
		// Made after the limits (a pids cgroup is written in /sys) and before Landlock, which
		// forbids mounts.
		writeRoots, protect, writable := slices.Clone(p.Write), p.View.Protect, append(writable, p.View.Rebind...)
		readOnlyStep = func() []string { return readOnlyView(writeRoots, protect, writable) }
	}
	r, ruleset, err := apply(p, readOnlyStep)
	if err != nil {
		return -1, ruleset, err
	}
	missing = append(missing, r.Missing...)
	// Without namespaces the program shares the machine's sockets: a supervisor judges its
	// connects (socket_linux.go), and, with no network, UDP and the like are refused (there
	// is no network namespace to cut them). With them, the view hides /tmp, /run, /var/lib
	// and the home, and the supervisor judges the connects of programs it watches anyway
	// (the guard's) and, under a strict policy, of every program: a socket left in the view
	// (one in the workspace, under /srv) is then refused too, for a helper kept beside each
	// program (≈ 5 ms a start here).
	f := filterSet{guard: p.Guard && guardArch, sockets: (!p.Namespaces || p.Guard || p.Strict) && guardArch,
		noNet: !p.Network && !p.Namespaces && !r.NetworkNamespace, families: !p.Network}
	f.attrs = f.supervised() && !p.Namespaces
	if f.supervised() {
		if listener, err = loadFilter(f); err != nil {
			if f.guard {
				missing = append(missing, "the guard of the workspace's protected names ("+err.Error()+")")
			}
			if f.sockets {
				missing = append(missing, "unix-socket rules ("+err.Error()+")")
			}
			listener = -1
		}
	}
	if listener < 0 {
		if err := denyTerminalInjection(f.noNet, f.families); err != nil {
			missing = append(missing, "the seccomp filter against terminal injection ("+err.Error()+")")
		}
	}
	if p.Namespaces || os.Geteuid() == 0 {
		if err := dropCapabilities(); err != nil {
			missing = append(missing, "dropping capabilities ("+err.Error()+")")
		}
	}
	if p.Strict {
		var hard []string
		for _, m := range missing {
			if !strings.HasPrefix(m, "process count") && !strings.HasPrefix(m, "UDP rules") {
				hard = append(hard, m)
			}
		}
		if len(hard) > 0 {
			if listener >= 0 {
				unix.Close(listener)
			}
			listener = -1
			return -1, ruleset, fmt.Errorf("%w: %s (GEM_SANDBOX_STRICT=1)", ErrNotEnforced, strings.Join(hard, ", "))
		}
	}
	return listener, ruleset, nil
}
