package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/config"
)

// The probes: what the machine offers is asked here alone (the appliers decide nothing:
// TestApplierDecidesNothing).

// machineFacts are probed once per gem process: what the kernel offers does not change
// while gem runs.
var machineFacts = sync.OnceValue(func() Facts {
	ns, why := Namespaces()
	f := Facts{OS: runtime.GOOS, Arch: runtime.GOARCH, Root: os.Geteuid() == 0, Namespaces: ns, NamespacesWhy: why,
		LandlockABI: LandlockABI(), Seccomp: seccompUsable(), Yama: readSysctl(yamaScope)}
	f.SeccompNotify = guardArch && f.Seccomp && seccompNotifyProbe()
	f.YamaTraceChild = childTraceable(f.Yama)
	// Made only where it is used: for root's process count under a strict policy.
	f.PidsCgroup = f.Root && Strict() && cgroupsUsable()
	return f
})

// addPathFacts adds the user's homes (real paths, sorted: a home inside another is hidden
// after it) and the folder in /run that /etc/resolv.conf links into, if it does.
func addPathFacts(f *Facts) {
	for _, home := range privateHomes() {
		if real, err := filepath.EvalSymlinks(home); err == nil && !slices.Contains(f.Homes, real) {
			f.Homes = append(f.Homes, real)
		}
	}
	slices.Sort(f.Homes)
	if target, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && strings.HasPrefix(target, "/run/") {
		f.ResolvDir = filepath.Dir(target)
	}
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
	if !mountSetattrProbe() {
		// The view's read-only step needs it: without it the plan is the one without
		// namespaces (Landlock, seccomp and the supervisor), not a view half made.
		return false, "the kernel has no mount_setattr (Linux 5.12)"
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

// mountSetattrProbe reports whether the kernel has mount_setattr(2): asked of no file
// descriptor, a kernel that has it says EBADF (or EINVAL), one without it ENOSYS.
func mountSetattrProbe() bool {
	err := unix.MountSetattr(-1, "", 0, &unix.MountAttr{})
	return err != unix.ENOSYS
}

func readSysctl(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// LandlockABI is the kernel's Landlock ABI version, 0 when it has none (or it is disabled).
func LandlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// seccompNotifyProbe reports whether the kernel has seccomp user notification (Linux 5.0):
// it answers SECCOMP_GET_NOTIF_SIZES, which came with it.
func seccompNotifyProbe() bool {
	var sizes [3]uint16
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_NOTIF_SIZES, 0, uintptr(unsafe.Pointer(&sizes)))
	return e == 0
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
