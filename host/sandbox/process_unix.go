//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Streams are a supervised child's standard streams. A nil Stdin is /dev/null; a nil Stderr
// goes to the Process's Tail (kept for crash reports).
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StdinWriter, when Stdin is a pipe, is gem's end of it: Stop closes it first.
	StdinWriter io.Closer
}

// Process is a supervised child: every subprocess gem starts (plugins, MCP servers, hooks,
// prompt commands' shells, `gem run`) is one. It runs in a process group of its own (and,
// sandboxed and strict, a pids cgroup), so whatever it starts ends with it. Stop ends it
// politely, then surely: close its stdin, SIGTERM its group, SIGKILL its group and cgroup.
type Process struct {
	Tail *StderrTail // what it wrote to stderr, when Streams.Stderr was nil

	cmd      *exec.Cmd
	stdin    io.Closer // the write end gem holds, when Stdin was a pipe of gem's
	done     chan struct{}
	err      error // how it ended; set before done closes
	stopOnce sync.Once
}

// StartProcess starts s (sandboxed by s.Policy, see Command) with streams.
func StartProcess(s Program, streams Streams) (*Process, error) {
	cmd, err := Command(s)
	if err != nil {
		return nil, err
	}
	return start(cmd, s, streams)
}

// StartCommand supervises cmd, made by Command and not yet started; streams the caller set
// on cmd are kept. For callers that must see the exec.Cmd first (go-plugin's runner).
func StartCommand(cmd *exec.Cmd, s Program) (*Process, error) {
	return start(cmd, s, Streams{Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr})
}

func start(cmd *exec.Cmd, s Program, streams Streams) (*Process, error) {
	p := &Process{cmd: cmd, stdin: streams.StdinWriter, done: make(chan struct{})}
	if streams.Stderr == nil {
		p.Tail = &StderrTail{}
		streams.Stderr = p.Tail
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 2 * time.Second // stdin's copy does not hold gem past the child's end
	}
	out, err := newOutputs(streams.Stdout, streams.Stderr)
	if err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = streams.Stdin, out.stdout, out.stderr
	envFile, err := passEnv(cmd, s)
	if err != nil {
		return nil, err
	}
	w := programWriter(s, cmd)
	writers.add(w) // before it runs: a watch opened from here on sees it (writers.go)
	err = cmd.Start()
	out.started()
	if envFile != nil {
		envFile.Close() // the helper holds its own copy
	}
	if err != nil {
		writers.done(w)
		out.abandon()
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, execError(s, err)
	}
	go func() {
		err := cmd.Wait()
		p.Kill() // the group ends with its leader: nothing it started writes on
		if pidNamespaced(cmd) {
			writers.done(w) // else a descendant that left the group may still write
		}
		s.Policy.overlaysEnded()
		out.finish(cmd.WaitDelay)
		if err == nil {
			err = errExitedZero
		}
		p.err = err
		close(p.done)
	}()
	return p, nil
}

// outputs gives a child pipes of gem's own for writers that are not files, so that Wait
// returns when the child exits (exec.Cmd's own copies wait for every holder of the pipe,
// a background grandchild included) and the group can be killed before the copies end.
type outputs struct {
	stdout, stderr io.Writer // what the child gets
	childEnds      []*os.File
	readEnds       []*os.File
	copies         sync.WaitGroup
}

func newOutputs(stdout, stderr io.Writer) (*outputs, error) {
	o := &outputs{}
	var err error
	if o.stdout, err = o.pipe(stdout); err != nil {
		o.abandon()
		return nil, err
	}
	if sameWriter(stdout, stderr) {
		o.stderr = o.stdout // one pipe keeps their order
		return o, nil
	}
	if o.stderr, err = o.pipe(stderr); err != nil {
		o.abandon()
		return nil, err
	}
	return o, nil
}

func (o *outputs) pipe(w io.Writer) (io.Writer, error) {
	if _, isFile := w.(*os.File); isFile || w == nil {
		return w, nil
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	o.childEnds, o.readEnds = append(o.childEnds, pw), append(o.readEnds, r)
	o.copies.Go(func() { io.Copy(w, r) })
	return pw, nil
}

// started closes gem's copies of the child's ends (the child holds its own).
func (o *outputs) started() {
	for _, f := range o.childEnds {
		f.Close()
	}
}

// finish waits up to d for the copies to drain (a process outside the group may still hold
// a pipe), then closes the read ends.
func (o *outputs) finish(d time.Duration) {
	drained := make(chan struct{})
	go func() { o.copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(d):
	}
	for _, f := range o.readEnds {
		f.Close()
	}
	<-drained
}

// abandon closes every end after a failed start.
func (o *outputs) abandon() {
	o.started()
	o.finish(0)
}

// sameWriter reports whether a and b are the same writer (false for incomparable ones).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a != nil && a == b
}

// errExitedZero is how a process that exited with status 0 ended, for callers that treat
// any end as unexpected (a server); ExitCode gives 0.
var errExitedZero = errors.New("exit status 0")

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the child has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports, without waiting, whether the child has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits for the child to exit and returns how it ended (nil for status 0, an
// *exec.ExitError otherwise); its group and cgroup are killed then, so nothing it started
// outlives it.
func (p *Process) Wait() error {
	<-p.done
	p.Kill()
	if errors.Is(p.err, errExitedZero) {
		return nil
	}
	return p.err
}

// ExitWithin waits up to d for the child to exit and returns how it ended, or nil when it
// still runs.
func (p *Process) ExitWithin(d time.Duration) error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return p.err
	case <-t.C:
		return nil
	}
}

// ExitCode is the child's exit status after Wait: 128+n when signal n ended it, -1 when
// it has not ended.
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return exitCode(p.err)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil || errors.Is(err, errExitedZero):
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

// Signal sends sig to the child's process group.
func (p *Process) Signal(sig syscall.Signal) { syscall.Kill(-p.Pid(), sig) }

// Kill ends the child's process group and pids cgroup at once with SIGKILL (what the child
// left behind included). Safe to call more than once, and after the child exited.
func (p *Process) Kill() {
	syscall.Kill(-p.Pid(), syscall.SIGKILL)
	killCgroup(p.Pid())
}

// Stop ends the child and waits for it: close its stdin (a polite server exits at EOF),
// after half of grace SIGTERM its group, after the other half SIGKILL its group and cgroup.
// Only the first call acts; every call returns once the child has ended.
func (p *Process) Stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		if p.stdin != nil {
			p.stdin.Close()
		}
		if p.ExitWithin(grace/2) == nil && !p.Exited() {
			p.Signal(syscall.SIGTERM)
			p.ExitWithin(grace - grace/2)
		}
		p.Kill()
	})
	<-p.done
}

// stopWhenDone stops the child (with grace) when ctx ends; the returned function cancels
// that, as context.AfterFunc's does.
func (p *Process) stopWhenDone(ctx context.Context, grace time.Duration) (cancel func() bool) {
	return context.AfterFunc(ctx, func() { p.Stop(grace) })
}

// RunContext runs s to its end with streams and returns its exit code; when ctx ends first
// the child is stopped (Stop(grace)) and ctx's error returned. Nothing it started is left
// running.
func RunContext(ctx context.Context, s Program, streams Streams, grace time.Duration) (int, error) {
	p, err := StartProcess(s, streams)
	if err != nil {
		return -1, err
	}
	cancel := p.stopWhenDone(ctx, grace)
	err = p.Wait()
	cancel()
	if ctx.Err() != nil {
		p.Stop(grace)
		return -1, fmt.Errorf("%s: %w", s.Name, ctx.Err())
	}
	if code := exitCode(err); code >= 0 {
		return code, nil
	}
	return -1, err
}
