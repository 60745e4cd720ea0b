package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// machineFacts are probed once per gem process: what the kernel offers does not change
// while gem runs.
var machineFacts = sync.OnceValue(func() Facts {
	ns, why := Namespaces()
	f := Facts{OS: runtime.GOOS, Arch: runtime.GOARCH, Root: os.Geteuid() == 0, Namespaces: ns, NamespacesWhy: why,
		LandlockABI: LandlockABI(), Seccomp: seccompUsable(), Yama: readSysctl(yamaScope)}
	f.SeccompNotify = guardArch && f.Seccomp
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
