package payload

// Container images: an MCP server started with `docker run … image[:tag]` (or podman's, as
// gem mcp install writes for the MCP registry's oci packages) fetches that image when it
// starts. gem pins it to the digest the tag names at install (the image index's, so every
// platform's image is covered), resolved with the user's Docker or Podman credentials, and
// the launcher is given image:tag@sha256:…, which docker and podman pull by digest, never
// what the tag names that day. An image given by digest is pinned as it is, with no network.

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gemhost/gem/registry/oci"
)

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

// imageRef is the registry reference of a docker image name: Docker Hub's when the first
// component names no host (library/ for official images), as docker reads it.
func imageRef(name, tag string) (oci.Ref, error) {
	host, rest, ok := strings.Cut(name, "/")
	if !ok || (!strings.ContainsAny(host, ".:") && host != "localhost") {
		host, rest = "docker.io", name
		if !strings.Contains(rest, "/") {
			rest = "library/" + rest
		}
	}
	return oci.ParseRef(oci.Scheme + host + "/" + rest + ":" + tag)
}

// ResolveImage asks the image's registry which digest its tag names now (the user's Docker,
// then Podman, credentials; HOME and their variables from environ).
func ResolveImage(ctx context.Context, environ []string, pkg Package) (Resolved, error) {
	if pkg.Digest != "" {
		return Resolved{Version: pkg.Range, SHA256: pkg.Digest}, nil
	}
	ref, err := imageRef(pkg.Name, pkg.Range)
	if err != nil {
		return Resolved{}, err
	}
	getenv := func(k string) string {
		for _, kv := range slices.Backward(environ) {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	c := &oci.Client{HTTP: &http.Client{Transport: http.DefaultTransport}, Home: getenv("HOME"), Getenv: getenv}
	digest, err := c.Resolve(ctx, ref)
	if err != nil {
		return Resolved{}, err
	}
	hex, ok := strings.CutPrefix(digest, "sha256:")
	if !ok {
		return Resolved{}, fmt.Errorf("%s names %s, not a sha256 digest", ref, digest)
	}
	return Resolved{Version: pkg.Range, SHA256: hex}, nil
}

// pinImage is args with the image at digest: image:tag@sha256:hex.
func pinImage(args []string, pkg Package, tag, digest string) []string {
	args[pkg.Index] = pkg.Name + ":" + tag + "@sha256:" + digest
	return args
}
