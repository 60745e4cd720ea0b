package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gemhost/gem/internal/termsafe"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gemhost/gem/internal/limits"

	"github.com/urfave/cli/v2"
	"google.golang.org/genai"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry/secrets"
)

// agentOptions are the model flags of gem shell, and with the prompt those of gem -p.
type agentOptions struct {
	Prompt       string
	Model        string `flag:"model,m" usage:"the Gemini model (default: settings' model.name, else gem's default model)"`
	OutputFormat string `flag:"output-format,o" usage:"text, json or stream-json (with -p)"`
	Resume       string `flag:"resume" usage:"continue a saved session (an id from gem sessions, or latest)"`
	callFlags
}

func (o *agentOptions) setDefaults() {
	o.OutputFormat = "text" // the model: --model, else settings' model.name, else agent.DefaultModel
	o.callFlags.setDefaults()
}

// rootOptions are gem's own flags: -p and the model flags.
type rootOptions struct {
	Prompt string `flag:"prompt,p" usage:"send one prompt to the model and print its answer"`
	agentOptions
}

// agentSession is the model side of one CLI session.
type agentSession struct {
	s        *session
	reg      *tools.Catalog
	agent    *agent.Agent
	session  *agent.Session
	cmds     []*agent.PromptCommand
	expander agent.Expander
	hooks    *agent.Hooks
	files    []agent.ContextFile
	last     agent.Stats // the last turn's
	prompts  *[]mcpPrompt
}

// openAgent connects to the Gemini API and loads tools, context, hooks and commands.
func openAgent(ctx context.Context, s *session, services *tools.Services, o agentOptions) (*agentSession, error) {
	sent := make(chan struct{})
	client, err := geminiClient(ctx, s, sent)
	if err != nil {
		return nil, err
	}
	reg, err := s.openCatalog(ctx, services, o.callFlags, commands.Workspace(s.env))
	if err != nil {
		return nil, err
	}
	// MCP servers whose tool list is cached start in the background: the first request
	// does not wait for them (a call to one of their tools waits for that server alone).
	for _, err := range reg.Warm(ctx, sent) {
		s.warn("%s", errorText(err))
	}
	d := s.discover()
	hooks, errs := agent.LoadHooks(s.env, d, s.environ, secrets.Read, s.log)
	errs = append(errs, hooks.AddSettings(s.env, s.settings(), s.environ)...)
	cmds, cmdErrs := agent.PromptCommands(s.env, d)
	files, fileErrs := agent.ContextFiles(s.env, d, s.settings().ContextFiles...)
	skills := agent.EnabledSkills(agent.Skills(s.env, d), s.settings().DisabledSkills)
	subagents, subErrs := agent.Subagents(s.env, d)
	errs = append(errs, subErrs...)
	if s.settings().AgentsOff {
		subagents = nil // experimental.enableAgents: false
	}
	subagents = slices.DeleteFunc(subagents, func(sa *agent.Subagent) bool {
		if _, taken := reg.Lookup(sa.Name); taken {
			errs = append(errs, fmt.Errorf("%s: the agent name %s is a tool's name already: rename the agent", sa.Path, sa.Name))
			return true
		}
		return false
	})
	for _, sa := range subagents {
		unknown := sa.UnknownTools(func(name string) bool {
			_, ok := reg.Lookup(name)
			return ok || slices.ContainsFunc(subagents, func(o *agent.Subagent) bool { return o.Name == name })
		})
		if len(unknown) > 0 {
			errs = append(errs, fmt.Errorf("%s: tools %s: no such tool here, so the agent goes without (core tools, extension tools, mcp_* patterns and Claude Code's Bash, Read, Write, Edit, Grep, Glob are known)", sa.Path, strings.Join(unknown, ", ")))
		}
	}
	for _, e := range append(append(errs, cmdErrs...), fileErrs...) {
		s.warn("%s", errorText(e))
	}
	hooks.Warn = func(msg string) { s.warn("%s", msg) }
	hooks.Say = func(msg string) { fmt.Fprintln(s.stderr, msg) }
	a := &agentSession{s: s, reg: reg, cmds: cmds, hooks: hooks, files: files}
	if o.Model == "" {
		o.Model = cmp.Or(s.settings().Model, agent.DefaultModel)
	}
	a.agent = &agent.Agent{
		Client: client, Model: o.Model, Tools: reg, Hooks: hooks,
		System: agent.SystemInstruction(files, skills), Skills: skills,
		CompressAt: s.settings().CompressionThreshold, Subagents: subagents,
	}
	// GEM_MODEL_TOKEN_LIMIT: the input limit of a model gem does not know (or a small one,
	// to see compression at work).
	if n, err := strconv.Atoi(s.env.Getenv("GEM_MODEL_TOKEN_LIMIT")); err == nil && n > 0 {
		a.agent.TokenLimit = n
	}
	services.Notify = func(kind, message string, details map[string]any) {
		hooks.Run(ctx, "Notification", map[string]any{"session_id": a.session.ID, "transcript_path": a.session.Path(),
			"notification_type": kind, "message": message, "details": details})
	}
	a.expander = agent.Expander{Root: commands.Workspace(s.env), Shell: a.shellInjection}
	store := agent.Sessions{Dir: s.env.SessionsDir()}
	source := "startup"
	if o.Resume != "" {
		if a.session, err = store.Load(o.Resume); err != nil {
			reg.Close()
			return nil, err
		}
		source = "resume"
	} else {
		a.session = store.New(a.agent.Model)
	}
	a.startSession(ctx, source)
	return a, nil
}

// firstRequest closes sent when the client's first request goes out.
type firstRequest struct {
	base http.RoundTripper
	once *sync.Once
	sent chan struct{}
}

func (f firstRequest) RoundTrip(r *http.Request) (*http.Response, error) {
	f.once.Do(func() { close(f.sent) })
	return f.base.RoundTrip(r)
}

// geminiClient connects to the Gemini API with the user's key; sent (when not nil) closes
// as the first request goes out.
func geminiClient(ctx context.Context, s *session, sent chan struct{}) (*genai.Client, error) {
	key := s.env.Getenv("GEMINI_API_KEY")
	if key == "" {
		key = s.env.Getenv("GOOGLE_API_KEY")
	}
	if key == "" {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from Google AI Studio, e.g. export GEMINI_API_KEY=…")
	}
	cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
	if sent != nil {
		cfg.HTTPClient = &http.Client{Transport: firstRequest{base: http.DefaultTransport, once: &sync.Once{}, sent: sent}}
	}
	if base := s.env.Getenv("GEM_GEMINI_BASE_URL"); base != "" {
		cfg.HTTPOptions.BaseURL = base
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("the Gemini client: %w", err)
	}
	return client, nil
}

// startSession runs the SessionStart hooks (source: startup, resume or clear): their
// additionalContext goes with the next prompt.
func (a *agentSession) startSession(ctx context.Context, source string) {
	out := a.hooks.Run(ctx, "SessionStart", map[string]any{"transcript_path": a.session.Path(), "session_id": a.session.ID, "source": source})
	a.agent.NextContext = out.Context
}

// endSession runs the SessionEnd hooks (reason: exit or clear).
func (a *agentSession) endSession(reason string) {
	a.hooks.Run(context.Background(), "SessionEnd", map[string]any{"transcript_path": a.session.Path(), "session_id": a.session.ID, "reason": reason})
}

// newSession ends the conversation (SessionEnd) and starts a new one (SessionStart), as
// Gemini CLI's /clear does; active skills stay active.
func (a *agentSession) newSession() {
	a.endSession("clear")
	if len(a.session.History) > 0 {
		if err := a.session.Save(); err != nil {
			a.s.warn("saving the session: %v", err)
		}
	}
	a.session = agent.Sessions{Dir: a.s.env.SessionsDir()}.New(a.agent.Model)
	a.startSession(context.Background(), "clear")
}

func (a *agentSession) close() {
	a.endSession("exit")
	a.reg.Close()
}

// shellInjection runs a prompt command's !{…}: decided like run_shell_command, then run by
// /bin/sh in the project under the sandbox of the command's extension (or the project's).
func (a *agentSession) shellInjection(ctx context.Context, pc *agent.PromptCommand, command string) (string, int, error) {
	if err := a.reg.AuthorizeShell(ctx, pc.Extension, command, tools.CallOptions{}); err != nil {
		return "", 0, err
	}
	root := a.expander.Root
	var env []string
	var pol *sandbox.Policy
	if x := pc.ExtensionOf(); x != nil {
		// An extension's command runs with that extension's environment and sandbox.
		var err error
		if env, pol, err = commands.Program(a.s.env, x, commands.ProgramSpec{Root: root, Platform: manifest.HostPlatforms(a.s.env.Getenv)[0], Environ: a.s.environ, ReadSecrets: secrets.Read}); err != nil {
			return "", 0, fmt.Errorf("/%s: %w", pc.Name, err)
		}
	} else {
		// The user's and the project's commands: the project's sandbox, a folder of their own
		// (scripts the user's commands name under the home folder readable).
		var roots []string
		if pc.Source == "user" {
			roots = []string{a.s.env.Home}
		}
		var err error
		if env, pol, err = commands.UserProgram(a.s.env, root, "_prompt-commands", command, a.s.environ, roots...); err != nil {
			return "", 0, err
		}
	}
	out := &limits.Buffer{Max: limits.ShellOutput}
	spec := sandbox.Program{Path: "/bin/sh", Args: []string{"-c", command}, Env: env, Dir: root, Name: "!{" + command + "}", Policy: pol}
	code, err := sandbox.RunContext(ctx, spec, sandbox.Streams{Stdout: out, Stderr: out}, 500*time.Millisecond)
	if err != nil {
		return "", 0, err
	}
	return strings.TrimRight(out.String(), "\n"), code, nil
}

// command finds a prompt command for "/name args".
func (a *agentSession) command(input string) (*agent.PromptCommand, string) {
	if !strings.HasPrefix(input, "/") {
		return nil, ""
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	for _, pc := range a.cmds {
		if pc.Name == name {
			return pc, strings.TrimSpace(args)
		}
	}
	return nil, ""
}

// turn expands a prompt command if input is one, runs the turn and saves the session.
func (a *agentSession) turn(ctx context.Context, input string) (string, agent.Stats, error) {
	prompt := input
	if pc, args := a.command(input); pc != nil {
		p, err := a.expander.Expand(ctx, pc, args)
		if err != nil {
			return "", agent.Stats{}, err
		}
		prompt = p
	} else if mp, args := a.mcpPromptFor(ctx, input); mp != nil {
		p, err := mp.fill(ctx, a, args)
		if err != nil {
			return "", agent.Stats{}, err
		}
		prompt = p
	} else {
		var errs []error
		prompt, errs = a.expander.ExpandAtPaths(input) // @file and @folder of the project
		for _, e := range errs {
			a.s.warn("%s", errorText(e))
		}
	}
	if a.agent.Events.Compressed == nil {
		a.agent.Events.Compressed = func(trigger string, before, after int) {
			if trigger != "auto" {
				return // /compress says it itself
			}
			fmt.Fprintf(a.s.stderr, "(the conversation neared the model's input limit: %d messages compressed to %d)\n", before, after)
		}
	}
	text, st, err := a.agent.Turn(ctx, a.session, prompt)
	a.last = st
	if serr := a.session.Save(); serr != nil {
		a.s.warn("saving the session: %v", serr)
	}
	return text, st, err
}

// runPrompt is gem -p: one turn, printed as text, json or stream-json.
func runPrompt(f *Factory, o agentOptions) error {
	if o.OutputFormat != "text" && o.OutputFormat != "json" && o.OutputFormat != "stream-json" {
		return usagef("--output-format %q: use text, json or stream-json", o.OutputFormat)
	}
	s, err := f.Session()
	if err != nil {
		return promptFailure(f.IO.Out, o.OutputFormat, err)
	}
	out := &countingWriter{w: s.stdout}
	s.stdout = out
	err = runCancellable(context.Background(), func(ctx context.Context) error {
		a, err := openAgent(ctx, s, s.cliServices(o.Yes), o)
		if err != nil {
			return err
		}
		defer a.close()
		prompt := o.Prompt
		if !s.io.IsStdinTTY() {
			if data, _ := io.ReadAll(io.LimitReader(s.io.In, 8<<20)); len(bytes.TrimSpace(data)) > 0 {
				prompt = strings.TrimSpace(string(data)) + "\n\n" + prompt
			}
		}
		po := promptOutput{s: s, format: o.OutputFormat, enc: newJSONEncoder(s.stdout, true)}
		a.agent.Events = po.events(a, prompt)
		text, st, err := a.turn(ctx, prompt)
		return po.finish(a, text, st, err)
	})
	if out.n > 0 {
		return err // the output format carried the failure
	}
	return promptFailure(out, o.OutputFormat, err)
}

// promptFailure reports a gem -p that failed before it printed anything in its output
// format: json gets {"error": {...}}, stream-json a result event with status error.
func promptFailure(w io.Writer, format string, err error) error {
	if err == nil {
		return nil
	}
	switch format {
	case "json":
		newJSONEncoder(w, false).Encode(errorJSON(err))
	case "stream-json":
		newJSONEncoder(w, true).Encode(map[string]any{"type": "result", "status": "error", "error": errorJSON(err).Error})
	}
	return err
}

// promptOutput prints one gem -p turn in its output format.
type promptOutput struct {
	s      *session
	format string
	enc    *json.Encoder
}

func (p promptOutput) emit(v map[string]any) {
	v["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	p.enc.Encode(v)
}

// events are the turn's callbacks: text streams to stdout and tool calls to stderr
// (text), or everything as JSON lines (stream-json); json prints only at the end.
func (p promptOutput) events(a *agentSession, prompt string) agent.Events {
	switch p.format {
	case "text":
		return textEvents(p.s)
	case "stream-json":
		p.emit(map[string]any{"type": "init", "session_id": a.session.ID, "model": a.agent.Model})
		p.emit(map[string]any{"type": "message", "role": "user", "content": prompt})
		return agent.Events{
			Text: func(d string) {
				p.emit(map[string]any{"type": "message", "role": "assistant", "content": d, "delta": true})
			},
			ToolCall: func(id, name string, args json.RawMessage) {
				p.emit(map[string]any{"type": "tool_use", "tool_name": name, "tool_id": id, "parameters": args})
			},
			ToolResult: func(id, name string, res *tools.Result, err error) {
				ev := map[string]any{"type": "tool_result", "tool_id": id, "tool_name": name, "status": "success"}
				switch {
				case err != nil:
					ev["status"], ev["error"] = "error", err.Error()
				case res.Error != nil:
					ev["status"], ev["error"], ev["output"] = "error", res.Error.Summary(), res.Text
				default:
					ev["output"] = res.Text
				}
				p.emit(ev)
			},
		}
	}
	return agent.Events{}
}

// textEvents print the model's text on stdout and each tool call on stderr.
func textEvents(s *session) agent.Events {
	midLine := false // text of a step that a tool call follows ends its line
	return agent.Events{
		Text: func(d string) {
			if s.io.IsStdoutTTY() {
				d = termsafe.Text(d) // the model's text acts on no terminal (escapes shown)
			}
			fmt.Fprint(s.stdout, d)
			midLine = !strings.HasSuffix(d, "\n")
		},
		ToolCall: func(_, name string, args json.RawMessage) {
			if midLine {
				fmt.Fprintln(s.stdout)
				midLine = false
			}
			fmt.Fprintf(s.stderr, "→ %s %s\n", name, termsafe.Cell(string(args)))
		},
		ToolResult: func(_, name string, res *tools.Result, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(s.stderr, "← %s failed: %v\n", name, err)
			case res.Error != nil:
				fmt.Fprintf(s.stderr, "← %s: %s: %s\n", name, res.Error.Type, termsafe.Cell(res.Error.Message))
			default:
				fmt.Fprintf(s.stderr, "← %s: %s\n", name, termsafe.Cell(firstLine(res.DisplayText())))
			}
		},
	}
}

// finish prints the end of the turn: the answer's last newline, the json document, or the
// stream-json result line.
func (p promptOutput) finish(a *agentSession, text string, st agent.Stats, err error) error {
	stats := map[string]any{"requests": st.Requests, "tool_calls": st.ToolCalls, "failed_tool_calls": st.Failed, "tool_time_ms": st.ToolTime.Milliseconds(),
		"input_tokens": st.Tokens.Prompt, "output_tokens": st.Tokens.Output, "cached_tokens": st.Tokens.Cached, "thoughts_tokens": st.Tokens.Thoughts, "total_tokens": st.Tokens.Total}
	switch p.format {
	case "text":
		if text != "" && !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(p.s.stdout)
		}
		return err
	case "json":
		out := map[string]any{"transcript_path": a.session.Path(), "session_id": a.session.ID, "response": text, "stats": stats}
		if err != nil {
			out["error"] = map[string]any{"message": err.Error()}
		}
		if perr := printJSON(p.s, out); perr != nil {
			return perr
		}
	default:
		ev := map[string]any{"type": "result", "status": "success", "stats": stats}
		if err != nil {
			ev["status"], ev["error"] = "error", err.Error()
		}
		p.emit(ev)
	}
	if err != nil {
		return exitError{code: 1}
	}
	return nil
}

type sessionsOptions struct {
	jsonOutput
}

func sessionsCommand(f *Factory) *cli.Command {
	return verb(f, "sessions", "list saved model sessions (resume one with gem --resume <id> -p … or gem shell --resume <id>)", listSessions,
		"gem sessions", `gem --resume latest -p "and now?"`)
}

type sessionRow struct {
	ID       string    `json:"id"`
	Model    string    `json:"model"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	First    string    `json:"first"`
}

func listSessions(_ context.Context, s *session, o sessionsOptions) error {
	list, err := agent.Sessions{Dir: s.env.SessionsDir()}.List()
	if err != nil {
		return err
	}
	rows := []sessionRow{}
	for _, ss := range list {
		first := ""
		if len(ss.History) > 0 && len(ss.History[0].Parts) > 0 {
			first = ss.History[0].Parts[0].Text
			if len(first) > 60 {
				first = first[:60] + "…"
			}
		}
		rows = append(rows, sessionRow{ss.ID, ss.Model, ss.Updated, len(ss.History), strings.ReplaceAll(first, "\n", " ")})
	}
	return render(s, o.JSON, rows, func() error {
		if len(rows) == 0 {
			fmt.Fprintln(s.stdout, "No saved sessions: gem -p and gem shell save each conversation (resume one with --resume).")
		}
		for _, x := range rows {
			fmt.Fprintf(s.stdout, "%s  %s  %3d messages  %s\n", x.ID, x.Updated.Local().Format("2006-01-02 15:04"), x.Messages, x.First)
		}
		return nil
	})
}

// firstLine is the start of a tool's output for a progress line.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, rest, _ := strings.Cut(s, "\n")
	if len(line) > 100 {
		line = line[:100] + "…"
	} else if rest != "" {
		line += " …"
	}
	return line
}
