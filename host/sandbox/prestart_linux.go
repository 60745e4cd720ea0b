//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// A prestarted helper: `gem run` starts the helper first thing, in namespaces of its own
// (where the machine has them),
// before it knows what it will run, so that the helper's start (a Go program's, the larger
// part of gem run's cost over a bare exec) overlaps finding the command, checking it and
// asking. The helper waits on a socket (its fd 3) for one message: a 4-byte length with the
// program's descriptors attached (its verified binary, the exec status pipe), then the
// program as JSON (helperMessage). It makes the network namespace itself when the program
// is to have none (it is root in its own namespaces): the plan's StepNetNS. Closed without a message, it exits 0.

// prestartArg makes the helper wait for its program on fd 3 (after HelperArg).
const prestartArg = "--wait"

// helperMessage is what a prestarted helper is sent.
type helperMessage struct {
	Policy Policy   `json:"policy"`
	Path   string   `json:"path"`             // what to exec, when not the binary sent
	Argv   []string `json:"argv"`             // argv[0] first
	Env    []string `json:"env"`              // the program's whole environment
	Dir    string   `json:"dir,omitempty"`    // its working folder
	Binary bool     `json:"binary,omitempty"` // the first descriptor sent is the binary
	Status bool     `json:"status,omitempty"` // the next one is the exec status pipe
}

// Prestarted is a helper started ahead of its program (Prestart); ExecInPlace uses it or
// ends it. Discard ends it unused.
type Prestarted struct {
	proc *Process
	conn *os.File // gem's end of the socket
	term *os.File // the terminal to hand to the program, when gem has it
	self int      // the helper's descriptor of its own image (Policy.SelfFD)
	done bool
	// direct: the helper was given gem's streams as files, not pipes gem copies (which stay
	// open until the helper's own exit), so gem may return when the program ends.
	direct bool
}

// Prestart starts a helper for a program gem will run in the foreground with gem's own
// streams; nil when programs do not run through the helper here (sandbox off, neither
// namespaces nor the supervisor, no helper). The caller ends it with Discard when it runs nothing.
func Prestart(stdin io.Reader, stdout, stderr io.Writer) *Prestarted {
	// Where gem run's plan goes through a helper (launch: LaunchPrestarted); the kernel's
	// facts only, the homes are read when the program is known.
	f := machineFacts()
	if Disabled() || helperPath() == "" || !(f.Namespaces || f.Supervisor()) {
		return nil // gem run execs in place here
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "helper socket"), os.NewFile(uintptr(fds[1]), "helper socket")
	defer theirs.Close()
	self := 0
	extra := []*os.File{theirs}
	if img := helperImage(); img != nil {
		// executed from its image, never by its path (helperImage)
		extra, self = append(extra, img), 4
	}
	cmd := helperCommand(helperPath(), self, HelperArg, prestartArg)
	cmd.ExtraFiles = extra
	cmd.Env = []string{}
	cmd.SysProcAttr = childProcAttr()
	if f.Namespaces {
		namespaceAttrs(cmd.SysProcAttr, !f.Root, false) // the network namespace: the helper's to make (StepNetNS)
	}
	// A process group in gem's session; the terminal is handed over once the program is
	// known (gem may still ask on it meanwhile).
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = false, true
	// While the helper starts, the other CPU builds encoding/json's encoders for the message
	// (cold, they cost more than the rest of sending it).
	go json.Marshal(helperMessage{Policy: Policy{Steps: []Step{{Mounts: []Mount{{}}, Limits: &Limits{}, Landlock: &Landlock{}, Seccomp: &Seccomp{}}}}})
	proc, err := start(cmd, Program{Name: "the sandbox helper"}, Streams{Stdin: stdin, Stdout: stdout, Stderr: stderr})
	if err != nil {
		ours.Close()
		return nil
	}
	h := &Prestarted{proc: proc, conn: ours, self: self, direct: isFileOrNil(stdin) && isFileOrNil(stdout) && isFileOrNil(stderr)}
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && inForeground(f) {
		h.term = f
	}
	return h
}

// Discard ends a helper that was not used (nothing is left running).
func (h *Prestarted) Discard() {
	if h == nil || h.done {
		return
	}
	h.done = true
	h.conn.Close()
	h.proc.Kill()
	h.proc.Wait()
}

// runPrestarted runs s through h, as Run does through a helper of its own.
func runPrestarted(s Program, h *Prestarted, plan Plan) (int, error) {
	h.done = true
	defer h.conn.Close()
	status, statusW, err := os.Pipe()
	if err != nil {
		h.proc.Kill()
		h.proc.Wait()
		return 126, err
	}
	defer status.Close()
	p := s.helperPolicy(plan)
	p.SelfFD = h.self
	msg := helperMessage{Policy: p, Path: s.Path, Argv: append([]string{s.Path}, s.Args...), Env: s.Env, Dir: s.Dir, Status: true}
	if msg.Env == nil {
		msg.Env = []string{}
	}
	var fds []int
	if s.Binary != nil && runtime.GOOS == "linux" {
		msg.Binary = true
		fds = append(fds, int(s.Binary.Fd()))
	}
	fds = append(fds, int(statusW.Fd()))
	if h.term != nil {
		// The program's group is the terminal's foreground one before it can run.
		unix.IoctlSetPointerInt(int(h.term.Fd()), unix.TIOCSPGRP, h.proc.Pid())
		defer takeTerminalBack(h.term)
	}
	sigs := notifySignals()
	defer stopSignals(sigs)
	err = sendProgram(h.conn, msg, fds)
	statusW.Close()
	if err != nil {
		h.proc.Kill()
		h.proc.Wait()
		return 126, fmt.Errorf("%s: the sandbox helper: %w", s.Name, err)
	}
	var exited chan int
	if h.direct {
		exited = make(chan int, 1)
		go readExit(h.conn, exited)
	}
	return followProgram(s, h.proc, status, sigs, exited)
}

// readExit passes on the exit code the helper reports (reportExit), if it does.
func readExit(conn *os.File, exited chan<- int) {
	var code [4]byte
	if _, err := io.ReadFull(conn, code[:]); err == nil {
		exited <- int(int32(binary.NativeEndian.Uint32(code[:])))
	}
}

// isFileOrNil: a stream a child gets as its own descriptor (none, or a file).
func isFileOrNil(s any) bool {
	switch f := s.(type) {
	case nil:
		return true
	case *os.File:
		return f != nil
	}
	return false
}

func sendProgram(conn *os.File, msg helperMessage, fds []int) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	var size [4]byte
	binary.NativeEndian.PutUint32(size[:], uint32(len(data)))
	if err := unix.Sendmsg(int(conn.Fd()), size[:], unix.UnixRights(fds...), nil, 0); err != nil {
		return err
	}
	_, err = conn.Write(data)
	return err
}

// receiveProgram reads the helper's message from fd; ok is false when gem closed the socket
// without one (it runs nothing).
func receiveProgram(fd int) (msg helperMessage, fds []int, ok bool, err error) {
	var size [4]byte
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := unix.Recvmsg(fd, size[:], oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return msg, nil, false, err
	}
	if n == 0 {
		return msg, nil, false, nil
	}
	if oobn > 0 {
		cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return msg, nil, false, err
		}
		for _, c := range cmsgs {
			rights, err := unix.ParseUnixRights(&c)
			if err == nil {
				fds = append(fds, rights...)
			}
		}
	}
	f := os.NewFile(uintptr(fd), "helper socket")
	defer f.Close()
	if n < 4 {
		if _, err := io.ReadFull(f, size[n:]); err != nil {
			return msg, fds, false, err
		}
	}
	data := make([]byte, binary.NativeEndian.Uint32(size[:]))
	if _, err := io.ReadFull(f, data); err != nil {
		return msg, fds, false, err
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return msg, fds, false, err
	}
	return msg, fds, true, nil
}

// helperWait is the prestarted helper's main: it waits for its program, then runs it as the
// helper does (HelperMain).
func helperWait(stderr io.Writer) int {
	report, err := unix.FcntlInt(3, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		fmt.Fprintf(stderr, "gem sandbox helper: %v\n", err)
		return 126
	}
	exitReport = report
	msg, fds, ok, err := receiveProgram(3)
	if !ok {
		if err != nil {
			fmt.Fprintf(stderr, "gem sandbox helper: %v\n", err)
			return 126
		}
		return 0 // gem runs nothing
	}
	p, target := msg.Policy, msg.Path
	want := 0
	if msg.Binary {
		want++
	}
	if msg.Status {
		want++
	}
	if len(fds) != want {
		fmt.Fprintf(stderr, "gem sandbox helper: %d descriptors received, %d expected\n", len(fds), want)
		return 126
	}
	if msg.Binary {
		// Kept open across the exec (a script's interpreter reads the script through it).
		if _, err := unix.FcntlInt(uintptr(fds[0]), unix.F_SETFD, 0); err != nil {
			fmt.Fprintf(stderr, "gem sandbox helper: %v\n", err)
			return 126
		}
		target = "/proc/self/fd/" + strconv.Itoa(fds[0])
		fds = fds[1:]
	}
	p.StatusFD = 0
	if msg.Status {
		p.StatusFD = fds[0] // close-on-exec: closed by the program's exec
	}
	if msg.Dir != "" {
		if err := os.Chdir(msg.Dir); err != nil {
			return execFailed(p, msg.Dir, errnoOr(err), stderr)
		}
	}
	return runHelper(p, target, msg.Argv, msg.Env, stderr)
}

// exitReport is the prestarted helper's end of gem's socket, where reportExit writes the
// program's exit code; -1 in a helper started otherwise.
var exitReport = -1

// reportExit hands gem the exit code of the program the helper outlives (as its guard's
// supervisor) the moment the program has ended, and returns it: gem need not wait for the
// helper's own exit, whose namespaces' teardown (≈ 1 ms) would hold every gem run. As the
// init of its PID namespace, the helper first kills what the program left running there (its
// own exit would), so nothing of it runs once gem has returned.
func reportExit(code int) int {
	if exitReport < 0 {
		return code
	}
	if os.Getpid() == 1 {
		unix.Kill(-1, unix.SIGKILL)
	}
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(code))
	unix.Write(exitReport, b[:])
	return code
}

func errnoOr(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}
