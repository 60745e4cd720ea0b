//go:build unix

// Package launch is the one way gem starts a program. Every child gem starts goes through a
// Launcher: `gem run` (exec in place), plugins, MCP servers (extensions', the user's settings
// servers, an ACP client's), skills' tools, hooks, prompt commands' `!{…}`, the shell's
// `/command`, the SDK's Shell, and gem's own tools over the workspace (ripgrep). host/sandbox
// does the work underneath (environment, Landlock, namespaces, the helper, supervision);
// nothing else in the module calls its start functions (internal/archtest checks).
//
// A Launcher is chosen by purpose — whose program it is — and the purpose decides, as data,
// how long a program asked to stop (its context ended) has before it is killed: an
// extension's or the user's program gets 500ms to flush and exit, ripgrep 200ms (its output
// is thrown away when it is stopped).
package launch

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/telemetry"
)

// Launcher starts programs for one purpose. Use the table's values: Extension, User, Tool.
type Launcher struct {
	purpose string
	grace   time.Duration // SIGTERM → SIGKILL when the program's context ends
}

// The launchers, one per purpose.
var (
	// Extension: a program an extension ships (a command, a plugin, an MCP server, a
	// skill's tool) or a server the user's settings or an ACP client name.
	Extension = Launcher{purpose: "extension", grace: 500 * time.Millisecond}
	// User: the user's own program: a hook, a prompt command's `!{…}`, the SDK's Shell.
	User = Launcher{purpose: "user", grace: 500 * time.Millisecond}
	// Tool: one of gem's own tools run over the workspace (ripgrep).
	Tool = Launcher{purpose: "tool", grace: 200 * time.Millisecond}
)

// Purpose names whose program l starts ("extension", "user", "tool").
func (l Launcher) Purpose() string { return l.purpose }

// Run runs p to its end with streams and returns its exit code; when ctx ends first, p is
// stopped (stdin closed, SIGTERM, then SIGKILL after the purpose's grace) and ctx's error
// returned. Nothing it started is left running.
func (l Launcher) Run(ctx context.Context, p sandbox.Program, streams sandbox.Streams) (int, error) {
	l.observe(ctx, p)
	return sandbox.RunContext(ctx, p, streams, l.grace)
}

// Start starts p as a supervised child with streams (a long-lived server, a background shell).
func (l Launcher) Start(p sandbox.Program, streams sandbox.Streams) (*sandbox.Process, error) {
	l.observe(context.Background(), p)
	return sandbox.StartProcess(p, streams)
}

// Foreground runs p in the foreground with the terminal's streams (the shell's `/command`):
// SIGINT and SIGTERM go to its group; it returns the exit code (128+n for signal n).
func (l Launcher) Foreground(p sandbox.Program, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	l.observe(context.Background(), p)
	return sandbox.Run(p, stdin, stdout, stderr)
}

// Exec replaces gem with p (`gem run`; telemetry is not told: nothing would be left to
// flush it): through p.Helper when one was prestarted
// (Prestart), else the helper or exec in place as the sandbox's plan says.
func (l Launcher) Exec(p sandbox.Program) error { return sandbox.ExecInPlace(p) }

// Command prepares p as a long-lived child whose exec.Cmd the caller must see before it
// starts (go-plugin's runner); StartCommand then supervises it.
func (l Launcher) Command(p sandbox.Program) (*exec.Cmd, error) {
	l.observe(context.Background(), p)
	return sandbox.Command(p)
}

// StartCommand starts and supervises cmd, made by Command for p.
func (l Launcher) StartCommand(cmd *exec.Cmd, p sandbox.Program) (*sandbox.Process, error) {
	return sandbox.StartCommand(cmd, p)
}

// observe tells telemetry, when it is on, what is started and how its sandbox plan starts it
// (host/telemetry: its extension, the executable's file name, never its arguments or
// environment).
func (l Launcher) observe(ctx context.Context, p sandbox.Program) {
	if !telemetry.On() {
		return
	}
	launch, refused, mechanisms := string(sandbox.LaunchUnsandboxed), false, []string(nil)
	if p.Policy != nil {
		plan := p.Plan(false)
		launch, refused, mechanisms = string(plan.Launch), plan.Refused != "", Mechanisms(plan)
	}
	_, span := telemetry.Start(ctx, telemetry.KindLaunch, telemetry.Attr{Key: telemetry.Purpose, Value: l.purpose},
		telemetry.Attr{Key: telemetry.Extension, Value: p.Extension}, telemetry.Attr{Key: telemetry.Program, Value: filepath.Base(p.Path)},
		telemetry.Attr{Key: telemetry.Launch, Value: launch}, telemetry.Attr{Key: telemetry.Refused, Value: refused},
		telemetry.Attr{Key: telemetry.Mechanisms, Value: mechanisms})
	span.End()
}

// Mechanisms are the mechanisms plan sets up, each once, in the order its lines name them.
func Mechanisms(plan sandbox.Plan) []string {
	var out []string
	for _, line := range plan.Lines {
		for _, m := range line.By {
			if !slices.Contains(out, string(m)) {
				out = append(out, string(m))
			}
		}
	}
	return out
}

// Prestart starts a sandbox helper ahead of the program `gem run` will Exec with gem's own
// streams (nil where programs run in place); the caller ends it with Discard when it runs
// nothing.
func Prestart(stdin io.Reader, stdout, stderr io.Writer) *sandbox.Prestarted {
	return sandbox.Prestart(stdin, stdout, stderr)
}
