//go:build unix

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/gemhost/gem/internal/config"
)

// HelperArg is the first argument that makes gem's front the re-exec helper:
// `gem __sandbox-exec <policy JSON> <program> <argv0> [args…]` applies the policy to itself
// and execs the program with its own (already filtered) environment. Restrictions are
// applied there, in the process that becomes the program, never in gem.
const HelperArg = "__sandbox-exec"

// HelperMain runs the helper with the arguments after HelperArg, the environment the program
// gets and where failures are said; it returns only on failure, with the exit code to use
// (126: the sandbox could not be set up, 127: exec failed).
func HelperMain(args, environ []string, stderr io.Writer) int {
	if len(args) == 1 && args[0] == prestartArg {
		return helperWait(stderr)
	}
	if len(args) < 3 {
		fmt.Fprintln(stderr, "gem sandbox helper: usage: gem __sandbox-exec <policy> <program> <argv0> [args...]")
		return 126
	}
	var p Policy
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		fmt.Fprintf(stderr, "gem sandbox helper: bad policy: %v\n", err)
		return 126
	}
	if p.EnvFD > 2 {
		// The program's environment, applied by its exec alone (progenv_unix.go).
		env, err := readProgramEnv(p.EnvFD)
		if err != nil {
			fmt.Fprintf(stderr, "gem sandbox helper: %v\n", err)
			return 126
		}
		environ = env
	}
	return runHelper(p, args[1], args[2:], environ, stderr)
}

// runHelper applies p to the helper and runs the program: exec'd in its place, or as its
// child beside the guard's supervisor.
func runHelper(p Policy, path string, argv, environ []string, stderr io.Writer) int {
	if p.StatusFD > 2 {
		syscall.CloseOnExec(p.StatusFD) // closed by the program's exec: nothing to report
	}
	if p.SelfFD > 2 {
		syscall.CloseOnExec(p.SelfFD) // the helper's own image: not the program's
	}
	listener, ruleset, err := applySteps(&p, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gem sandbox helper: %v\n", err)
		return 126
	}
	if listener >= 0 {
		return runGuarded(p, listener, ruleset, path, argv, environ, stderr)
	}
	err = syscall.Exec(path, argv, environ)
	return execFailed(p, path, err, stderr)
}

// execFailed reports a failed exec of the program: as an errno on the status descriptor
// when gem asked for one (it then explains it), else on stderr; 127 either way.
func execFailed(p Policy, path string, err error, stderr io.Writer) int {
	if errno, ok := err.(syscall.Errno); ok && p.StatusFD > 2 {
		var b [4]byte
		binary.NativeEndian.PutUint32(b[:], uint32(errno))
		if n, _ := syscall.Write(p.StatusFD, b[:]); n == 4 {
			return 127
		}
	}
	fmt.Fprintf(stderr, "gem sandbox helper: cannot run %s: %v\n", path, err)
	return 127
}

// helperPath is the helper by identity, not by a name found in a folder: GEM_SANDBOX_HELPER
// (the user's, or the one gem's front hands gem-engine: itself), then the running program
// when it serves as its own helper (the front, and programs embedding the SDK), and only
// for gem-engine started on its own, the gem beside it. A program serving as helper never
// takes a "gem" from its folder: installed as gemx beside Ruby's gem, or built into a cloned
// project's bin/ beside a planted gem, that file would run unconfined with every program's
// policy and environment.
var helperPath = sync.OnceValue(func() string {
	if p := config.Getenv("GEM_SANDBOX_HELPER"); p != "" {
		return p
	}
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if selfHelper {
		return self
	}
	p := filepath.Join(filepath.Dir(self), "gem")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
})

// selfHelper: the program serves as its own helper (ServeAsHelper).
var selfHelper bool

// ServeAsHelper records the running program as the re-exec helper of the programs it
// starts (unless GEM_SANDBOX_HELPER says another): gem's front, and a program that embeds
// gem's host, which must then run HelperMain itself when started with HelperArg first (the
// Go SDK's init does both). Without a helper, programs would run without filesystem and
// network rules.
func ServeAsHelper() { selfHelper = true }

// Disabled reports whether the user turned the sandbox off (GEM_SANDBOX=off).
func Disabled() bool { return config.Getenv("GEM_SANDBOX") == "off" }

// Strict reports whether missing restrictions must refuse to run (GEM_SANDBOX_STRICT=1).
func Strict() bool { return config.Getenv("GEM_SANDBOX_STRICT") == "1" }

var warnOnce sync.Once

// Warn receives, once per gem process, what the sandbox cannot enforce on this machine.
// The CLI prints it; nil drops it.
var Warn func(msg string)

func warnf(format string, args ...any) {
	warnOnce.Do(func() {
		if Warn != nil {
			Warn(fmt.Sprintf(format, args...))
		}
	})
}

// helperCommand starts the helper (shown as path) with args: executed from its image at
// descriptor fd of the child (helperImage, among the command's ExtraFiles), or by its path
// when fd is 0.
func helperCommand(path string, fd int, args ...string) *exec.Cmd {
	if fd <= 2 {
		return exec.Command(path, args...)
	}
	cmd := exec.Command(helperExecPath(fd), args...)
	cmd.Args[0] = path
	return cmd
}

// isHelper reports whether cmd starts the helper (helperCommand).
func isHelper(cmd *exec.Cmd) bool {
	return len(cmd.Args) > 1 && cmd.Args[1] == HelperArg && (cmd.Path == helperPath() || helperImage() != nil && strings.HasPrefix(cmd.Path, "/proc/self/fd/"))
}

// HelperPath is the re-exec helper gem uses ("" when there is none: subprocesses then run
// without filesystem and network rules).
func HelperPath() string { return helperPath() }
