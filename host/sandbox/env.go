// Package sandbox owns starting subprocesses: the environment they get
// (an allowlist, with secrets and execution hijackers dropped), how they are started (exec
// in place for `gem run`, or a child in a session of its own that dies with gem), and what
// they may do (Policy), in layers:
//   - namespaces (namespace_linux.go): gem starts the helper in new mount, PID and IPC
//     namespaces (plus a user namespace when not root, and a network namespace when the
//     network is not granted); the helper, PID 1 there, builds the program's view
//     (buildView): empty /tmp, /var/tmp, /run and /root but for the granted paths bound
//     back, /etc/shadow and friends masked, the workspace's agent and VCS configuration
//     (ProtectedNames) read-only, a fresh /proc;
//   - Landlock (landlock_linux.go): read the system, the extension and the workspace; write
//     the workspace, the extension's data and temp folders, the terminal devices, plus the
//     manifest's sandbox.read/write; TCP bind/connect denied unless sandbox.network; signals
//     and abstract sockets scoped;
//   - seccomp (seccomp_linux.go): ioctl TIOCSTI/TIOCLINUX refused;
//   - no_new_privs, every capability dropped, rlimits (CPU, open files, address space,
//     process count; for root a pids cgroup under GEM_SANDBOX_STRICT=1).
//
// Restrictions are applied by the process that becomes the program, never by gem: `gem
// run` restricts one locked thread and execs from it (Landlock, seccomp, limits; no
// namespaces: a multithreaded Go process cannot enter new ones, and a helper would cost its
// start-up budget); plugins, MCP servers, hooks and !{…} shells start through the re-exec
// helper `gem __sandbox-exec` (gem's light front). Missing kernel features are reported by
// Capabilities (gem doctor) and refused with GEM_SANDBOX_STRICT=1; GEM_SANDBOX=off turns the
// sandbox off, GEM_SANDBOX_NAMESPACES=off the namespace layer alone.
//
// Chosen where the spec is silent: inside .git only hooks/, config and info/ are read-only
// (commits must keep working); a path the policy grants under an emptied folder is bound
// back (so a workspace or an extension under /tmp keeps working); TMPDIR stays the
// extension's own temp folder (bound into its private /tmp); each extension gets
// $GEM_HOME/data/<name> (GEM_EXTENSION_DATA) to keep state in. The program is PID 1 of its
// namespace: it gets only the signals it handles from gem (gem ends it with SIGKILL after
// the grace), and orphans it does not reap stay zombies until it ends.
package sandbox

import (
	"strings"

	"github.com/gemhost/gem/manifest"
)

// Allowed reports whether a variable is inherited by default (manifest.InheritedByDefault).
func Allowed(name string) bool { return manifest.InheritedByDefault(name) }

// Env filters environ (KEY=value) to what a subprocess may see: the allowlist plus the
// names in extra (the manifest's sandbox.env), which may name secrets or hijackers on
// purpose. Then add (settings, declared env, gem's own variables) is appended, later
// entries winning.
func Env(environ []string, extra []string, add ...string) []string {
	out := make([]string, 0, len(environ)/2+len(add))
	seen := map[string]int{}
	put := func(kv string) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			return
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if Allowed(k) || contains(extra, k) {
			put(kv)
		}
	}
	for _, kv := range add {
		put(kv)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
