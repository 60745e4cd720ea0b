// Command gem is the light front of gem. It serves the hot, read-only paths itself
// (`gem --version`, `gem ext list`, `gem run`) without linking urfave/cli,
// Masterminds/semver, gRPC, genai or the MCP SDK, whose package initialisation alone costs
// more than these verbs' whole budget (measured: a minimal Go binary starts in
// ≈ 5 ms here; urfave/cli adds ≈ 1.7 ms and semver ≈ 2 ms before main runs).
//
// Every other invocation (and any flag the fast paths do not know, --help included) is
// handed unchanged to gem-engine, the full urfave/cli application, with execve, as git hands
// `git foo` to git-foo. gem-engine is looked up in $GEM_ENGINE, beside the gem that was
// invoked, beside the resolved executable, then on $PATH.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/buildinfo"
)

func main() {
	os.Exit(Main(processIO(), os.Args))
}

// stdio is what the front's verbs read and write: the process's standard files and
// environment, given once here.
type stdio struct {
	in      *os.File
	out     io.Writer
	err     io.Writer
	environ []string
}

func processIO() stdio { return stdio{os.Stdin, os.Stdout, os.Stderr, os.Environ()} }

// Main runs the front and returns the exit code.
func Main(std stdio, args []string) int {
	if len(args) > 1 && args[1] == sandbox.HelperArg {
		return sandbox.HelperMain(args[2:], std.environ, std.err)
	}
	// The front is the sandbox's helper, by identity: itself, whatever its name or folder.
	sandbox.ServeAsHelper()
	if code, handled := fast(std, args); handled {
		return code
	}
	return execEngine(std, args)
}

// fast serves the invocations the front knows; handled is false for everything else.
func fast(std stdio, args []string) (code int, handled bool) {
	if args[len(args)-1] == "--generate-bash-completion" {
		return 0, false // shell completion: gem-engine answers it, and runs nothing
	}
	if len(args) == 2 {
		switch args[1] {
		case "--version", "-v", "version":
			fmt.Fprintln(std.out, "gem version "+buildinfo.Version)
			return 0, true
		}
	}
	if len(args) >= 3 && (args[1] == "ext" || args[1] == "extensions") && (args[2] == "list" || args[2] == "ls") {
		return extList(std, args[3:])
	}
	if len(args) >= 3 && args[1] == "run" {
		return run(std, args[2:])
	}
	return 0, false
}

func execEngine(std stdio, args []string) int {
	engine, err := findEngine(args[0])
	if err != nil {
		fmt.Fprintln(std.err, "gem:", err)
		return 1
	}
	argv := append([]string{engine}, args[1:]...)
	err = syscall.Exec(engine, argv, engineEnv(std.environ))
	fmt.Fprintf(std.err, "gem: cannot start %s: %v\n", engine, err)
	return 1
}

const engineName = "gem-engine"

// engineEnv is the front's environment for gem-engine, with the sandbox helper named: the
// front itself (GEM_SANDBOX_HELPER, unless the user set it). The engine, found beside gem,
// through $GEM_ENGINE or on PATH, would otherwise take whatever file named gem lies beside it.
// The helper's image itself is handed over as a descriptor (sandbox.HelperHandover): the
// engine executes that, never the file now at the path, which a program that may write the
// folder holding gem could have replaced.
func engineEnv(environ []string) []string {
	env := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		return kv == "GEM_SANDBOX_HELPER=" || strings.HasPrefix(kv, "GEM_SANDBOX_HELPER_FD=")
	})
	if kv := sandbox.HelperHandover(); kv != "" {
		env = append(env, kv)
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GEM_SANDBOX_HELPER=") {
			return env
		}
	}
	self, err := os.Executable()
	if err != nil {
		return env
	}
	return append(env, "GEM_SANDBOX_HELPER="+self)
}

func findEngine(argv0 string) (string, error) {
	if e := os.Getenv("GEM_ENGINE"); e != "" {
		return e, nil
	}
	var candidates []string
	if self, err := exec.LookPath(argv0); err == nil {
		if abs, err := filepath.Abs(self); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(abs), engineName))
		}
	}
	if self, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(self), engineName))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
			return c, nil
		}
	}
	if p, err := exec.LookPath(engineName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found beside gem or on PATH; install both binaries together (make build puts them in bin/)", engineName)
}
