// Command shell-tools is a gem tool plugin: run_shell_command, send_input, jobs and kill over
// real pseudo-terminals, so a model can drive interactive programs (see package shell).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/sample-extensions/shell-tools/shell"
)

type runArgs struct {
	Command           string  `json:"command" jsonschema:"the command line to run, as with sh -c"`
	Description       string  `json:"description,omitempty" jsonschema:"optional: what the command does, in a few words (Gemini CLI's; shown to the user)"`
	DirPath           string  `json:"dir_path,omitempty" jsonschema:"directory to run in (default: the workspace)"`
	IsBackground      bool    `json:"is_background,omitempty" jsonschema:"optional: start it and return its handle at once; it keeps running (jobs, send_input and kill reach it)"`
	AICallbackPattern string  `json:"ai_callback_pattern,omitempty" jsonschema:"regular expression: return as soon as the output since the start matches it (e.g. a prompt)"`
	AICallbackDelay   float64 `json:"ai_callback_delay,omitempty" jsonschema:"without a pattern, seconds to wait for the command before returning what it printed (default 5)"`
	MaxOutputSize     int     `json:"max_output_size,omitempty" jsonschema:"bytes of output kept and returned, the latest (default 16384)"`
	PatternTimeout    float64 `json:"pattern_timeout,omitempty" jsonschema:"with a pattern, seconds to wait for it before returning (default 30)"`
}

type inputArgs struct {
	Handle            int     `json:"handle" jsonschema:"the job's handle from run_shell_command"`
	Input             string  `json:"input" jsonschema:"text to type into the job's terminal"`
	AppendNewline     *bool   `json:"append_newline,omitempty" jsonschema:"press Enter after the input (default true)"`
	AICallbackDelay   float64 `json:"ai_callback_delay,omitempty" jsonschema:"without a pattern, seconds to wait for output before returning (default 3)"`
	AICallbackPattern string  `json:"ai_callback_pattern,omitempty" jsonschema:"regular expression: return as soon as the output since the input matches it"`
	PatternTimeout    float64 `json:"pattern_timeout,omitempty" jsonschema:"with a pattern, seconds to wait for it (default 30)"`
}

type killArgs struct {
	Handle int `json:"handle" jsonschema:"the job's handle"`
}

var manager *shell.Manager

func main() {
	m, err := shell.NewManager(shell.IODir(os.Getenv), os.Environ())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	manager = m
	pluginsdk.Serve(pluginsdk.Plugin{
		Name: "shell",
		Tools: []pluginsdk.Tool{
			pluginsdk.NewTool("run_shell_command", "Run a shell command on a pseudo-terminal and return a handle with its output so far: when it exits, when ai_callback_pattern matches, or after ai_callback_delay seconds. Interactive programs keep running; talk to them with send_input.", pluginsdk.KindExecute, runShell),
			pluginsdk.NewTool("send_input", "Type input into a running job's terminal and return the output produced since.", pluginsdk.KindExecute, sendInput),
			pluginsdk.NewTool("jobs", "List this session's jobs: handle, command, duration, status, pid.", pluginsdk.KindRead, listJobs),
			pluginsdk.NewTool("kill", "Stop a job: SIGTERM to its process group, SIGKILL after 2 s. A job that already ended is not an error.", pluginsdk.KindExecute, killJob),
		},
		OnShutdown: m.Shutdown,
		MaxProcs:   1, // its tools wait on terminals: one P gives the quickest round trip
	})
}

func seconds(v float64, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return time.Duration(v * float64(time.Second))
}

func compile(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, &pluginsdk.ToolError{Type: "invalid_arguments", Message: fmt.Sprintf("ai_callback_pattern %q is not a regular expression: %v", pattern, err)}
	}
	return re, nil
}

func waitTime(re *regexp.Regexp, delay, patternTimeout float64, defDelay time.Duration) time.Duration {
	if re != nil {
		return seconds(patternTimeout, shell.DefaultPatternTimeout)
	}
	return seconds(delay, defDelay)
}

func runShell(ctx context.Context, a runArgs) (pluginsdk.Result, error) {
	re, err := compile(a.AICallbackPattern)
	if err != nil {
		return pluginsdk.Result{}, err
	}
	dir, ws := a.DirPath, os.Getenv("GEM_WORKSPACE")
	switch {
	case dir == "":
		dir = ws
	case !filepath.IsAbs(dir) && ws != "":
		dir = filepath.Join(ws, dir) // relative to the workspace, as in Gemini CLI
	}
	j, err := manager.Start(a.Command, dir, a.MaxOutputSize)
	if err != nil {
		return pluginsdk.Result{}, &pluginsdk.ToolError{Type: "execution", Message: err.Error()}
	}
	wait := waitTime(re, a.AICallbackDelay, a.PatternTimeout, shell.DefaultRunDelay)
	if a.IsBackground && re == nil {
		wait = backgroundWait // what it prints first, then it runs on
	}
	s := j.Wait(0, re, wait, ctx.Done())
	if ctx.Err() != nil {
		// The call was cancelled (the user stopped the turn) before it answered: nobody
		// holds the job's handle, so it is stopped with its process group, as a
		// terminal's Ctrl-C stops the command it runs.
		j.Kill(shell.KillGrace)
		return pluginsdk.Result{}, ctx.Err()
	}
	return result(s), nil
}

// backgroundWait is how long run_shell_command waits for a command started with
// is_background before returning its handle.
const backgroundWait = 200 * time.Millisecond

func sendInput(ctx context.Context, a inputArgs) (pluginsdk.Result, error) {
	re, err := compile(a.AICallbackPattern)
	if err != nil {
		return pluginsdk.Result{}, err
	}
	j, err := manager.Get(a.Handle)
	if err != nil {
		return pluginsdk.Result{}, &pluginsdk.ToolError{Type: "not_found", Message: err.Error()}
	}
	input := a.Input
	if a.AppendNewline == nil || *a.AppendNewline {
		input += "\n"
	}
	offset := j.Offset()
	if err := j.Send(input); err != nil {
		return pluginsdk.Result{}, &pluginsdk.ToolError{Type: "execution", Message: err.Error()}
	}
	s := j.Wait(offset, re, waitTime(re, a.AICallbackDelay, a.PatternTimeout, shell.DefaultInputDelay), ctx.Done())
	return result(s), nil
}

func listJobs(ctx context.Context, _ struct{}) (pluginsdk.Result, error) {
	var b strings.Builder
	snaps := []shell.Snapshot{}
	for _, j := range manager.Jobs() {
		s := j.Snapshot()
		snaps = append(snaps, s)
		fmt.Fprintf(&b, "%d\t%s\t%.1fs\tpid %d\t%s\n", s.Handle, status(s), s.Duration, s.Pid, s.Command)
	}
	if len(snaps) == 0 {
		b.WriteString("no jobs in this session\n")
	}
	return pluginsdk.Result{Text: b.String(), Structured: map[string]any{"session": manager.Session, "jobs": snaps}}, nil
}

func killJob(ctx context.Context, a killArgs) (pluginsdk.Result, error) {
	j, err := manager.Get(a.Handle)
	if err != nil {
		if errors.Is(err, shell.ErrNoJob) {
			return pluginsdk.Result{}, &pluginsdk.ToolError{Type: "not_found", Message: err.Error()}
		}
		return pluginsdk.Result{}, err
	}
	wasRunning := j.Kill(shell.KillGrace)
	s := j.Snapshot()
	text := fmt.Sprintf("job %d (%s) stopped: %s", s.Handle, s.Command, status(s))
	if !wasRunning {
		text = fmt.Sprintf("job %d (%s) had already ended: %s", s.Handle, s.Command, status(s))
	}
	return pluginsdk.Result{Text: text, Structured: s}, nil
}

func status(s shell.Snapshot) string {
	switch {
	case s.Status == "killed":
		return "killed (" + s.Signal + ")"
	case s.ExitCode != nil:
		return fmt.Sprintf("exited (code %d)", *s.ExitCode)
	}
	return s.Status
}

// result is the model's text (output then a status line) and the structured snapshot.
func result(s shell.Snapshot) pluginsdk.Result {
	var b strings.Builder
	if s.Dropped > 0 {
		fmt.Fprintf(&b, "[%d earlier bytes dropped; max_output_size keeps the latest]\n", s.Dropped)
	}
	b.WriteString(s.Output)
	if s.Output != "" && !strings.HasSuffix(s.Output, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "[handle %d, pid %d, %s", s.Handle, s.Pid, status(s))
	if s.TimedOut {
		b.WriteString(", pattern not seen before pattern_timeout")
	}
	b.WriteString("]")
	return pluginsdk.Result{Text: b.String(), Structured: s}
}
