//go:build unix

// Package launch is the one way gem starts a program. A gem session (a CLI invocation, an
// sdk.Agent, an ACP session) makes one Launcher (New) and passes it down; every child gem
// starts goes through it: `gem run` (exec in place), plugins, MCP servers (extensions', the
// user's settings servers, an ACP client's), skills' tools, hooks, prompt commands' `!{…}`,
// the shell's `/command`, the SDK's Shell, and gem's own tools over the workspace (ripgrep).
//
// The Launcher holds what is the same for every program of the session: the workspace (its
// real path, worked out once: host/commands.Workspace), the machine's facts (probed once:
// sandbox.ProbeFacts), gem's folders and the consent and grants read through the session's
// registry.Env, the host's environment and the reader of sealed settings. It prepares a
// program (its environment and sandbox policy: Program, UserProgram, Isolation, Prepare) and
// starts it (Run, Start, Foreground, Exec, Command). host/sandbox does the work underneath
// (environment, Landlock, namespaces, the helper, supervision); nothing else in the module
// calls its start functions, and nothing else works out the workspace for a program
// (internal/archtest checks both).
//
// Whose program it is — its Purpose — decides, as data, how long a program asked to stop (its
// context ended) has before it is killed: an extension's or the user's program gets 500ms to
// flush and exit, ripgrep 200ms (its output is thrown away when it is stopped).
package launch

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// Purpose is whose program is started.
type Purpose int

const (
	// Extension: a program an extension ships (a command, a plugin, an MCP server, a
	// skill's tool) or a server the user's settings or an ACP client name.
	Extension Purpose = iota
	// User: the user's own program: a hook, a prompt command's `!{…}`, the SDK's Shell.
	User
	// Tool: one of gem's own tools run over the workspace (ripgrep).
	Tool
)

// purposes is each purpose's name and grace (SIGTERM → SIGKILL when its context ends).
var purposes = [...]struct {
	name  string
	grace time.Duration
}{
	Extension: {"extension", 500 * time.Millisecond},
	User:      {"user", 500 * time.Millisecond},
	Tool:      {"tool", 200 * time.Millisecond},
}

// String names the purpose ("extension", "user", "tool").
func (p Purpose) String() string { return purposes[p].name }

// grace is how long a program of this purpose has to exit once asked to stop.
func (p Purpose) grace() time.Duration { return purposes[p].grace }

// Options are what a session's Launcher is made from.
type Options struct {
	Env         registry.Env          // the session's folders, settings, consent and grants
	Environ     []string              // the host's environment, sanitised for each program
	ReadSecrets registry.SecretReader // decrypts sealed settings; nil: an extension with some is refused
}

// Launcher prepares and starts the programs of one session. Its zero value (and nil) starts
// programs prepared elsewhere (tests of the layers below); New makes one that prepares them.
type Launcher struct {
	env         registry.Env
	environ     []string
	readSecrets registry.SecretReader
	workspace   string
	facts       sandbox.Facts
}

// New makes the session's Launcher: the workspace worked out and the machine probed, once.
func New(o Options) *Launcher {
	return &Launcher{env: o.Env, environ: o.Environ, readSecrets: o.ReadSecrets,
		workspace: commands.Workspace(o.Env), facts: sandbox.ProbeFacts()}
}

// Workspace is the session's project folder (its real path): what its programs may write
// with the workspace capability, where they run, what trust is decided on.
func (l *Launcher) Workspace() string { return l.workspace }

// Facts are the machine's facts the session's plans are made from.
func (l *Launcher) Facts() sandbox.Facts { return l.facts }

// Environ is the host's environment the session's programs start from.
func (l *Launcher) Environ() []string { return l.environ }

// Program is the environment and policy of one of x's programs (s names which; its Root,
// Environ and ReadSecrets are the session's): host/commands.Program.
func (l *Launcher) Program(x *registry.Extension, s commands.ProgramSpec) ([]string, *sandbox.Policy, error) {
	s.Root, s.Environ, s.ReadSecrets, s.Facts = l.workspace, l.environ, l.readSecrets, &l.facts
	if s.Platform == (manifest.Platform{}) {
		s.Platform = l.Platform()
	}
	return commands.Program(l.env, x, s)
}

// Platform is the host's platform as manifests name it (linux-x64, darwin-arm64…).
func (l *Launcher) Platform() manifest.Platform { return manifest.HostPlatforms(l.env.Getenv)[0] }

// Isolation is the policy of one of x's programs (for platform p) without its environment
// (what a remote MCP server gem connects to for x may reach): host/commands.Isolation.
func (l *Launcher) Isolation(x *registry.Extension, p manifest.Platform, plugin string) (*sandbox.Policy, error) {
	return commands.Isolation(l.env, x, l.workspace, p, plugin)
}

// UserProgram is the environment and policy of a command line the user wrote (a hook of their
// settings, a `!{…}` of their prompt command, a skill's tool), with a private folder named
// folder: host/commands.UserProgram.
func (l *Launcher) UserProgram(folder, commandLine string, scriptRoots ...string) ([]string, *sandbox.Policy, error) {
	return commands.UserProgram(l.env, l.workspace, folder, commandLine, l.environ, scriptRoots...)
}

// Prepare resolves the extension command name in t and prepares it with args
// (host/commands.Prepare).
func (l *Launcher) Prepare(t *commands.Table, name string, args []string) (*commands.Prepared, error) {
	return commands.Prepare(l.env, l.workspace, t, name, args, l.environ, l.readSecrets)
}

// Explain is the plan of one of x's programs on this machine (gem sandbox explain), prepared
// as Program prepares it: host/commands.ExplainProgram.
func (l *Launcher) Explain(x *registry.Extension, name string) (sandbox.Plan, error) {
	return commands.ExplainProgram(l.env, x, name, commands.ProgramSpec{Root: l.workspace, Environ: l.environ, Facts: &l.facts})
}

// RunCommand serves `gem run`: prepares ra's command in t, vets its extension with check
// (when not nil), asks ask when it wants confirmation, and replaces gem with it. It returns
// only on error.
func (l *Launcher) RunCommand(t *commands.Table, ra commands.RunArgs, ask prompt.Prompter, check func(*registry.Extension) error) error {
	p, err := commands.PrepareRun(l.env, l.workspace, t, l.environ, ra, ask, check, l.readSecrets)
	if err != nil {
		return err
	}
	return l.Exec(p.Spec)
}

// Run runs p to its end with streams and returns its exit code; when ctx ends first, p is
// stopped (stdin closed, SIGTERM, then SIGKILL after purpose's grace) and ctx's error
// returned. Nothing it started is left running.
func (l *Launcher) Run(ctx context.Context, purpose Purpose, p sandbox.Program, streams sandbox.Streams) (int, error) {
	observe(ctx, purpose.String(), p)
	return sandbox.RunContext(ctx, p, streams, purpose.grace())
}

// Start starts p as a supervised child with streams (a long-lived server, a background shell).
func (l *Launcher) Start(p sandbox.Program, streams sandbox.Streams) (*sandbox.Process, error) {
	observe(context.Background(), "", p)
	return sandbox.StartProcess(p, streams)
}

// Foreground runs p in the foreground with the terminal's streams (the shell's `/command`):
// SIGINT and SIGTERM go to its group; it returns the exit code (128+n for signal n).
func (l *Launcher) Foreground(p sandbox.Program, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	observe(context.Background(), "", p)
	return sandbox.Run(p, stdin, stdout, stderr)
}

// Exec replaces gem with p (`gem run`): through p.Helper when one was prestarted
// (Prestart), else the helper or exec in place as the sandbox's plan says.
func (l *Launcher) Exec(p sandbox.Program) error { return sandbox.ExecInPlace(p) }

// Command prepares p as a long-lived child whose exec.Cmd the caller must see before it
// starts (go-plugin's runner); StartCommand then supervises it.
func (l *Launcher) Command(p sandbox.Program) (*exec.Cmd, error) {
	observe(context.Background(), "", p)
	return sandbox.Command(p)
}

// StartCommand starts and supervises cmd, made by Command for p.
func (l *Launcher) StartCommand(cmd *exec.Cmd, p sandbox.Program) (*sandbox.Process, error) {
	return sandbox.StartCommand(cmd, p)
}

// observe tells telemetry, when it is on, what is started and how its sandbox plan starts it
// (host/telemetry: its purpose when the caller says it, its extension, the executable's file
// name, never its arguments or environment). Exec tells nothing: nothing would be left to
// flush it.
func observe(ctx context.Context, purpose string, p sandbox.Program) {
	if !telemetry.On() {
		return
	}
	launch, refused, mechanisms := string(sandbox.LaunchUnsandboxed), false, []string(nil)
	if p.Policy != nil {
		plan := p.Plan(false)
		launch, refused, mechanisms = string(plan.Launch), plan.Refused != "", mechanismsOf(plan)
	}
	attrs := []telemetry.Attr{{Key: telemetry.Extension, Value: p.Extension}, {Key: telemetry.Program, Value: filepath.Base(p.Path)},
		{Key: telemetry.Launch, Value: launch}, {Key: telemetry.Refused, Value: refused}, {Key: telemetry.Mechanisms, Value: mechanisms}}
	if purpose != "" {
		attrs = append(attrs, telemetry.Attr{Key: telemetry.Purpose, Value: purpose})
	}
	_, span := telemetry.Start(ctx, telemetry.KindLaunch, attrs...)
	span.End()
}

// mechanismsOf are the mechanisms plan sets up, each once, in the order its lines name them.
func mechanismsOf(plan sandbox.Plan) []string {
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
// streams (nil where programs run in place), before the session's Launcher is made (its
// start is most of what `gem run` costs over a bare exec); the caller ends it with Discard
// when it runs nothing.
func Prestart(stdin io.Reader, stdout, stderr io.Writer) *sandbox.Prestarted {
	return sandbox.Prestart(stdin, stdout, stderr)
}
