package plugins

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/hashicorp/go-plugin/runner"
)

// cmdRunner starts a plugin's command as a sandbox.Process for go-plugin; gem gives go-plugin
// a runner (RunnerFunc) so that go-plugin makes the plugin's socket folder where gem says
// (UnixSocketConfig.TempDir) and passes it to the plugin and to its own broker.
type cmdRunner struct {
	cmd            *exec.Cmd
	spec           sandbox.Program
	proc           *sandbox.Process // once started
	stdout, stderr io.ReadCloser
}

var _ runner.Runner = (*cmdRunner)(nil)

func newCmdRunner(cmd *exec.Cmd, spec sandbox.Program) (*cmdRunner, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &cmdRunner{cmd: cmd, spec: spec, stdout: stdout, stderr: stderr}, nil
}

func (r *cmdRunner) Start(context.Context) error {
	p, err := sandbox.StartCommand(r.cmd, r.spec)
	r.proc = p
	return err
}

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
