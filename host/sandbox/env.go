// Package sandbox starts subprocesses — their environment (an allowlist), how they start
// (a session of their own that dies with gem, or gem run's foreground child) and what they
// may do — as intent → plan → apply:
//
//   - Intent (plan.go): read and write roots, toolchains, the workspace capability (with
//     git's), the network, protected and frozen folders, overlays, limits, strict; IntentOf
//     takes it from a Policy (ForExtension, host/commands' Isolation).
//
//   - Facts: root, user namespaces, Landlock ABI, seccomp and its user notification, Yama,
//     architecture, the helper; probed once per process (ProbeFacts, facts_linux.go only).
//
//   - MakePlan(Intent, Facts), pure, returns the Plan: the launch, namespaces, the view's
//     mounts, the Landlock ruleset, the seccomp filter set, capabilities, limits, and for
//     each line of the intent what enforces it or why nothing does; strict refuses a plan
//     missing a hard line (testdata/plans; `gem sandbox explain`, gem doctor).
//
//   - Appliers: Command, ExecInPlace and Prestart make the plan once and send its Steps to
//     the helper (`gem __sandbox-exec`, helper by identity, the program's environment by a
//     descriptor), which applies them one by one deciding nothing (apply_linux.go,
//     testdata/steps); a step that fails is a *StepError, taken over only by a fallback the
//     step carries (none under strict).
//
// What each mechanism enforces:
//
//	environment filter    the allowlist of variables (secrets and hijackers dropped)
//	namespaces            user (not root), mount, PID, IPC: no other process; all end together
//	network namespace     no network without the grant (UDP too)
//	private view          /tmp, /run, /var/lib, /nix, /mnt, the homes… emptied but for grants;
//	                      everything not a write root read-only (chmod, chown, xattr,
//	                      file flags: EROFS);
//	                      protected folders and the workspace's top-level names read-only
//	Landlock              what is read and written; TCP; signals, abstract sockets
//	seccomp filter        no TIOCSTI; the closed surface (namespaces, mount API, io_uring,
//	                      ptrace, set-uid bits, the kernel keyring, other ABIs); socket
//	                      families; UDP; without namespaces, file flags
//	guard                 the workspace's protected names (IsProtected; git's: gitdir.go),
//	                      on a thread held to the program's own Landlock rules: it only refuses
//	socket judge          unix sockets beneath the write roots only; without namespaces,
//	                      mode, owner and attribute changes outside them
//	capabilities dropped  none left, root's included
//	rlimits, pids cgroup  CPU, files, address space, processes (root: cgroup under strict)
//
// Chosen where the spec is silent (docs/sandbox.md has the rest, and who refuses which
// attack): the workspace capability comes from the manifest's sandbox.write naming
// ${workspacePath}, an MCP server handed ${workspacePath}, or `gem ext grant --workspace`; the
// user's own hooks, !{…} shells and settings servers have it. TMPDIR is the extension's own
// temp folder, its state in $GEM_HOME/data/<name>; launcher caches it writes are overlays of
// its own. The switches GEM_SANDBOX=off, GEM_SANDBOX_STRICT=1, GEM_SANDBOX_NAMESPACES=off and
// GEM_SANDBOX_HELPER are read from the process environment (internal/config), like GODEBUG.
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
