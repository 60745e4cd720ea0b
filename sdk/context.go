package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/limits"
	"github.com/gemhost/gem/pluginsdk"
)

// SessionContext is what a tool, a hook or a dynamic instruction knows of the session it
// runs for, and its way to the workspace's files, to a shell under gem's rules and to the
// user. It is the call's context.Context: cancelled when the turn is (the program's ctx
// ending, breaking out of SendStream, an ACP client's session/cancel), carrying the turn's
// deadline, and carrying pluginsdk's host, so pluginsdk.Confirm, Logger, Log, Progress and
// Output work in a tool the agent runs as in the same tool served as a plugin or over MCP.
// Pass it to FS and Shell, and to whatever the tool waits on.
type SessionContext interface {
	context.Context
	// SessionID is the session's id; a subagent's calls have its parent's.
	SessionID() string
	Cwd() string // the workspace
	Timestamp() time.Time
	// Transcript is the conversation so far, one entry per message with text (a
	// subagent's calls see the subagent's own).
	Transcript() []Message
	// Agent is the agent the session belongs to, and Session the session: nil in a hook
	// run as a command (RunAsCommand).
	Agent() *Agent
	Session() *Session
	// FS reads and writes the workspace's files as gem's core tools do; Shell runs
	// commands as gem's sandboxed programs run.
	FS() FS
	Shell() Shell
	// Ask puts a question to the user through Options.Ask (as the model's ask_user does)
	// and waits for the answer; Confirm asks yes or no (title one line, details what
	// exactly happens). ErrNoAsk when no one can be asked. Served as a plugin, only yes/no
	// questions are asked (the host's confirmation); over MCP, by the client's elicitation.
	Ask(q Question) (Answer, error)
	Confirm(title, details string) (bool, error)
}

// Message is one message of a transcript.
type Message struct {
	Role string // user, model
	Text string
	// ToolCalls are a model message's calls, each with the output (or error) it got back.
	ToolCalls []ToolCall
}

// FS is the workspace's files, reached as gem's core tools reach them: a path is absolute
// inside the workspace or relative to it, and never leads out of it (no .., no link out); a
// write under a protected name (.git, .gemini, agents' and editors' configuration, .env…)
// or through a link is refused, and lands whole or not at all; each operation is decided by
// the policy as the core tool doing it (read_file, write_file, list_directory, glob) and
// audited, so a write in default mode goes to Options.Approve with its diff, and plan mode
// refuses it. Errors: *tools.PathError for a path refused, ErrDenied for the policy's no.
type FS interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
	// Glob is the absolute paths of the files whose workspace-relative path matches
	// pattern (** for any depth); .git and what .gitignore and .geminiignore ignore are
	// left out.
	Glob(ctx context.Context, pattern string) ([]string, error)
}

// Shell runs shell command lines (/bin/sh -c) in the workspace as gem runs a project's
// programs: decided by the policy as a run_shell_command call (asked about in default mode,
// refused in plan mode, audited), in the project's sandbox (the workspace writable, the
// home folder closed but for the toolchain the command starts, no network), in a process
// group of its own that ends with it.
type Shell interface {
	// Exec runs cmd to its end (or its timeout, or ctx's end: then it is killed).
	Exec(ctx context.Context, cmd string, opts ShellOptions) (*ShellResult, error)
	// Start starts cmd with its stdin and output streamed; ctx's end kills it.
	Start(ctx context.Context, cmd string, opts ShellOptions) (*Process, error)
}

// ShellOptions are a command's environment additions and time limit (0: none but ctx's).
type ShellOptions struct {
	Env     map[string]string
	Timeout time.Duration
}

// ShellResult is a finished command: its exit code, its output as it came (stdout and
// stderr interleaved) and each stream apart. A command killed at its timeout has
// TimedOut set and exit code -1.
type ShellResult struct {
	ExitCode       int
	Output         string
	Stdout, Stderr string
	TimedOut       bool
}

// Process is a started command: write to Stdin (close it to send EOF), read Stdout and
// Stderr until EOF, then Wait.
type Process struct {
	Stdin          io.WriteCloser
	Stdout, Stderr io.ReadCloser
	p              *sandbox.Process
}

// Wait waits for the command's end and returns its exit code.
func (p *Process) Wait() (int, error) {
	err := p.p.Wait()
	if _, exit := errors.AsType[*exec.ExitError](err); exit || err == nil {
		return p.p.ExitCode(), nil
	}
	return p.p.ExitCode(), err
}

// Kill ends the command and everything it started.
func (p *Process) Kill() { p.p.Stop(500 * time.Millisecond) }

// sessionContext is a SessionContext: of an agent's session, or (agent nil) of a hook run
// as a command or a tool served outside an agent.
type sessionContext struct {
	context.Context
	agent          *Agent
	session        *agent.Session // nil: none open, or a command hook
	id, cwd        string
	transcriptPath string
	at             time.Time
	ask            asker // nil: no one to ask
}

// withHost sets c's context: ctx, carrying c as the SessionContext of its calls and, in an
// agent, as pluginsdk's host.
func (c *sessionContext) withHost(ctx context.Context) *sessionContext {
	if c.agent != nil {
		ctx = pluginsdk.WithHost(ctx, sessionHost{c})
	}
	c.Context = context.WithValue(ctx, contextKey{}, c)
	return c
}

// contextOf is the SessionContext of a call in s (nil: no session), with the call's ctx.
func (a *Agent) contextOf(ctx context.Context, s *agent.Session) *sessionContext {
	c := &sessionContext{agent: a, session: s, cwd: a.env.Cwd, at: time.Now(), ask: a.opts.Ask}
	if s != nil {
		c.id, c.transcriptPath = s.ID, s.Path()
	}
	return c.withHost(ctx)
}

// inputContext is the SessionContext of a hook's input: the session it names.
func (a *Agent) inputContext(ctx context.Context, in HookInput) SessionContext {
	c := &sessionContext{agent: a, id: in.SessionID, cwd: a.env.Cwd, transcriptPath: in.TranscriptPath, at: time.Now(), ask: a.opts.Ask}
	if s := a.sessionByID(rootID(in.SessionID)); s != nil {
		c.session = s.conv.Session
	}
	return c.withHost(ctx)
}

// commandContext is the SessionContext of a hook run as a command.
func commandContext(ctx context.Context, in HookInput) *sessionContext {
	at, err := time.Parse(time.RFC3339Nano, in.Timestamp)
	if err != nil {
		at = time.Now()
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return (&sessionContext{id: in.SessionID, cwd: cwd, transcriptPath: in.TranscriptPath, at: at}).withHost(ctx)
}

// rootID is a session id without a subagent's part (gem names a subagent's conversation
// <session>/<agent>).
func rootID(id string) string {
	root, _, _ := strings.Cut(id, "/")
	return root
}

func (c *sessionContext) SessionID() string    { return rootID(c.id) }
func (c *sessionContext) Cwd() string          { return c.cwd }
func (c *sessionContext) Timestamp() time.Time { return c.at }
func (c *sessionContext) Agent() *Agent        { return c.agent }
func (c *sessionContext) Session() *Session {
	if c.agent == nil {
		return nil
	}
	return c.agent.sessionByID(rootID(c.id))
}

func (c *sessionContext) Ask(q Question) (Answer, error) { return ask(c, c.ask, q) }

func (c *sessionContext) Confirm(title, details string) (bool, error) {
	a, err := c.Ask(Question{Type: AskYesNo, Text: title, Details: details})
	return err == nil && a.Yes, err
}

func (c *sessionContext) Transcript() []Message {
	s := c.session
	if s == nil && c.transcriptPath != "" { // a command hook: the saved session
		if data, err := os.ReadFile(c.transcriptPath); err == nil {
			s = &agent.Session{}
			if json.Unmarshal(data, s) != nil {
				s = nil
			}
		}
	}
	return transcriptOf(s)
}

// transcriptOf is s's history as messages: the text of each, a model message's tool calls
// with the outputs the next message brought back.
func transcriptOf(s *agent.Session) []Message {
	if s == nil {
		return nil
	}
	var out []Message
	for _, m := range s.History {
		var msg Message
		for _, p := range m.Parts {
			switch {
			case p.FunctionCall != nil:
				args, _ := json.Marshal(p.FunctionCall.Args)
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: args})
			case p.FunctionResponse != nil && len(out) > 0:
				prev := out[len(out)-1].ToolCalls
				for i := range prev {
					if prev[i].ID == p.FunctionResponse.ID && prev[i].Name == p.FunctionResponse.Name && prev[i].Output == "" && prev[i].Err == nil {
						if e, ok := p.FunctionResponse.Response["error"]; ok {
							prev[i].Err = errors.New(fmt.Sprint(e))
						} else {
							prev[i].Output = fmt.Sprint(p.FunctionResponse.Response["output"])
						}
						break
					}
				}
			case !p.Thought:
				msg.Text += p.Text
			}
		}
		if msg.Text != "" || len(msg.ToolCalls) > 0 {
			msg.Role = m.Role
			out = append(out, msg)
		}
	}
	return out
}

func (c *sessionContext) FS() FS {
	if c.agent == nil || c.agent.catalog == nil {
		return commandFS{dir: c.cwd}
	}
	return agentFS{c.agent}
}

func (c *sessionContext) Shell() Shell {
	if c.agent == nil || c.agent.catalog == nil {
		return shell{dir: c.cwd}
	}
	return shell{a: c.agent, dir: c.agent.env.Cwd}
}

// agentFS is FS through the catalog's workspace files (tools.Files).
type agentFS struct{ a *Agent }

func (f agentFS) files() (*tools.Files, tools.CallOptions, error) {
	files, err := f.a.catalog.Files()
	return files, tools.CallOptions{Prompt: f.a.helperPrompter()}, err
}

func (f agentFS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	files, opts, err := f.files()
	if err != nil {
		return nil, err
	}
	return files.Read(ctx, path, opts)
}

func (f agentFS) WriteFile(ctx context.Context, path string, data []byte) error {
	files, opts, err := f.files()
	if err != nil {
		return err
	}
	return files.Write(ctx, path, data, opts)
}

func (f agentFS) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	files, opts, err := f.files()
	if err != nil {
		return nil, err
	}
	return files.List(ctx, path, opts)
}

func (f agentFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	files, opts, err := f.files()
	if err != nil {
		return nil, err
	}
	return files.Glob(ctx, pattern, opts)
}

// commandFS is FS in a hook run as a command: the workspace as an os.Root (nothing leads
// out of it); a write refused under a protected name or through a link, as the core tools
// refuse it (gem's sandbox around the hook holds the rest).
type commandFS struct{ dir string }

// open is the workspace's root and path relative to it.
func (f commandFS) open(path string) (*os.Root, string, error) {
	rel := filepath.Clean(path)
	if filepath.IsAbs(path) {
		r, err := filepath.Rel(f.dir, rel)
		if err != nil {
			return nil, "", fmt.Errorf("%s is outside the workspace %s", path, f.dir)
		}
		rel = r
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, "", fmt.Errorf("%s is outside the workspace %s", path, f.dir)
	}
	root, err := os.OpenRoot(f.dir)
	return root, rel, err
}

func (f commandFS) ReadFile(_ context.Context, path string) ([]byte, error) {
	root, rel, err := f.open(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(rel)
}

func (f commandFS) WriteFile(_ context.Context, path string, data []byte) error {
	root, rel, err := f.open(path)
	if err != nil {
		return err
	}
	defer root.Close()
	if name, protected := sandbox.ProtectedComponent(rel); protected {
		return fmt.Errorf("%s is protected (%s): not written", path, name)
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		if st, err := root.Lstat(filepath.Join(parts[:i+1]...)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is reached through the symbolic link %s: not written through links", path, filepath.Join(parts[:i+1]...))
		}
	}
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	tmp := rel + fmt.Sprintf(".gem-%d", os.Getpid())
	if err := root.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return root.Rename(tmp, rel) // whole or not at all
}

func (f commandFS) ReadDir(_ context.Context, path string) ([]fs.DirEntry, error) {
	root, rel, err := f.open(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return fs.ReadDir(root.FS(), filepath.ToSlash(rel))
}

func (f commandFS) Glob(_ context.Context, pattern string) ([]string, error) {
	root, _, err := f.open(".")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []string
	err = doublestar.GlobWalk(root.FS(), filepath.ToSlash(pattern), func(p string, d fs.DirEntry) error {
		if !d.IsDir() && !strings.HasPrefix(p, ".git/") && !strings.Contains(p, "/.git/") {
			out = append(out, filepath.Join(f.dir, filepath.FromSlash(p)))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// shell is Shell: with an agent, decided by its policy and run in the project's sandbox
// (commands.UserProgram); in a hook run as a command, run as it is (gem's sandbox around the
// hook holds it). Both run through gem's launcher (sandbox.Program).
type shell struct {
	a   *Agent
	dir string
}

// launcher is the agent's; in a hook run as a command, none (the program is started as
// prepared here, inside the hook's sandbox).
func (sh shell) launcher() *launch.Launcher {
	if sh.a == nil {
		return nil
	}
	return sh.a.launcher
}

func (sh shell) program(ctx context.Context, cmd string, opts ShellOptions) (sandbox.Program, error) {
	environ := os.Environ()
	var pol *sandbox.Policy
	if sh.a != nil {
		if err := sh.a.catalog.AuthorizeShell(ctx, "sdk", cmd, tools.CallOptions{Prompt: sh.a.helperPrompter()}); err != nil {
			return sandbox.Program{}, err
		}
		var err error
		environ, pol, err = sh.a.launcher.UserProgram("_sdk", cmd)
		if err != nil {
			return sandbox.Program{}, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(opts.Env)) {
		environ = append(environ, k+"="+opts.Env[k])
	}
	return sandbox.Program{Path: "/bin/sh", Args: []string{"-c", cmd}, Env: environ, Dir: sh.dir, Name: "shell: " + cmd, Policy: pol}, nil
}

// lockedWriter lets stdout and stderr write to one buffer in the order they came.
type lockedWriter struct {
	mu  *sync.Mutex
	all *limits.Buffer
	own *limits.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	return w.own.Write(p)
}

func (sh shell) Exec(ctx context.Context, cmd string, opts ShellOptions) (*ShellResult, error) {
	spec, err := sh.program(ctx, cmd, opts)
	if err != nil {
		return nil, err
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	var mu sync.Mutex
	all, stdout, stderr := &limits.Buffer{Max: limits.ShellOutput}, &limits.Buffer{Max: limits.ShellOutput}, &limits.Buffer{Max: limits.ShellOutput}
	code, err := sh.launcher().Run(ctx, launch.User, spec, sandbox.Streams{Stdout: lockedWriter{&mu, all, stdout}, Stderr: lockedWriter{&mu, all, stderr}})
	res := &ShellResult{ExitCode: code, Output: all.String(), Stdout: stdout.String(), Stderr: stderr.String()}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.ExitCode, res.TimedOut = -1, true
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("running %q: %w", cmd, err)
	}
	return res, nil
}

func (sh shell) Start(ctx context.Context, cmd string, opts ShellOptions) (*Process, error) {
	spec, err := sh.program(ctx, cmd, opts)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	p, err := sh.launcher().Start(spec, sandbox.Streams{Stdin: inR, StdinWriter: inW, Stdout: outW, Stderr: errW})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("starting %q: %w", cmd, err)
	}
	stopAt := ctx.Done()
	cancel := func() {}
	if opts.Timeout > 0 {
		var tctx context.Context
		tctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		stopAt = tctx.Done()
	}
	go func() { // ends with the process
		defer cancel()
		select {
		case <-stopAt:
			p.Stop(500 * time.Millisecond)
		case <-p.Done():
		}
	}()
	return &Process{Stdin: inW, Stdout: outR, Stderr: errR, p: p}, nil
}
