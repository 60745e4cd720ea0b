//go:build unix

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Program is a program to start.
type Program struct {
	Path string   // absolute path of the program
	Args []string // arguments, without the program name
	Env  []string
	Dir  string
	Name string // what to call it in errors (the command's name)
	// Extension is the extension whose program it is ("" for the user's and gem's own):
	// what telemetry's launch span names (Name may hold a command line).
	Extension string
	// Policy, when set, sandboxes the program (filesystem, network, limits).
	Policy *Policy
	// execStatus, when set, is the write end of a pipe on which the helper reports why the
	// program could not be executed (Run reads it, to say so as exec in place would).
	execStatus *os.File
	// Binary, when set, is Path opened and verified: ExecInPlace executes this descriptor,
	// so the file cannot be swapped between the check and the exec.
	Binary *os.File
	// Helper, when set, is a helper started ahead for this program (Prestart, gem run):
	// ExecInPlace runs the program through it or ends it.
	Helper *Prestarted
	// Describe names the platform a binary was built for, for an exec format error
	// (host/binfmt.Describe, which only gem-engine links: registry.Engine); nil says
	// "another platform".
	Describe func(path string) string
}

// ExecInPlace replaces the gem process with the program (no second process: signals,
// stdin, stdout, stderr and the exit status are the program's own). It returns only on
// failure, with an error that says what failed and what to do.
func ExecInPlace(s Program) error {
	var plan Plan
	if s.Policy != nil {
		plan = s.Plan(true)
	}
	if plan.Refused != "" {
		// Strict, and something the plan needs is missing here: refused before anything
		// starts (the helper refuses only a step it fails to apply).
		s.Helper.Discard()
		return fmt.Errorf("%s: %w: %s", s.Name, ErrNotEnforced, plan.Refused)
	}
	if plan.Launch == LaunchPrestarted && s.Helper != nil {
		code, err := runPrestarted(s, s.Helper, plan)
		if err != nil {
			return err
		}
		return &ChildExit{Code: code}
	}
	s.Helper.Discard() // not needed (and not left to the program exec'd in place)
	if s.Dir != "" {
		if err := os.Chdir(s.Dir); err != nil {
			return fmt.Errorf("%s: cannot enter the working folder %s: %w", s.Name, s.Dir, err)
		}
	}
	argv := append([]string{s.Path}, s.Args...)
	target := s.Path
	if s.Binary != nil && runtime.GOOS == "linux" {
		// The verified descriptor, kept open across the exec (a script's interpreter reads
		// the script through it).
		if _, err := unix.FcntlInt(s.Binary.Fd(), unix.F_SETFD, 0); err == nil {
			target = fmt.Sprintf("/proc/self/fd/%d", s.Binary.Fd())
		}
	}
	if s.Policy == nil || plan.Launch == LaunchUnsandboxed {
		return execError(s, syscall.Exec(target, argv, s.Env))
	}
	warnMissing()
	for _, w := range plan.Warnings {
		warnf("%s", w)
	}
	if plan.Launch == LaunchHelper || plan.Launch == LaunchPrestarted {
		// The boundary every other program gets (namespaces: a private /tmp, /dev/shm and
		// /proc, no UDP or outside sockets, no capability as root; without them, the
		// supervisor of unix-socket connects; and the guard's supervisor beside a program that
		// may write the workspace) needs the helper as the program's parent, so the program
		// cannot replace gem: it runs as gem's child, in the terminal's foreground, and its
		// status is gem's. Exec in place stays for machines with neither namespaces nor
		// seccomp's user notification.
		// The descriptors exec in place would have handed over: 0, 1 and 2.
		stdin, stdout, stderr := os.NewFile(0, "stdin"), os.NewFile(1, "stdout"), os.NewFile(2, "stderr")
		code, err := Run(s, stdin, stdout, stderr)
		if err != nil {
			return err
		}
		return &ChildExit{Code: code}
	}
	// gem becomes the program: restrict one locked thread and exec from it. If the exec
	// fails, that goroutine ends while locked, the runtime discards its thread, and gem
	// goes on unrestricted (to describe the failure, or hand it to gem-engine).
	p := s.helperPolicy(plan)
	done := make(chan error, 1)
	go func() {
		if _, _, err := applySteps(&p, warnWriter{}); err != nil {
			done <- fmt.Errorf("%s: %w", s.Name, err)
			return
		}
		done <- execError(s, syscall.Exec(target, argv, s.Env))
	}()
	return <-done
}

// warnWriter says what it is written (a fallback taken) through Warn, once per process.
type warnWriter struct{}

func (warnWriter) Write(b []byte) (int, error) {
	warnf("%s", strings.TrimSpace(string(b)))
	return len(b), nil
}

// helperMissing says the helper is missing, and where it was looked for.
const helperMissing = "the sandbox helper is missing (gem-engine started on its own looks for gem beside it)"

// ChildExit is ExecInPlace's answer when the program ran as gem's child (a program with the
// guard) instead of replacing gem: it has ended with Code, which gem exits with.
type ChildExit struct{ Code int }

func (e *ChildExit) Error() string { return fmt.Sprintf("exited with status %d", e.Code) }

// ErrExecFormat wraps every exec format error.
var ErrExecFormat = syscall.ENOEXEC

func execError(s Program, err error) error {
	switch {
	case errors.Is(err, syscall.ENOEXEC):
		built := "another platform"
		if s.Describe != nil {
			built = s.Describe(s.Path)
		}
		return fmt.Errorf("%s: cannot run %s: %w: it is built for %s, but this machine is %s/%s; install the extension's build for this platform", s.Name, s.Path, err, built, runtime.GOOS, runtime.GOARCH)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%s: permission denied running %s: make it executable (chmod +x) or reinstall the extension", s.Name, s.Path)
	case errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("%s: %s is gone (or its interpreter is missing): reinstall the extension", s.Name, s.Path)
	}
	return fmt.Errorf("%s: cannot run %s: %w", s.Name, s.Path, err)
}

// Run runs the program in the foreground (`gem run`): a Process in its own process group
// within gem's session, with the terminal's streams; SIGINT and SIGTERM are forwarded to
// the group. It returns the exit code (128+n for signal n); nothing it started is left running.
func Run(s Program, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	status, statusW, err := os.Pipe()
	if err != nil {
		return 126, err
	}
	defer status.Close()
	s.execStatus = statusW
	cmd, err := Command(s)
	if err != nil {
		statusW.Close()
		return 126, err
	}
	// It shares the user's terminal: a process group in gem's session, not a session of
	// its own (the seccomp filter still refuses terminal injection); on a terminal that group
	// is the foreground one, so the terminal's ^C and ^Z reach it (and only it) and it may
	// read the terminal; gem takes the terminal back when it ends.
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = false, true
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && inForeground(f) {
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, int(f.Fd())
		defer takeTerminalBack(f)
	}
	sigs := notifySignals()
	defer stopSignals(sigs)
	p, err := start(cmd, s, Streams{Stdin: stdin, Stdout: stdout, Stderr: stderr})
	statusW.Close()
	if err != nil {
		return 127, err
	}
	return followProgram(s, p, status, sigs, nil)
}

// notifySignals catches the signals a foreground program's group is sent (forwarded by
// followProgram).
func notifySignals() chan os.Signal {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	return sigs
}

func stopSignals(sigs chan os.Signal) { signal.Stop(sigs) }

// followProgram waits for a foreground program started through the helper: a failed exec
// as the helper reports it on status, the signals gem gets forwarded to its group, and its
// exit code (128+n for signal n).
//
// exited, when not nil, is the program's exit code reported by a helper that outlives it
// (reportExit): gem returns it without waiting for the helper's own exit (the teardown of
// its namespaces), and ends the helper's group as Wait would.
func followProgram(s Program, p *Process, status *os.File, sigs chan os.Signal, exited <-chan int) (int, error) {
	// The helper writes the errno of a failed exec, or nothing (the pipe closes at the exec).
	var errno [4]byte
	if n, _ := io.ReadFull(status, errno[:]); n == 4 {
		p.Wait()
		return 127, execError(s, syscall.Errno(binary.NativeEndian.Uint32(errno[:])))
	}
	go func() {
		for {
			select {
			case sig := <-sigs:
				p.Signal(sig.(syscall.Signal))
			case <-p.Done():
				return
			}
		}
	}()
	select {
	case code := <-exited:
		p.Kill()
		return code, nil
	case <-p.Done():
	}
	err := p.Wait()
	if code := exitCode(err); code >= 0 {
		return code, nil
	}
	return 1, err
}

// Command prepares the program as a long-lived child (a plugin, an MCP server): exactly
// s.Env (never the host's environment; what StartCommand is given then), its own process
// group so it and whatever it starts can be killed together (KillGroup), and killed if gem
// dies. The caller wires its streams and starts it with StartCommand.
func Command(s Program) (*exec.Cmd, error) {
	cmd := exec.Command(s.Path, s.Args...)
	if s.Policy != nil && !Disabled() {
		warnMissing()
		plan := s.Plan(false)
		switch {
		case plan.Refused != "":
			return nil, fmt.Errorf("%s: %w: %s", s.Name, ErrNotEnforced, plan.Refused)
		case plan.Launch == LaunchHelper:
			p := s.helperPolicy(plan)
			target := s.Path
			var extra []*os.File
			if s.Binary != nil && runtime.GOOS == "linux" {
				// The verified descriptor, as fd 3 of the helper, which runs it (a script's
				// interpreter reads the script through it): the file cannot be swapped
				// between gem's check and the exec.
				target, extra = "/proc/self/fd/3", []*os.File{s.Binary}
			}
			if s.execStatus != nil {
				extra = append(extra, s.execStatus)
				p.StatusFD = 2 + len(extra)
			}
			// The helper itself, executed from the image opened once (helperImage), never by
			// its path: a program that may write the folder holding it cannot swap it.
			if img := helperImage(); img != nil {
				extra = append(extra, img)
				p.SelfFD = 2 + len(extra)
			}
			// The program's environment reaches the program alone, through a descriptor the
			// helper reads, its last: written when the program starts (start), from the
			// Program's Env as it is then. The helper, which builds the view with the user's
			// rights, runs with gem's own switches only (helperEnv).
			extra = append(extra, nil)
			p.EnvFD = 2 + len(extra)
			data, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			args := append([]string{HelperArg, string(data), target, s.Path}, s.Args...)
			cmd = helperCommand(plan.Facts.Helper, p.SelfFD, args...)
			cmd.ExtraFiles = extra
			cmd.Env, cmd.Dir = helperEnv(), s.Dir
			cmd.SysProcAttr = childProcAttr()
			if plan.Namespaces {
				namespaceAttrs(cmd.SysProcAttr, plan.UserNamespace, plan.NetNS == NetNSClone)
			}
			return cmd, nil
		default:
			for _, w := range plan.Warnings {
				warnf("%s", w)
			}
		}
	}
	cmd.Env, cmd.Dir = s.Env, s.Dir
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean the host's environment
	}
	cmd.SysProcAttr = childProcAttr()
	return cmd, nil
}

// Intent is s's intent: its policy's, with GEM_SANDBOX_STRICT applied; foreground for gem
// run's program (ExecInPlace).
func (s Program) Intent(foreground bool) Intent {
	in := IntentOf(s.effectivePolicy())
	in.Program, in.Foreground = s.Name, foreground
	return in
}

// Plan is s's plan on this machine, as its launcher follows it.
func (s Program) Plan(foreground bool) Plan { return MakePlan(s.Intent(foreground), ProbeFacts()) }

// helperPolicy is the policy the helper applies for s: the plan's steps (its view's mounts
// resolved here: resolveMounts), the user's strictness, and what its supervisor needs. Read
// travels in the Landlock step only.
func (s Program) helperPolicy(plan Plan) Policy {
	p := s.effectivePolicy()
	p.Namespaces = plan.Namespaces
	if plan.Namespaces {
		plan.Mounts = resolveMounts(plan)
	}
	p.Steps = Steps(plan)
	p.Read, p.Toolchains, p.Protect, p.Rebind, p.Overlays = nil, nil, nil, nil, nil
	return p
}

// effectivePolicy is the spec's policy with the user's GEM_SANDBOX_STRICT applied.
func (s Program) effectivePolicy() Policy {
	p := *s.Policy
	p.Strict = p.Strict || Strict()
	return p
}
