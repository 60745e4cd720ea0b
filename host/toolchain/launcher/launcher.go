// Package launcher reads what an MCP server's package launcher fetches when it starts — the
// package of an npx or uvx command line, the image of a docker/podman run one — and pins
// that command line to what gem.lock records (name@version, image:tag@sha256:…), running an
// npm payload from where a bundle or a mirror installed it. It is what starting a server
// needs, offline and without the network code that resolves and carries payloads
// (host/toolchain/payload, which builds on it): the agent, and so the SDK, links this only.
package launcher

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gemhost/gem/registry/lockfile"
)

// Package is what a package launcher's command line fetches when it starts: npx's package
// (the first argument that is not a flag, or --package's value), uvx's (the first argument
// that is not a flag, or --from's value).
type Package struct {
	Type     string // "npm" or "pypi"
	Name     string // @scope/name; a PyPI project's name as written
	Range    string // the version or range asked for ("latest" when none)
	Index    int    // the argument that names it
	Registry string // --registry's (npx) or --index-url's / --default-index's (uvx) value
	Extras   string // a PyPI requirement's extras, "[a,b]"
	From     bool   // uvx: named by --from (pinned as name==version, else name@version)
	Op       string // uvx: how the version was written ("@" or "=="), kept when pinned
	Digest   string // an image already given by digest (sha256 hex)
}

// Spec is how the package is asked for: name@range.
func (p Package) Spec() string { return p.Name + "@" + p.Range }

// npxValueFlags are npx/npm exec flags that take a value (the next argument).
var npxValueFlags = []string{"--registry", "--cache", "--userconfig", "--prefix", "-c", "--call", "--workspace", "-w", "--node-options"}

// PackageOf finds the package a command line fetches (ok false: it fetches none gem pins:
// not npx, uvx or docker/podman run, or the package is a local path, a URL or a git
// reference).
func PackageOf(command string, args []string) (Package, bool) {
	switch filepath.Base(command) {
	case "uvx":
		return uvxPackageOf(args)
	case "docker", "podman":
		return imagePackageOf(args)
	case "npx":
	default:
		return Package{}, false
	}
	pkg := Package{Type: "npm", Index: -1}
	first := launcherArgs(args, append([]string{"--package", "-p"}, npxValueFlags...), func(name, value string, at int) {
		switch {
		case (name == "--package" || name == "-p") && pkg.Index < 0:
			pkg.Index, pkg.Name = at, value
		case name == "--registry":
			pkg.Registry = value
		}
	})
	if pkg.Index < 0 && first >= 0 {
		pkg.Index, pkg.Name = first, args[first]
	}
	if pkg.Index < 0 {
		return Package{}, false
	}
	name, rng := splitNPMSpec(pkg.Name)
	if name == "" || strings.ContainsAny(name, ":\\") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") ||
		strings.Count(name, "/") > 1 || (strings.Contains(name, "/") && !strings.HasPrefix(name, "@")) {
		return Package{}, false // a path, a URL, a git or GitHub reference: not a registry package
	}
	pkg.Name, pkg.Range = name, rng
	if pkg.Range == "" {
		pkg.Range = "latest"
	}
	return pkg, true
}

// launcherArgs walks a launcher's flags up to its first argument that is not one (returned;
// -1: none): each flag goes to flag with its value — after "=", or the next argument for
// the flags in valueFlags — and the index of the argument that holds it.
func launcherArgs(args, valueFlags []string, flag func(name, value string, at int)) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return i
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue && slices.Contains(valueFlags, name) && i+1 < len(args) {
			i++
			value = args[i]
		}
		flag(name, value, i)
	}
	return -1
}

// splitNPMSpec splits name@range ("@scope/name@1.2" too).
func splitNPMSpec(s string) (name, rng string) {
	at := strings.LastIndex(s, "@")
	if at <= 0 {
		return s, ""
	}
	return s[:at], s[at+1:]
}

// PinArgs is args with the package at its pinned version (name@version): what the launcher is
// given, so a server never starts @latest of whatever the registry serves that day.
func PinArgs(args []string, pkg Package, version string) []string {
	out := slices.Clone(args)
	if pkg.Type == "pypi" {
		return pinUVX(out, pkg, version)
	}
	a := out[pkg.Index]
	if strings.HasPrefix(a, "--package=") || strings.HasPrefix(a, "-p=") {
		flag, _, _ := strings.Cut(a, "=")
		out[pkg.Index] = flag + "=" + pkg.Name + "@" + version
		return out
	}
	out[pkg.Index] = pkg.Name + "@" + version
	return out
}

// Pin is args with the package at what pin records: name@version (npm, PyPI), or an image
// at its digest.
func Pin(args []string, pkg Package, pin lockfile.Payload) []string {
	if pkg.Type == "oci" {
		if pin.SHA256 == "" {
			return args
		}
		return pinImage(slices.Clone(args), pkg, pin.Version, pin.SHA256)
	}
	return PinArgs(args, pkg, pin.Version)
}

// uvxValueFlags are uvx (uv tool run) flags that take a value (the next argument).
var uvxValueFlags = []string{"--with", "--with-editable", "--with-requirements", "--python", "-p", "--extra-index-url",
	"--index", "--find-links", "-f", "--index-strategy", "--keyring-provider", "--resolution", "--prerelease",
	"--exclude-newer", "--link-mode", "--cache-dir", "--directory", "--project", "--config-file", "--color",
	"--python-platform", "--constraints", "-c", "--overrides", "--build-constraints", "-b", "--env-file", "--refresh-package",
	"--reinstall-package", "--no-binary-package", "--no-build-package", "--upgrade-package", "-P", "--config-setting", "-C"}

// pep508 is a requirement uvx can be asked for: name[extras] with ==version, @version, or
// nothing (PyPI names: letters, digits, ., _, -).
var pep508 = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9._,-]*\])?(?:(==|@)([A-Za-z0-9.!+_-]+))?$`)

// uvxPackageOf finds the PyPI package of a uvx command line: --from's requirement, else the
// first argument that is not a flag (the tool, perhaps tool@version). Git, URL and path
// requirements, and ranges, are not pinned (ok false).
func uvxPackageOf(args []string) (Package, bool) {
	pkg := Package{Type: "pypi", Index: -1}
	first := launcherArgs(args, append([]string{"--from", "--index-url", "-i", "--default-index"}, uvxValueFlags...), func(name, value string, at int) {
		switch name {
		case "--from":
			pkg.Index, pkg.Name, pkg.From = at, value, true
		case "--index-url", "-i", "--default-index":
			pkg.Registry = value
		}
	})
	if pkg.Index < 0 && first >= 0 {
		pkg.Index, pkg.Name = first, args[first]
	}
	if pkg.Index < 0 {
		return Package{}, false
	}
	m := pep508.FindStringSubmatch(pkg.Name)
	if m == nil || (m[3] == "@" && pkg.From) {
		return Package{}, false // a URL, a path, git+…, a range: not a version gem can pin
	}
	pkg.Name, pkg.Extras, pkg.Range, pkg.Op = m[1], m[2], m[4], m[3]
	if pkg.Range == "" {
		pkg.Range = "latest"
	}
	return pkg, true
}

// pinUVX gives uvx the exact version: tool@version, or name==version (--from's, or a tool
// written so).
func pinUVX(args []string, pkg Package, version string) []string {
	spec := pkg.Name + pkg.Extras + "@" + version
	if pkg.From || pkg.Op == "==" {
		spec = pkg.Name + pkg.Extras + "==" + version
	}
	if a := args[pkg.Index]; strings.HasPrefix(a, "--from=") {
		spec = "--from=" + spec
	}
	args[pkg.Index] = spec
	return args
}

// dockerRunValueFlags are docker (and podman) run flags that take a value (the next
// argument when not given with "=").
var dockerRunValueFlags = []string{
	"-a", "--attach", "--add-host", "--annotation", "--blkio-weight", "--blkio-weight-device", "--cap-add", "--cap-drop",
	"--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime",
	"-c", "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--detach-keys", "--device", "--device-cgroup-rule",
	"--device-read-bps", "--device-read-iops", "--device-write-bps", "--device-write-iops", "--dns", "--dns-option",
	"--dns-search", "--domainname", "--entrypoint", "-e", "--env", "--env-file", "--expose", "--gpus", "--group-add",
	"--health-cmd", "--health-interval", "--health-retries", "--health-start-interval", "--health-start-period",
	"--health-timeout", "-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--kernel-memory", "-l", "--label",
	"--label-file", "--link", "--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "-m", "--memory",
	"--memory-reservation", "--memory-swap", "--memory-swappiness", "--mount", "--name", "--network", "--net",
	"--network-alias", "--net-alias", "--oom-score-adj", "--pid", "--pids-limit", "--platform", "-p", "--publish",
	"--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout",
	"--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "-u", "--user", "--userns", "--uts", "-v", "--volume",
	"--volume-driver", "--volumes-from", "-w", "--workdir",
	// podman's own
	"--arch", "--os", "--variant", "--authfile", "--cert-dir", "--creds", "--decryption-key", "--env-merge",
	"--secret", "--pod", "--requires", "--hooks-dir", "--log-level", "--sdnotify", "--timeout", "--uidmap", "--gidmap",
}

// imageRE is an image reference docker pulls: [registry[:port]/]path[:tag][@sha256:hex].
var imageRE = regexp.MustCompile(`^((?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-]+[a-z0-9]+)*(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*)(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?(?:@sha256:([a-f0-9]{64}))?$`)

// imagePackageOf finds the image of a docker/podman run command line (ok false: not run, or
// no image gem can read).
func imagePackageOf(args []string) (Package, bool) {
	i := 0
	if len(args) > 1 && args[0] == "container" {
		i = 1
	}
	if len(args) <= i || args[i] != "run" {
		return Package{}, false
	}
	rest := args[i+1:]
	first := launcherArgs(rest, dockerRunValueFlags, func(string, string, int) {})
	if first < 0 {
		return Package{}, false
	}
	m := imageRE.FindStringSubmatch(rest[first])
	if m == nil {
		return Package{}, false
	}
	pkg := Package{Type: "oci", Name: m[1], Range: m[2], Index: i + 1 + first, Digest: m[3]}
	if pkg.Range == "" {
		pkg.Range = "latest"
	}
	return pkg, true
}

// pinImage is args with the image at digest: image:tag@sha256:hex.
func pinImage(args []string, pkg Package, tag, digest string) []string {
	args[pkg.Index] = pkg.Name + ":" + tag + "@sha256:" + digest
	return args
}

// NPMDir is where the npm payload p is installed under root ($GEM_HOME/payloads).
func NPMDir(root string, p lockfile.Payload) string {
	sum := sha256.Sum256([]byte(p.Integrity))
	return filepath.Join(root, "npm", strings.ReplaceAll(p.Name, "/", "+")+"@"+p.Version+"-"+hex.EncodeToString(sum[:6]))
}

// NPMInstalled is p's folder under root when it is installed there (payload.InstallNPM).
func NPMInstalled(root string, p lockfile.Payload) (string, bool) {
	if p.Type != "npm" || p.Integrity == "" || root == "" {
		return "", false
	}
	dir := NPMDir(root, p)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(p.Name), "package.json")); err != nil {
		return "", false
	}
	return dir, true
}

// PrefixArgs is npx's args running its package from the folder dir (NPMInstalled): npm
// exec finds the pinned version there and asks no registry. (npm does not put that folder's
// node_modules/.bin on the PATH of what it runs: the launcher must.)
func PrefixArgs(args []string, dir string) []string {
	return append([]string{"--prefix=" + dir}, args...)
}
