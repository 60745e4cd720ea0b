package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/telemetry/otlp"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
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
	o.OutputFormat = "text" // the model: --model, else settings' model.name, else sdk.DefaultModel
	o.callFlags.setDefaults()
}

// rootOptions are gem's own flags: -p and the model flags.
type rootOptions struct {
	Prompt string `flag:"prompt,p" usage:"send one prompt to the model and print its answer"`
	agentOptions
}

// agentSession is the model side of one CLI session: gem's agent through the SDK (an
// sdk.Agent with the CLI's Host: its terminal, log and loaded configuration) and the
// session the CLI renders.
type agentSession struct {
	s         *session
	agent     *sdk.Agent
	sess      *sdk.Session
	telemetry *otlp.Exporter // nil: telemetry is off
}

// openAgent opens the agent with the CLI's flags and its session, new or resumed (--resume);
// its problems are warned about on stderr. services ask the policy's and the tools'
// questions (--yes answers them); ask, when set, the model's (sdk.Options.Ask).
func openAgent(ctx context.Context, s *session, services *tools.Services, o agentOptions, ask func(context.Context, sdk.Question) (sdk.Answer, error)) (*agentSession, error) {
	// Telemetry starts before the agent: its servers' launches are recorded too.
	exporter, err := startTelemetry(ctx, s)
	if err != nil {
		return nil, err
	}
	a, err := openSDKAgent(ctx, s, services, o, ask)
	if err != nil {
		stopTelemetry(s, exporter)
		return nil, err
	}
	a.telemetry = exporter
	return a, nil
}

// openSDKAgent is openAgent's agent and session.
func openSDKAgent(ctx context.Context, s *session, services *tools.Services, o agentOptions, ask func(context.Context, sdk.Question) (sdk.Answer, error)) (*agentSession, error) {
	host := &sdk.Host{
		Discovery: s.discover(), Settings: s.settings(), Environ: s.environ, Services: services, Logger: s.log, CallTimeout: o.Timeout,
		Launcher: s.launch(),
		Warn:     func(err error) { s.warn("%s", errorText(err)) },
		Say:      func(msg string) { fmt.Fprintln(s.stderr, termsafe.Text(msg)) },
		History:  s.typed,
	}
	if s.io.Interactive() {
		host.AskWorkspace = s.askWorkspace
	}
	if s.io.IsStderrTTY() {
		host.Progress = func(msg string) { fmt.Fprintln(s.stderr, termsafe.Text(msg)) } // server names
	}
	ag, err := sdk.NewAgent(ctx, sdk.Options{Cwd: s.env.Cwd, Getenv: s.env.Getenv, Model: sdk.Gemini(o.Model, nil), ApprovalMode: o.ApprovalMode, Ask: ask, Host: host})
	if errors.Is(err, sdk.ErrNoAPIKey) {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from Google AI Studio, e.g. export GEMINI_API_KEY=…")
	}
	if mode, ok := errors.AsType[*sdk.ApprovalModeError](err); ok {
		return nil, usagef("--approval-mode: %v", mode)
	}
	if err != nil {
		return nil, err
	}
	s.modelYes(ag, services, o.Yes)
	sess, err := ag.Session(ctx)
	if o.Resume != "" {
		sess, err = ag.ResumeSession(ctx, o.Resume)
	}
	if err != nil {
		ag.Close()
		return nil, err
	}
	return &agentSession{s: s, agent: ag, sess: sess}, nil
}

// terminalAsk is the agent's Options.Ask on a terminal: the model's questions (ask_user)
// and the tools' as lines of text (sdk.Question.Terminal), the answer typed read by p.
func terminalAsk(p prompt.Prompter) func(context.Context, sdk.Question) (sdk.Answer, error) {
	return func(ctx context.Context, q sdk.Question) (sdk.Answer, error) {
		line, err := p.Input(ctx, q.Terminal())
		if err != nil {
			return sdk.Answer{}, err
		}
		return q.TypedAnswer(line), nil
	}
}

// close ends the session and the agent (its servers stopped), then flushes telemetry.
func (a *agentSession) close() {
	a.sess.Close()
	a.agent.Close()
	stopTelemetry(a.s, a.telemetry)
}

// modelYes is --yes for the model's calls: honoured where the agent may run them unasked
// (sdk's Agent.Trusted: a trusted folder, yolo's rule). Elsewhere (a cloned repository, say)
// it would approve whatever the project's files lead the model to do; Gemini CLI also falls
// back to the default mode there. The user's own direct calls (gem tools call --yes) are
// not the model's: --yes holds for them. The model's own questions (ask_user) need a
// person: --yes does not answer them.
func (s *session) modelYes(a *sdk.Agent, services *tools.Services, yes bool) {
	switch {
	case !yes:
	case !a.Trusted():
		s.warn("--yes applies to the model's calls only in a trusted folder; %s is not, so they are asked as without it (gem trust trusts it)", s.launch().Workspace())
	default:
		services.Prompt = &prompt.Yes{Person: services.Prompt}
	}
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
		services := s.cliServices(false)
		var ask func(context.Context, sdk.Question) (sdk.Answer, error)
		if services.Prompt.CanPrompt() { // a terminal (/dev/tty) to ask on
			ask = terminalAsk(services.Prompt)
		}
		a, err := openAgent(ctx, s, services, o, ask)
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
		po := &promptOutput{s: s, format: o.OutputFormat, enc: newJSONEncoder(s.stdout, true),
			tools: &toolTally{started: map[string]time.Time{}, byName: map[string]*toolCount{}}}
		return po.run(ctx, a.sess, prompt)
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

// promptOutput prints one gem -p turn, the sdk.Session's events, in its output format.
// json and stream-json have Gemini CLI's shapes (its JsonOutput and stream events,
// packages/core/src/output): the same keys, so scripts written for gemini -o json read
// gem's; stream-json is the events' own marshalling. Chosen where gem differs: every call
// that ran counts as "accept" in decisions (gem -p asks nothing; Gemini CLI counts --yolo's
// calls so too), a refused one as "reject"; all requests are the "main" role's.
type promptOutput struct {
	s       *session
	format  string
	enc     *json.Encoder
	tools   *toolTally
	midLine bool // text: the model's text so far does not end its line
}

// run expands input (a prompt command, an MCP prompt, a skill, @paths), runs the turn and
// prints it; the user's message is shown as typed.
func (p *promptOutput) run(ctx context.Context, sess *sdk.Session, input string) error {
	prompt, err := sess.Expand(ctx, input)
	if err != nil {
		now := time.Now()
		p.event(sdk.Event{Type: sdk.EventInit, Time: now, SessionID: sess.ID(), Model: sess.Model()})
		p.event(sdk.Event{Type: sdk.EventMessage, Time: now, Role: "user", Text: input})
		return p.finish(sess, &sdk.Result{}, err)
	}
	res := &sdk.Result{}
	for ev, err := range sess.SendStream(ctx, prompt) {
		switch {
		case ev.Type == sdk.EventResult:
			res, ev.Err = ev.Result, err
			if res.PlanFile != "" {
				fmt.Fprintf(p.s.stderr, "(plan mode: the plan is kept in %s)\n", registry.Tilde(p.s.env.Home, res.PlanFile))
			}
			return p.finish(sess, res, err)
		case ev.Type == sdk.EventMessage && ev.Role == "user":
			ev.Text = input
		}
		p.event(ev)
	}
	return p.finish(sess, res, ctx.Err())
}

// event prints one event of the turn: text streams to stdout and tool calls to stderr
// (text), or everything as JSON lines (stream-json); json prints only at the end. Every
// format counts the tools (for the stats) and says warnings on stderr; none shows thoughts
// or a tool's live output (Gemini CLI's stream-json has neither; the result follows).
func (p *promptOutput) event(ev sdk.Event) {
	switch ev.Type {
	case sdk.EventThought, sdk.EventToolOutput:
		return
	case sdk.EventError:
		p.s.warn("%s", ev.Text)
		return
	case sdk.EventToolUse:
		p.tools.call(ev)
	case sdk.EventToolResult:
		p.tools.result(ev)
	}
	switch p.format {
	case "stream-json":
		p.enc.Encode(ev)
	case "text":
		p.text(ev)
	}
}

// text prints an event as gem -p's text: the model's text on stdout, each tool call and
// its outcome on stderr.
func (p *promptOutput) text(ev sdk.Event) {
	s := p.s
	switch {
	case ev.Type == sdk.EventMessage && ev.Role == "assistant":
		d := s.modelText(ev.Text)
		fmt.Fprint(s.stdout, d)
		p.midLine = !strings.HasSuffix(d, "\n")
	case ev.Type == sdk.EventToolUse:
		if p.midLine { // text of a step that a tool call follows ends its line
			fmt.Fprintln(s.stdout)
			p.midLine = false
		}
		fmt.Fprintf(s.stderr, "→ %s %s\n", ev.ToolCall.Name, termsafe.Cell(string(ev.ToolCall.Args)))
	case ev.Type == sdk.EventToolResult:
		c := ev.ToolCall
		te, answered := c.Err.(*sdk.ToolError)
		switch {
		case answered:
			fmt.Fprintf(s.stderr, "← %s: %s: %s\n", c.Name, te.Type, termsafe.Cell(te.Message))
		case c.Err != nil:
			fmt.Fprintf(s.stderr, "← %s failed: %s\n", termsafe.Text(c.Name), termsafe.Text(c.Err.Error()))
		default:
			fmt.Fprintf(s.stderr, "← %s: %s\n", c.Name, termsafe.Cell(termsafe.FirstLine(cmp.Or(c.Display, c.Output))))
		}
	}
}

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

func (t *toolTally) call(ev sdk.Event) {
	t.mu.Lock()
	t.started[ev.ToolCall.ID] = ev.Time
	t.mu.Unlock()
}

func (t *toolTally) result(ev sdk.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	call := ev.ToolCall
	c := t.byName[call.Name]
	if c == nil {
		c = &toolCount{Decisions: newDecisions()}
		t.byName[call.Name] = c
		t.order = append(t.order, call.Name)
	}
	c.Count++
	if start, ok := t.started[call.ID]; ok {
		c.DurationMs += ev.Time.Sub(start).Milliseconds()
		delete(t.started, call.ID)
	}
	switch {
	case errors.Is(call.Err, sdk.ErrDenied):
		c.Fail++
		c.Decisions["reject"]++
	case call.Err != nil:
		c.Fail++
		c.Decisions["accept"]++
	default:
		c.Success++
		c.Decisions["accept"]++
	}
	if call.Err == nil && len(call.Structured) > 0 {
		var edit struct {
			Added   *int `json:"lines_added"`
			Removed *int `json:"lines_removed"`
		}
		if json.Unmarshal(call.Structured, &edit) == nil && edit.Added != nil && edit.Removed != nil {
			t.added += *edit.Added
			t.removed += *edit.Removed
		}
	}
}

// sessionMetrics is Gemini CLI's stats (SessionMetrics): by model, tools, files.
func (p *promptOutput) sessionMetrics(u sdk.Usage) map[string]any {
	models := map[string]any{}
	for name, m := range u.Models {
		tokens := geminiTokens(m)
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
func geminiTokens(u sdk.Usage) map[string]int {
	return map[string]int{"input": u.PromptTokens - u.CachedTokens, "prompt": u.PromptTokens, "candidates": u.OutputTokens, "total": u.TotalTokens,
		"cached": u.CachedTokens, "thoughts": u.ThoughtTokens, "tool": u.ToolTokens}
}

// finish prints the end of the turn: the answer's last newline, the json document, or the
// stream-json result line.
func (p *promptOutput) finish(sess *sdk.Session, res *sdk.Result, err error) error {
	switch p.format {
	case "text":
		if res.Text != "" && !strings.HasSuffix(res.Text, "\n") {
			fmt.Fprintln(p.s.stdout)
		}
		return err
	case "json":
		out := map[string]any{"session_id": sess.ID(), "response": res.Text, "stats": p.sessionMetrics(res.Usage)}
		if err != nil {
			out["error"] = promptErrorJSON(err)
		}
		if perr := printJSON(p.s, out); perr != nil {
			return perr
		}
	default:
		ev := sdk.Event{Type: sdk.EventResult, Time: time.Now(), Result: res}
		if err != nil {
			ev.Err = turnFailure{err}
		}
		p.enc.Encode(ev)
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
	list, err := sdk.ListSessions(sdk.Options{Cwd: s.env.Cwd, Getenv: s.env.Getenv})
	if err != nil {
		return err
	}
	rows := []sessionRow{}
	for _, ss := range list {
		first := ss.Title
		if len(first) > 60 {
			first = first[:60] + "…"
		}
		rows = append(rows, sessionRow{ss.ID, ss.Model, ss.Updated, ss.Messages, first})
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
