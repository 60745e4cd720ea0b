// Package sandbox owns starting subprocesses: their environment (an allowlist, secrets and
// hijackers dropped), how they start (a child in a session of its own that dies with gem,
// or `gem run`'s foreground child) and what they may do, as intent → plan → apply:
//   - Intent (plan.go) is what a program may do: read and write roots, the workspace
//     capability, the network, protected and frozen folders, overlays, limits, strict;
//     IntentOf takes it from a Policy (ForExtension, host/commands' Isolation);
//   - Facts are the machine's (root, user namespaces, Landlock ABI, seccomp and its user
//     notification, Yama, architecture, the helper), probed once per process (ProbeFacts);
//   - MakePlan(Intent, Facts), pure, returns the Plan: the launch, namespaces, network
//     namespace, view, Landlock ruleset, seccomp filter set, capabilities, limits, and for
//     each line of the intent the mechanism that enforces it or why none does
//     (testdata/plans: six machine profiles); `gem sandbox explain` prints it;
//   - the appliers: Command, ExecInPlace and Prestart start the program as the plan says
//     and fill the Policy the re-exec helper `gem __sandbox-exec` applies in the process
//     that becomes the program: the view in its namespaces (namespace_linux.go), rlimits,
//     no_new_privs and Landlock (landlock_linux.go), the seccomp filter with the guard of
//     the workspace's protected names and the socket judge (guard_*.go, socket_linux.go),
//     then every capability dropped. One seccomp table (closedSurface) refuses every program new
//     namespaces, setns, the mount API, io_uring, ptrace, set-uid bits, the kernel keyring and other ABIs. The helper still re-derives the filter set and
//     reports what fails to apply; a strict policy then refuses (ErrNotEnforced).
//
// Chosen where the spec is silent: the workspace capability is the manifest's
// sandbox.write naming ${workspacePath}, an MCP server handed ${workspacePath} (inferred at
// consent), or `gem ext grant --workspace`; the user's own hooks, !{…} shells and settings
// servers have it. Protected names (IsProtected) are protected at any depth and by every
// name a case-folding file system gives them, but for the git capability, which comes with
// the workspace capability (gitdir.go): inside a repository's .git what git writes as it
// works is open, what git obeys later (config, hooks, attributes, alternates…) stays closed,
// one table deciding (WorkspaceRule); the view makes the closed entries read-only mounts too. The emptied folders
// (/tmp, /var/tmp, /dev/shm, /run, /root, /var/lib, /nix, the daemons' /var/snap, /var/spool,
// /var/opt, /var/run when a folder, /srv, /mnt, /media, and the user's homes) show only what was granted,
// bound back: Landlock has no rule for connect(2), so a socket in the view is reachable by
// its path. TMPDIR is the extension's own temp folder; each extension keeps
// state in $GEM_HOME/data/<name>. Launcher caches a program may write are overlays of its
// own where it has namespaces. The helper is gem's front by identity (GEM_SANDBOX_HELPER),
// never a file found by name, and runs with gem's own sandbox switches alone: the program's
// environment (a manifest's env: LD_PRELOAD, GEM_SANDBOX=off …) reaches it through a
// descriptor and is applied by the program's exec only (progenv_unix.go). Missing layers are said once (Warn) and by gem doctor.
//
// Who refuses what (issue 47: the guard granted what Landlock refused, and judged names that
// lied). The guard only refuses: the calls it makes for a program are made on a thread
// restricted with the program's own Landlock ruleset, so a slip in its checks grants nothing
// Landlock would not (TestAttacksOnWriteRoots runs the attacks with its checks off too):
//
//	what the program tries                 with namespaces                   without
//	rename, link, unlink, mknod, symlink   read-only view (EROFS); Landlock  Landlock; the guard
//	  outside every write root
//	the same on a granted file (/dev/null, read-only (/dev stays so; a root  Landlock; the guard
//	  /dev/tty) or a write root itself     is a mount point: EBUSY); guard   (no such name change)
//	chmod, chown, ACL, xattr outside the   read-only view (EROFS)            the supervisor
//	  write roots
//	a file's flags (chattr, file_setattr)  read-only view (EROFS)            seccomp
//	chmod, ACL of a write root or device   the guard; /dev read-only         the supervisor
//	set-uid or set-gid bits                seccomp (EPERM)                   seccomp
//	new user namespace, setns, mount API,  seccomp (EPERM; clone3 and        seccomp
//	  io_uring, ptrace, another ABI          io_uring ENOSYS)
//	what the supervisor makes for it       its own Landlock rules (the       the same
//	                                         actor thread's)
//
// "The guard" is the supervisor of a program with the workspace capability; "the
// supervisor" without namespaces is the same one, beside every program (the socket judge).
// Left as they were: times (utimes) outside the write roots without namespaces, and the mode
// of a granted regular file with namespaces and no guard (its mount is writable); a write root
// inside a protected folder stays read-only in the view.
//
// Its switches (GEM_SANDBOX=off, GEM_SANDBOX_STRICT=1, GEM_SANDBOX_NAMESPACES=off,
// GEM_SANDBOX_HELPER) are the one configuration a library of gem reads from the process
// environment itself (internal/config): process-wide, like GODEBUG, they must hold alike
// in the light front, the engine and the re-executed helper. docs/sandbox.md has the
// layers, the table of what each mechanism enforces, and what the plan found disagreeing.
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
