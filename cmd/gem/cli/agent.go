package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gemhost/gem/internal/limits"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"google.golang.org/genai"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/registry/secrets"
)

// agentFlags are the model flags of gem -p and gem shell.
var agentFlags = []cli.Flag{
	&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "send one prompt to the model and print its answer"},
	&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Value: agent.DefaultModel, Usage: "the Gemini model"},
	&cli.StringFlag{Name: "output-format", Aliases: []string{"o"}, Value: "text", Usage: "text, json or stream-json (with -p)"},
	&cli.StringFlag{Name: "resume", Usage: "continue a saved session (an id from gem sessions, or latest)"},
	&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve what the policy asks about"},
	&cli.DurationFlag{Name: "timeout", Usage: "per-tool-call time limit (default 10m)"},
	approvalModeFlag,
}

// agentSession is the model side of one CLI session.
type agentSession struct {
	r        *runtime
	reg      *tools.Registry
	agent    *agent.Agent
	session  *agent.Session
	cmds     []*agent.PromptCommand
	expander agent.Expander
	hooks    *agent.Hooks
}

// openAgent connects to the Gemini API and loads tools, context, hooks and commands.
func openAgent(c *cli.Context, r *runtime, services *tools.Services) (*agentSession, error) {
	key := r.env.Getenv("GEMINI_API_KEY")
	if key == "" {
		key = r.env.Getenv("GOOGLE_API_KEY")
	}
	if key == "" {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from Google AI Studio, e.g. export GEMINI_API_KEY=…")
	}
	cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
	if base := r.env.Getenv("GEM_GEMINI_BASE_URL"); base != "" {
		cfg.HTTPOptions.BaseURL = base
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("the Gemini client: %w", err)
	}
	reg, err := loadRegistry(c, r, services)
	if err != nil {
		return nil, err
	}
	startMCP(c, r, reg)
	d := r.discover()
	hooks, errs := agent.LoadHooks(r.env, d, os.Environ(), secrets.Read, r.log)
	for _, e := range errs {
		r.warn("%v", e)
	}
	hooks.Warn = func(msg string) { r.warn("%s", msg) }
	cmds, errs := agent.PromptCommands(r.env, d)
	for _, e := range errs {
		r.warn("%v", e)
	}
	files, errs := agent.ContextFiles(r.env, d)
	for _, e := range errs {
		r.warn("%v", e)
	}
	a := &agentSession{r: r, reg: reg, cmds: cmds, hooks: hooks}
	a.agent = &agent.Agent{
		Client: client, Model: c.String("model"), Registry: reg, Hooks: hooks,
		System: agent.SystemInstruction(files, agent.Skills(d)),
	}
	root := commands.Workspace(r.env)
	a.expander = agent.Expander{Root: root, Shell: a.shellInjection}
	store := agent.Sessions{Dir: r.env.SessionsDir()}
	if id := c.String("resume"); id != "" {
		if a.session, err = store.Load(id); err != nil {
			reg.Close()
			return nil, err
		}
	} else {
		a.session = store.New(a.agent.Model)
	}
	hooks.Run(ctx, "SessionStart", map[string]any{"session_id": a.session.ID})
	return a, nil
}

func (a *agentSession) close() {
	a.hooks.Run(context.Background(), "SessionEnd", map[string]any{"session_id": a.session.ID})
	a.reg.Close()
}

// shellInjection runs a prompt command's !{…}: decided like run_shell_command, then run by
// /bin/sh in the project under the sandbox of the command's extension (or the project's).
func (a *agentSession) shellInjection(ctx context.Context, pc *agent.PromptCommand, command string) (string, int, error) {
	if err := a.reg.AuthorizeShell(ctx, pc.Extension, command, pluginsdk.CallOptions{}); err != nil {
		return "", 0, err
	}
	root := a.expander.Root
	var env []string
	var pol *sandbox.Policy
	if x := pc.ExtensionOf(); x != nil {
		// An extension's command runs with that extension's environment and sandbox.
		var err error
		if env, pol, err = commands.Program(a.r.env, x, commands.ProgramSpec{Root: root, Platform: manifest.HostPlatforms(a.r.env.Getenv)[0], Environ: os.Environ(), ReadSecrets: secrets.Read}); err != nil {
			return "", 0, fmt.Errorf("/%s: %w", pc.Name, err)
		}
	} else {
		// The user's and the project's commands: the project's sandbox, a folder of their own.
		data, temp, err := sandbox.PrivateDirs(a.r.env.GemHome, "_prompt-commands")
		if err != nil {
			return "", 0, err
		}
		p := sandbox.ForExtension(root, root, data, temp, nil, nil, false)
		pol = &p
		env = sandbox.Env(os.Environ(), nil, "GEM_WORKSPACE="+root, "TMPDIR="+temp)
	}
	cmd, err := sandbox.Command(sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", command}, Env: env, Dir: root, Name: "!{" + command + "}", Policy: pol})
	if err != nil {
		return "", 0, err
	}
	out := &limits.Buffer{Max: limits.ShellOutput}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	stop := context.AfterFunc(ctx, func() { sandbox.KillGroup(cmd) })
	err = cmd.Wait()
	stop()
	code := 0
	if err != nil {
		var ee interface{ ExitCode() int }
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			return "", 0, err
		}
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
	}
	text, st, err := a.agent.Turn(ctx, a.session, prompt)
	if serr := a.session.Save(); serr != nil {
		a.r.warn("saving the session: %v", serr)
	}
	return text, st, err
}

// runPrompt is gem -p: one turn, printed as text, json or stream-json.
func runPrompt(c *cli.Context) error {
	format := c.String("output-format")
	if format != "text" && format != "json" && format != "stream-json" {
		return usagef("--output-format %q: use text, json or stream-json", format)
	}
	r, err := newRuntime(c)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	c.Context = ctx
	a, err := openAgent(c, r, cliServices(c, r))
	if err != nil {
		return err
	}
	defer a.close()
	prompt := c.String("prompt")
	if !isTerminal(os.Stdin) {
		if data, _ := io.ReadAll(io.LimitReader(os.Stdin, 8<<20)); len(bytes.TrimSpace(data)) > 0 {
			prompt = strings.TrimSpace(string(data)) + "\n\n" + prompt
		}
	}
	enc := json.NewEncoder(r.stdout)
	enc.SetEscapeHTML(false)
	emit := func(v map[string]any) {
		v["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		enc.Encode(v)
	}
	switch format {
	case "text":
		midLine := false // text of a step that a tool call follows ends its line
		a.agent.Events = agent.Events{
			Text: func(d string) {
				fmt.Fprint(r.stdout, d)
				midLine = !strings.HasSuffix(d, "\n")
			},
			ToolCall: func(_, name string, args json.RawMessage) {
				if midLine {
					fmt.Fprintln(r.stdout)
					midLine = false
				}
				fmt.Fprintf(r.stderr, "→ %s %s\n", name, args)
			},
			ToolResult: func(_, name string, res *tools.Result, err error) {
				switch {
				case err != nil:
					fmt.Fprintf(r.stderr, "← %s failed: %v\n", name, err)
				case res.Error != nil:
					fmt.Fprintf(r.stderr, "← %s: %s: %s\n", name, res.Error.Type, res.Error.Message)
				default:
					fmt.Fprintf(r.stderr, "← %s: %s\n", name, firstLine(res.DisplayText()))
				}
			},
		}
	case "stream-json":
		emit(map[string]any{"type": "init", "session_id": a.session.ID, "model": a.agent.Model})
		emit(map[string]any{"type": "message", "role": "user", "content": prompt})
		a.agent.Events = agent.Events{
			Text: func(d string) {
				emit(map[string]any{"type": "message", "role": "assistant", "content": d, "delta": true})
			},
			ToolCall: func(id, name string, args json.RawMessage) {
				emit(map[string]any{"type": "tool_use", "tool_name": name, "tool_id": id, "parameters": args})
			},
			ToolResult: func(id, name string, res *tools.Result, err error) {
				ev := map[string]any{"type": "tool_result", "tool_id": id, "tool_name": name, "status": "success"}
				switch {
				case err != nil:
					ev["status"], ev["error"] = "error", err.Error()
				case res.Error != nil:
					ev["status"], ev["error"], ev["output"] = "error", res.Error.Type+": "+res.Error.Message, res.Text
				default:
					ev["output"] = res.Text
				}
				emit(ev)
			},
		}
	}
	text, st, err := a.turn(ctx, prompt)
	stats := map[string]any{"requests": st.Requests, "tool_calls": st.ToolCalls, "failed_tool_calls": st.Failed, "tool_time_ms": st.ToolTime.Milliseconds()}
	switch format {
	case "text":
		if text != "" && !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(r.stdout)
		}
	case "json":
		out := map[string]any{"session_id": a.session.ID, "response": text, "stats": stats}
		if err != nil {
			out["error"] = map[string]any{"message": err.Error()}
		}
		if perr := printJSON(r, out); perr != nil {
			return perr
		}
		if err != nil {
			return exitError{code: 1}
		}
	case "stream-json":
		ev := map[string]any{"type": "result", "status": "success", "stats": stats}
		if err != nil {
			ev["status"], ev["error"] = "error", err.Error()
		}
		emit(ev)
		if err != nil {
			return exitError{code: 1}
		}
	}
	return err
}

// sessionsCommand lists saved sessions.
func sessionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list saved model sessions (resume one with gem --resume <id> -p … or gem shell --resume <id>)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
		Action: func(c *cli.Context) error {
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			list, err := agent.Sessions{Dir: r.env.SessionsDir()}.List()
			if err != nil {
				return err
			}
			type row struct {
				ID       string    `json:"id"`
				Model    string    `json:"model"`
				Updated  time.Time `json:"updated"`
				Messages int       `json:"messages"`
				First    string    `json:"first"`
			}
			rows := []row{}
			for _, s := range list {
				first := ""
				if len(s.History) > 0 && len(s.History[0].Parts) > 0 {
					first = s.History[0].Parts[0].Text
					if len(first) > 60 {
						first = first[:60] + "…"
					}
				}
				rows = append(rows, row{s.ID, s.Model, s.Updated, len(s.History), strings.ReplaceAll(first, "\n", " ")})
			}
			if c.Bool("json") {
				return printJSON(r, rows)
			}
			for _, x := range rows {
				fmt.Fprintf(r.stdout, "%s  %s  %3d messages  %s\n", x.ID, x.Updated.Local().Format("2006-01-02 15:04"), x.Messages, x.First)
			}
			return nil
		},
	}
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
