// Package sandbox owns starting subprocesses: the environment they get
// (an allowlist, with secrets and execution hijackers dropped), how they are started (a
// child in a session of its own that dies with gem, or `gem run`'s foreground child), and
// what they may do (Policy), in layers:
//   - namespaces (namespace_linux.go): gem starts the helper in new mount, PID and IPC
//     namespaces (plus a user namespace when not root, and a network namespace when the
//     network is not granted); the helper, PID 1 there, builds the program's view
//     (buildView): empty /tmp, /var/tmp, /dev/shm, /run and /root but for the granted paths
//     bound back, /etc/shadow and friends masked, a fresh /proc; and what a write grant
//     covers of extension folders, ~/.gemini and gem's home made read-only mounts
//     (Policy.Protect, chosen by host/commands), the folders between the grant and them made
//     mounts of their own so they cannot be renamed away with a parent (Policy.Rebind) —
//     read-only mounts because Landlock only adds rights: it cannot carve a folder out of a
//     granted tree;
//   - Landlock (landlock_linux.go): read the system, the extension and the workspace; write
//     the extension's data and temp folders, the terminal devices, the manifest's
//     sandbox.write, and the workspace only with the workspace capability
//     (Access.WriteWorkspace); TCP bind/connect denied unless sandbox.network; signals and
//     abstract sockets scoped;
//   - the guard (guard_linux.go), for a program that may write the workspace: the
//     workspace's protected names (IsProtected: any .git, agent, editor and direnv
//     configuration, context files, .env*, shell rc files, at any depth, existing or not,
//     by every name a case-folding file system gives them) are closed by construction: a
//     seccomp supervisor in the helper checks and makes every call that creates, renames,
//     links, removes or opens a name for writing (why this mechanism, and what it costs, is
//     written there) — but for the git capability (gitdir.go): inside a repository's .git
//     folder what git writes as it works is open, what git obeys stays closed, one table
//     deciding (WorkspaceRule), the view making the closed entries read-only mounts too;
//   - the socket judge (socket_linux.go), for every program without namespaces, and for a
//     guarded one with them: the same supervisor makes each connect(2) itself and lets a
//     unix socket be reached only beneath the program's own write roots (a machine's /tmp
//     and /run are shared without namespaces; with them, the folders it reads hold sockets);
//   - seccomp (guard_filter_linux.go): one table (closedSurface) refuses to every program new
//     namespaces and setns, the mount API, io_uring, ptrace and process_vm_*, set-uid and
//     set-gid bits; ioctl TIOCSTI/TIOCLINUX refused, other ABIs refused;
//     without the network, no socket family but unix, netlink and internet (vsock and the
//     others are in no network namespace), and without namespaces every internet socket but
//     TCP (which Landlock rules) refused;
//   - no_new_privs, every capability dropped, rlimits (CPU, open files, address space,
//     process count; for root a pids cgroup under GEM_SANDBOX_STRICT=1).
//
// Restrictions are applied by the process that becomes the program (or, with the guard, by
// the helper on the thread the program is forked from), never by gem: every program starts
// through the re-exec helper `gem __sandbox-exec` (gem's light front). `gem run` runs as
// gem's child in the terminal's foreground (ExecInPlace hands back a ChildExit), through a
// helper the front starts first thing (Prestart, prestart_linux.go), so that the helper's own
// start overlaps finding and checking the command; only on a machine with neither namespaces
// nor seccomp's user notification does it still exec in place, restricting one locked thread
// first. Missing kernel features are
// reported by Capabilities (gem doctor) and refused with GEM_SANDBOX_STRICT=1; GEM_SANDBOX=off
// turns the sandbox off, GEM_SANDBOX_NAMESPACES=off the namespace layer alone.
//
// Chosen where the spec is silent: the workspace capability is the manifest's
// sandbox.write naming ${workspacePath}, an MCP server handed ${workspacePath} as an
// argument (inferred at consent), or `gem ext grant --workspace`; the user's own hooks,
// !{…} shells and settings servers have it (the user wrote them). Protected names are
// protected at any depth (Gemini CLI reads GEMINI.md in subfolders; editors scan subfolders
// for repositories); git inside a sandboxed program commits to the workspace's repositories
// (the git capability comes with the workspace capability: gitdir.go); renaming a folder
// that holds a nested .git is allowed (it plants nothing). A
// path the policy grants under an emptied folder is bound back (so a workspace or an
// extension under /tmp keeps working); TMPDIR stays the extension's own temp folder (bound
// into its private /tmp); each extension gets $GEM_HOME/data/<name> (GEM_EXTENSION_DATA) to
// keep state in. The emptied folders are /tmp, /var/tmp, /dev/shm, /run, /root, /var/lib and
// /nix, and the user's home: Landlock has no rule for connect(2), so a socket anywhere in a
// program's view is reachable by its path (an ssh ControlMaster in ~/.ssh, a database's in
// /var/lib), and what the view shows is what was granted. The helper is gem's front by
// identity (the running binary, handed to gem-engine in GEM_SANDBOX_HELPER), never a file
// found by its name. Launcher caches a program may write (host/commands) are overlays of its
// own where it has namespaces. Without the guard the program is PID 1 of its namespace: it gets only the
// signals it handles from gem (gem ends it with SIGKILL after the grace), and orphans it does
// not reap stay zombies until it ends; with the guard the helper is PID 1 and reaps them.
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
//	chmod, ACL, xattr outside write roots  read-only view (EROFS)            the supervisor
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
// environment itself (internal/config): they are the user's process-wide switches, like
// GODEBUG, and must hold alike in the light front, the engine and the re-executed helper,
// where no configuration built in main reaches. Warn, set by the CLI, is where it says once
// what it cannot enforce.
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
