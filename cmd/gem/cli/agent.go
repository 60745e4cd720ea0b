package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/host/telemetry/otlp"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
	"github.com/gemhost/gem/sdk"
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

// agentSession is the model side of one CLI session: the conversation host/agent composes
// (agent.Open), with the CLI's rendering.
type agentSession struct {
	s         *session
	conv      *agent.Conversation
	telemetry *otlp.Exporter // nil: telemetry is off
}

// openAgent connects to the Gemini API, opens the tool catalog with the CLI's flags and
// composes the conversation (agent.Open), its problems warned about on stderr.
func openAgent(ctx context.Context, s *session, services *tools.Services, o agentOptions) (*agentSession, error) {
	client, sent, err := agent.NewClient(ctx, s.env.Getenv)
	if errors.Is(err, agent.ErrNoAPIKey) {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from Google AI Studio, e.g. export GEMINI_API_KEY=…")
	}
	if err != nil {
		return nil, err
	}
	exporter, err := startTelemetry(ctx, s)
	if err != nil {
		return nil, err
	}
	reg, err := s.openCatalog(ctx, services, o.callFlags, s.launch().Workspace())
	if err != nil {
		stopTelemetry(s, exporter)
		return nil, err
	}
	cfg := agent.Config{
		Env: s.env, Discovery: s.discover(), Settings: s.settings(), Environ: s.environ, Catalog: reg,
		Client: client, FirstRequest: sent, ReadSecrets: secrets.Read, Logger: s.log, Model: o.Model, Resume: o.Resume,
		Warn: func(err error) { s.warn("%s", errorText(err)) },
		Say:  func(msg string) { fmt.Fprintln(s.stderr, termsafe.Text(msg)) },
	}
	mode := o.ApprovalMode
	if mode == "" {
		mode = s.settings().ApprovalMode
	}
	if m, err := policy.ParseMode(mode); err == nil && m == policy.ModePlan {
		cfg.Plan = true
	}
	if s.io.IsStderrTTY() {
		cfg.Progress = func(msg string) { fmt.Fprintln(s.stderr, termsafe.Text(msg)) } // server names
	}
	conv, err := agent.Open(ctx, cfg)
	if err != nil {
		reg.Close()
		stopTelemetry(s, exporter)
		return nil, err
	}
	return &agentSession{s: s, conv: conv, telemetry: exporter}, nil
}

// newSession starts a new conversation, as Gemini CLI's /clear does.
func (a *agentSession) newSession() {
	if err := a.conv.NewSession(); err != nil {
		a.s.warn("saving the session: %v", err)
	}
}

// close ends the conversation (its servers stopped), then flushes telemetry.
func (a *agentSession) close() {
	a.conv.Close()
	stopTelemetry(a.s, a.telemetry)
}

// turn expands a prompt command (or an MCP server's prompt) if input is one, runs the turn
// and saves the session; in plan mode the answer is kept as the plan.
func (a *agentSession) turn(ctx context.Context, input string) (string, agent.Stats, error) {
	prompt, err := a.conv.Expand(ctx, input)
	if err != nil {
		return "", agent.Stats{}, err
	}
	a.conv.OnCompressed(func(trigger string, before, after int) {
		if trigger != "auto" {
			return // /compress says it itself
		}
		fmt.Fprintf(a.s.stderr, "(the conversation neared the model's input limit: %d messages compressed to %d)\n", before, after)
	})
	text, st, err := a.conv.Send(ctx, prompt)
	if a.conv.Plan && err == nil && strings.TrimSpace(text) != "" {
		if file, perr := a.conv.KeepPlan(input, text); perr != nil {
			a.s.warn("keeping the plan: %v", perr)
		} else {
			fmt.Fprintf(a.s.stderr, "(plan mode: the plan is kept in %s)\n", registry.Tilde(a.s.env.Home, file))
		}
	}
	return text, st, err
}

// modelYes is --yes for the model's calls: honoured in a trusted folder only. Elsewhere (a
// cloned repository, say) it would approve whatever the project's files lead the model to do,
// which yolo is refused for; Gemini CLI also falls back to the default mode there. The
// user's own direct calls (gem tools call --yes) are not the model's: --yes holds for them.
func (s *session) modelYes(yes bool) bool {
	if yes && !s.env.FolderTrusted(s.env.Cwd) {
		s.warn("--yes applies to the model's calls only in a trusted folder; %s is not, so they are asked as without it (gem trust trusts it)", s.launch().Workspace())
		return false
	}
	return yes
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
		a, err := openAgent(ctx, s, s.cliServices(s.modelYes(o.Yes)), o)
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
		po := promptOutput{s: s, format: o.OutputFormat, enc: newJSONEncoder(s.stdout, true), start: time.Now(),
			tools: &toolTally{started: map[string]time.Time{}, byName: map[string]*toolCount{}}}
		a.conv.SetEvents(po.events(a, prompt))
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
		newJSONEncoder(w, false).Encode(map[string]any{"error": promptErrorJSON(err)})
	case "stream-json":
		newJSONEncoder(w, true).Encode(sdk.Event{Type: sdk.EventResult, Time: time.Now(), Err: turnFailure{err}})
	}
	return err
}

// promptOutput prints one gem -p turn in its output format. json and stream-json have
// Gemini CLI's shapes (its JsonOutput and stream events, packages/core/src/output): the
// same keys, so scripts written for gemini -o json read gem's. Chosen where gem differs:
// every call that ran counts as "accept" in decisions (gem -p asks nothing; Gemini CLI
// counts --yolo's calls so too), a refused one as "reject"; all requests are the "main"
// role's.
type promptOutput struct {
	s      *session
	format string
	enc    *json.Encoder
	start  time.Time
	tools  *toolTally
}

func (p promptOutput) emit(ev sdk.Event) { p.enc.Encode(ev) }

// toolTally counts a turn's tool calls by name, as Gemini CLI's stats.tools and
// stats.files report them.
type toolTally struct {
	mu             sync.Mutex
	started        map[string]time.Time
	byName         map[string]*toolCount
	order          []string
	added, removed int
}

type toolCount struct {
	Count      int            `json:"count"`
	Success    int            `json:"success"`
	Fail       int            `json:"fail"`
	DurationMs int64          `json:"durationMs"`
	Decisions  map[string]int `json:"decisions"`
}

func newDecisions() map[string]int {
	return map[string]int{"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0}
}

func (t *toolTally) call(id string) {
	t.mu.Lock()
	t.started[id] = time.Now()
	t.mu.Unlock()
}

func (t *toolTally) result(id, name string, res *tools.Result, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.byName[name]
	if c == nil {
		c = &toolCount{Decisions: newDecisions()}
		t.byName[name] = c
		t.order = append(t.order, name)
	}
	c.Count++
	if start, ok := t.started[id]; ok {
		c.DurationMs += time.Since(start).Milliseconds()
		delete(t.started, id)
	}
	switch {
	case errors.Is(err, tools.ErrDenied):
		c.Fail++
		c.Decisions["reject"]++
	case err != nil || (res != nil && res.Error != nil):
		c.Fail++
		c.Decisions["accept"]++
	default:
		c.Success++
		c.Decisions["accept"]++
	}
	if res != nil && res.Error == nil && len(res.Structured) > 0 {
		var edit struct {
			Added   *int `json:"lines_added"`
			Removed *int `json:"lines_removed"`
		}
		if json.Unmarshal(res.Structured, &edit) == nil && edit.Added != nil && edit.Removed != nil {
			t.added += *edit.Added
			t.removed += *edit.Removed
		}
	}
}

// sessionMetrics is Gemini CLI's stats (SessionMetrics): by model, tools, files.
func (p promptOutput) sessionMetrics(st agent.Stats) map[string]any {
	models := map[string]any{}
	for name, m := range st.Models {
		tokens := geminiTokens(m.Tokens)
		api := map[string]any{"totalRequests": m.Requests, "totalErrors": m.Errors, "totalLatencyMs": m.Latency.Milliseconds(), "errorsByType": map[string]int{}}
		if m.Errors > 0 {
			api["errorsByType"] = map[string]int{"Error": m.Errors}
		}
		role := map[string]any{"totalRequests": m.Requests, "totalErrors": m.Errors, "totalLatencyMs": m.Latency.Milliseconds(), "tokens": tokens}
		models[name] = map[string]any{"api": api, "tokens": tokens, "roles": map[string]any{"main": role}}
	}
	t := p.tools
	t.mu.Lock()
	defer t.mu.Unlock()
	totals := map[string]any{}
	calls, success, fail := 0, 0, 0
	var ms int64
	decisions := newDecisions()
	byName := map[string]*toolCount{}
	for _, name := range t.order {
		c := t.byName[name]
		byName[name] = c
		calls, success, fail, ms = calls+c.Count, success+c.Success, fail+c.Fail, ms+c.DurationMs
		for k, v := range c.Decisions {
			decisions[k] += v
		}
	}
	totals["totalCalls"], totals["totalSuccess"], totals["totalFail"], totals["totalDurationMs"] = calls, success, fail, ms
	totals["totalDecisions"], totals["byName"] = decisions, byName
	return map[string]any{"models": models, "tools": totals, "files": map[string]any{"totalLinesAdded": t.added, "totalLinesRemoved": t.removed}}
}

// geminiTokens are a model's tokens as Gemini CLI counts them (input: the prompt less what
// the cache answered).
func geminiTokens(u agent.Usage) map[string]int {
	return map[string]int{"input": u.Prompt - u.Cached, "prompt": u.Prompt, "candidates": u.Output, "total": u.Total, "cached": u.Cached, "thoughts": u.Thoughts, "tool": u.Tool}
}

// events are the turn's callbacks: text streams to stdout and tool calls to stderr
// (text), or everything as JSON lines (stream-json); json prints only at the end. Every
// format counts the tools (for the stats).
func (p promptOutput) events(a *agentSession, prompt string) agent.Events {
	var ev agent.Events
	switch p.format {
	case "text":
		ev = textEvents(p.s)
	case "stream-json":
		now := time.Now()
		p.emit(sdk.Event{Type: sdk.EventInit, Time: now, SessionID: a.conv.ID(), Model: a.conv.Model()})
		p.emit(sdk.Event{Type: sdk.EventMessage, Time: now, Role: "user", Text: prompt})
		ev = sdk.AgentEvents(nil, p.emit)
		ev.Thought = nil // Gemini CLI's stream-json has no thoughts
	}
	call, result := ev.ToolCall, ev.ToolResult
	ev.ToolCall = func(id, name string, args json.RawMessage) {
		p.tools.call(id)
		if call != nil {
			call(id, name, args)
		}
	}
	ev.ToolResult = func(id, name string, res *tools.Result, err error) {
		p.tools.result(id, name, res, err)
		if result != nil {
			result(id, name, res, err)
		}
	}
	return ev
}

// textEvents print the model's text on stdout and each tool call on stderr.
func textEvents(s *session) agent.Events {
	midLine := false // text of a step that a tool call follows ends its line
	return agent.Events{
		Text: func(d string) {
			d = s.modelText(d)
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
				fmt.Fprintf(s.stderr, "← %s failed: %s\n", termsafe.Text(name), termsafe.Text(err.Error()))
			case res.Error != nil:
				fmt.Fprintf(s.stderr, "← %s: %s: %s\n", name, res.Error.Type, termsafe.Cell(res.Error.Message))
			default:
				fmt.Fprintf(s.stderr, "← %s: %s\n", name, termsafe.Cell(agent.FirstLine(res.DisplayText())))
			}
		},
	}
}

// finish prints the end of the turn: the answer's last newline, the json document, or the
// stream-json result line.
func (p promptOutput) finish(a *agentSession, text string, st agent.Stats, err error) error {
	switch p.format {
	case "text":
		if text != "" && !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(p.s.stdout)
		}
		return err
	case "json":
		out := map[string]any{"session_id": a.conv.ID(), "response": text, "stats": p.sessionMetrics(st)}
		if err != nil {
			out["error"] = promptErrorJSON(err)
		}
		if perr := printJSON(p.s, out); perr != nil {
			return perr
		}
	default:
		ev := sdk.ResultEvent(text, st, time.Since(p.start), nil)
		if err != nil {
			ev.Err = turnFailure{err}
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
			fmt.Fprintf(s.stdout, "%s  %s  %3d messages  %s\n", x.ID, x.Updated.Local().Format("2006-01-02 15:04"), x.Messages, termsafe.Cell(x.First))
		}
		return nil
	})
}
