package plugins

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/hashicorp/go-plugin/runner"
)

// cmdRunner starts a plugin's command as go-plugin's own runner does; gem gives go-plugin a
// runner (RunnerFunc) so that go-plugin makes the plugin's socket folder where gem says
// (UnixSocketConfig.TempDir) and passes it to the plugin and to its own broker.
type cmdRunner struct {
	cmd            *exec.Cmd
	stdout, stderr io.ReadCloser
}

var _ runner.Runner = (*cmdRunner)(nil)

func newCmdRunner(cmd *exec.Cmd) (*cmdRunner, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &cmdRunner{cmd: cmd, stdout: stdout, stderr: stderr}, nil
}

func (r *cmdRunner) Start(context.Context) error     { return r.cmd.Start() }
func (r *cmdRunner) Wait(context.Context) error      { return r.cmd.Wait() }
func (r *cmdRunner) Stdout() io.ReadCloser           { return r.stdout }
func (r *cmdRunner) Stderr() io.ReadCloser           { return r.stderr }
func (r *cmdRunner) Name() string                    { return r.cmd.Path }
func (r *cmdRunner) Diagnose(context.Context) string { return "" }

func (r *cmdRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func (r *cmdRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *cmdRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *cmdRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
