package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// guardUsable reports whether this machine can run the guard (and the socket judge, the
// same supervisor): it reads the program's memory and takes its descriptors, which needs the
// ptrace right over its own child, refused to every process by Yama's ptrace_scope 2 and 3
// (its supervising thread holds no capability).
func guardUsable() bool { return guardArch && seccompUsable() && childTraceable(readSysctl(yamaScope)) }

const yamaScope = "/proc/sys/kernel/yama/ptrace_scope"

// childTraceable: Yama (when the kernel has it, scope as its sysctl reads) lets a process
// reach its own children.
func childTraceable(scope string) bool { return scope == "" || scope == "0" || scope == "1" }

// runGuarded runs the program as the helper's child, its calls that change names answered by
// the guard, and returns its exit status (128+n for signal n). It is called on the thread
// harden restricted: the program is forked from it and so inherits its Landlock domain,
// seccomp filter and dropped capabilities; the supervisor runs on another thread, without
// the filter (its own calls would wait for themselves) and without capabilities. The helper
// is PID 1 of the program's namespaces when it has them: it reaps orphans, and its end ends
// everything the program started; the program stays in the helper's process group, which
// gem and the terminal signal.
func runGuarded(p Policy, listener, ruleset int, path string, argv, env []string, stderr io.Writer) int {
	// Not dumpable: the program (same user, same Landlock domain as the thread it is forked
	// from) must not ptrace this process or write its memory, where the supervisor keeps
	// what it checks against. The program's own exec makes it dumpable again, so the
	// supervisor still reads its memory.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(stderr, "gem sandbox helper: %v\n", err)
		return 126
	}
	g := newGuard(listener, ruleset, p)
	ready := make(chan struct{})
	go g.serve(ready)
	// Signals: the terminal's (INT, QUIT) reach the program through the process group and are
	// dropped here (the helper, PID 1 or not, must outlive the program's own handling of
	// them: unhandled, the terminal's SIGINT ends even a PID 1); TERM and HUP are handed on,
	// so a signal sent to the helper alone (timeout(1), kill) reaches the program too.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	files := []uintptr{0, 1, 2}
	if path == "/proc/self/fd/3" {
		files = append(files, 3) // the verified binary gem handed over (Program.Binary)
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return execFailed(p, path, err, stderr)
	}
	if p.StatusFD > 2 {
		syscall.Close(p.StatusFD) // it runs: nothing to report
	}
	close(ready) // the supervisor clears the mask (umask is guarded on this thread)
	go func() {
		for sig := range sigs {
			if sig == syscall.SIGTERM || sig == syscall.SIGHUP {
				syscall.Kill(pid, sig.(syscall.Signal))
			}
		}
	}()
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 1
		}
		if got != pid {
			continue // an orphan reaped
		}
		if ws.Signaled() {
			return reportExit(128 + int(ws.Signal()))
		}
		return reportExit(ws.ExitStatus())
	}
}
