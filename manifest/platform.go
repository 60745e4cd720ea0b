package manifest

import "runtime"

// Platform is one naming of the host's operating system and architecture. Gemini CLI uses
// Node's names (process.platform, process.arch); Go's are the fallback.
type Platform struct {
	OS   string `json:"platform"`
	Arch string `json:"arch"`
	Rule string `json:"rule"` // "node" or "go"
}

var nodeOS = map[string]string{"windows": "win32"}

var nodeArch = map[string]string{
	"amd64": "x64", "386": "ia32", "arm": "arm", "arm64": "arm64", "ppc64le": "ppc64",
	"s390x": "s390x", "riscv64": "riscv64", "loong64": "loong64", "mips": "mips", "mipsle": "mipsel",
}

// NodeOS returns Node's process.platform for a GOOS.
func NodeOS(goos string) string {
	if n, ok := nodeOS[goos]; ok {
		return n
	}
	return goos
}

// NodeArch returns Node's process.arch for a GOARCH.
func NodeArch(goarch string) string {
	if n, ok := nodeArch[goarch]; ok {
		return n
	}
	return goarch
}

// GoOS returns the GOOS for a platform given in either naming.
func GoOS(name string) string {
	for g, n := range nodeOS {
		if n == name {
			return g
		}
	}
	return name
}

// GoArch returns the GOARCH for an architecture given in either naming.
func GoArch(name string) string {
	for g, n := range nodeArch {
		if n == name && g != n {
			return g
		}
	}
	return name
}

// HostPlatforms returns the names to try for this host, Node's first, then Go's when they
// differ. getenv supplies GEM_PLATFORM and GEM_ARCH, which override detection (in either
// naming); pass nil to ignore the environment.
func HostPlatforms(getenv func(string) string) []Platform {
	goos, goarch := runtime.GOOS, runtime.GOARCH
	if getenv != nil {
		if p := getenv("GEM_PLATFORM"); p != "" {
			goos = GoOS(p)
		}
		if a := getenv("GEM_ARCH"); a != "" {
			goarch = GoArch(a)
		}
	}
	return PlatformsFor(goos, goarch)
}

// PlatformsFor returns the Node naming and, when different, the Go naming of goos/goarch.
func PlatformsFor(goos, goarch string) []Platform {
	node := Platform{OS: NodeOS(goos), Arch: NodeArch(goarch), Rule: "node"}
	out := []Platform{node}
	if node.OS != goos || node.Arch != goarch {
		out = append(out, Platform{OS: goos, Arch: goarch, Rule: "go"})
	}
	return out
}
