package plugins

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/hashicorp/go-plugin/runner"
)

// cmdRunner starts a plugin's command as a sandbox.Process for go-plugin; gem gives go-plugin
// a runner (RunnerFunc) so that go-plugin makes the plugin's socket folder where gem says
// (UnixSocketConfig.TempDir) and passes it to the plugin and to its own broker.
type cmdRunner struct {
	launcher    *launch.Launcher
	cmd         *exec.Cmd
	spec        sandbox.Program
	proc        *sandbox.Process // once started
	stdout      io.ReadCloser
	stderr      *eofReader
	stderrChild *os.File // the plugin's end, closed in gem once it started
}

var _ runner.Runner = (*cmdRunner)(nil)

func newCmdRunner(l *launch.Launcher, cmd *exec.Cmd, spec sandbox.Program) (*cmdRunner, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// stderr is a pipe of gem's own (exec's StderrPipe is closed by Wait, which can drop a
	// crashing plugin's last lines before go-plugin has read them): it ends when every
	// holder has closed it, and it says when (stderrRead).
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = w
	return &cmdRunner{launcher: l, cmd: cmd, spec: spec, stdout: stdout, stderr: &eofReader{r: r, done: make(chan struct{})}, stderrChild: w}, nil
}

func (r *cmdRunner) Start(context.Context) error {
	p, err := r.launcher.StartCommand(r.cmd, r.spec)
	r.stderrChild.Close()
	r.proc = p
	return err
}

// stderrRead is closed once everything the plugin wrote to stderr has been read (go-plugin
// has handed it to the tail).
func (r *cmdRunner) stderrRead() <-chan struct{} { return r.stderr.done }

// eofReader reads r and closes done at its end.
type eofReader struct {
	r    *os.File
	done chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.done) })
	}
	return n, err
}

func (e *eofReader) Close() error { return e.r.Close() }

func (r *cmdRunner) Wait(context.Context) error {
	if r.proc == nil {
		return errors.New("not started")
	}
	return r.proc.Wait()
}

func (r *cmdRunner) Stdout() io.ReadCloser           { return r.stdout }
func (r *cmdRunner) Stderr() io.ReadCloser           { return r.stderr }
func (r *cmdRunner) Name() string                    { return r.cmd.Path }
func (r *cmdRunner) Diagnose(context.Context) string { return "" }

// Kill ends the plugin's process group and cgroup (go-plugin calls it when a graceful
// shutdown did not end the plugin in time).
func (r *cmdRunner) Kill(context.Context) error {
	if r.proc != nil {
		r.proc.Kill()
	}
	return nil
}

func (r *cmdRunner) ID() string {
	if r.proc == nil {
		return ""
	}
	return strconv.Itoa(r.proc.Pid())
}

func (r *cmdRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *cmdRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
