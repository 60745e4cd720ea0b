// Package sandbox owns starting subprocesses (spec/sandbox.md): the environment they get
// (an allowlist, with secrets and execution hijackers dropped), how they are started (exec
// in place for `gem run`, or a child in its own process group that dies with gem), and
// what they may do (Policy): Landlock filesystem rules (read the system, the extension and
// the workspace; write the workspace, the extension's data folder, its temp folder, /tmp and
// the terminal devices; plus the manifest's sandbox.read/write), TCP bind/connect denied by
// Landlock and, as root, for children, a network namespace of its own (which also cuts UDP) unless
// sandbox.network, Landlock scoping of signals and abstract sockets, no_new_privs, and
// rlimits (CPU, open files, address space, process count where not root).
//
// Restrictions are applied by the process that becomes the program, never by gem: `gem
// run` restricts one locked thread and execs from it (a failed exec leaves gem unchanged,
// the thread is discarded); plugins and MCP servers start through the re-exec helper
// `gem __sandbox-exec` (gem's light front, ~2 ms). Missing kernel features are reported by
// Capabilities (gem doctor) and refused with GEM_SANDBOX_STRICT=1; GEM_SANDBOX=off turns the
// sandbox off.
//
// Chosen where the spec is silent: /tmp stays writable (tools that ignore TMPDIR, such as
// ed, need it; a private /tmp in a mount namespace would hide workspaces and extensions that
// live under /tmp), and TMPDIR points at the extension's own temp folder; each extension
// gets $GEM_HOME/data/<name> (GEM_EXTENSION_DATA) to keep state in.
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
