package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/binfmt"
	"github.com/gemhost/gem/host/commands/hashing"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/mcpauth"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/config"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
	"github.com/gemhost/gem/registry/settings"
)

// SettingsMode says what an agent loads besides the program's own parts.
type SettingsMode int

const (
	// LoadSettings loads what gem -p loads: settings, installed extensions, policy files.
	LoadSettings SettingsMode = iota
	// NoSettings makes a bare agent: the program's instructions and tools, gem's core tools.
	NoSettings
)

// Options configure an agent.
type Options struct {
	Cwd string // the workspace ("": the current directory)
	// Model is the model and its backend (Gemini, GeminiClient, or the program's own); nil:
	// Gemini("", nil), the settings' model.name (else gem's default) on the Gemini API with
	// the environment's key.
	Model        Model
	Instructions []Instruction
	Tools        []Tool
	Hooks        []Hook
	Skills       []Skill
	Subagents    []Subagent
	Extensions   []Extension
	Settings     SettingsMode
	// Getenv is the environment the agent reads (HOME, GEM_HOME, the API key) and its
	// programs start from; nil: the process's.
	Getenv func(string) string
	// ApprovalMode is the policy's mode: default, auto_edit, yolo or plan ("": default).
	ApprovalMode string
	// Approve answers the calls the policy asks about, as they come. Nil: a turn with such
	// a call ends with it pending (Result.Pending), for Session.Approve to decide — in this
	// process or another, after ResumeSession. FS and Shell operations are refused then.
	Approve func(ctx context.Context, req ApprovalRequest) (Decision, error)
	// Ask puts questions to the user: the model's (ask_user), and the program's tools' and
	// hooks' (SessionContext.Ask and Confirm, pluginsdk.Confirm), one at a time; ctx is the
	// asking call's, cancelled with the turn. A terminal, an ACP client's elicitation (gem
	// acp), a test's script. Nil: ask_user fails (the model decides, or says what it needs)
	// and Ask returns ErrNoAsk.
	Ask func(ctx context.Context, q Question) (Answer, error)
	// MCPServers are MCP servers of the program's (an ACP client's, a configuration of its
	// own), by name: they run as the user's settings servers run — sandboxed (with the
	// network and the workspace capability), their tools asked about by the policy.
	MCPServers map[string]MCPServerConfig
	// Buffers, when set, gives the text of a workspace file as the user's editor has it,
	// unsaved changes included (an ACP client's fs/read_text_file); false: the file as on
	// disk. The core tools read a file through gem's workspace rules first (inside the
	// workspace, no link out, a regular file): only its text comes from Buffers. Writes
	// always go to disk through gem's own tools.
	Buffers func(path string) (string, bool)
	// Checkpointing snapshots the workspace before each edit of a core tool (write_file,
	// replace), for Session.Restore: as the settings' general.checkpointing.enabled does,
	// which LoadSettings reads too.
	Checkpointing bool
	// Host is a command-line program's own terminal, log and loaded configuration (gem -p
	// and gem shell); nil for most programs.
	Host *Host
}

// MCPServerConfig is an MCP server as settings.json's mcpServers declare one: a Command
// (stdio), or a URL (SSE) or HTTPURL (streamable HTTP).
type MCPServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	HTTPURL string            `json:"httpUrl,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Agent is a configured agent: its tool catalog and model client, shared by its sessions.
type Agent struct {
	opts     Options
	env      registry.Env
	environ  []string
	launcher *launch.Launcher // the agent's (host/launch): prepares and starts its programs
	disc     *registry.Discovery
	sets     *settings.Settings
	catalog  *tools.Catalog
	client   agent.ModelClient
	sent     <-chan struct{}
	parts    parts
	services *tools.Services // the catalog's

	mu       sync.Mutex
	sessions map[*agent.Session]*Session // the SDK session of each open conversation's session
}

// NewAgent opens an agent: the API client, the tool catalog under the policy, and what the
// settings bring (see SettingsMode).
func NewAgent(ctx context.Context, o Options) (*Agent, error) {
	env, environ, err := envOf(o)
	if err != nil {
		return nil, err
	}
	getenv := env.Getenv
	servers := map[string]json.RawMessage{}
	for name, srv := range o.MCPServers {
		if (srv.Command == "") == (srv.URL == "" && srv.HTTPURL == "") {
			return nil, fmt.Errorf("sdk: MCP server %q: give a Command, or a URL or HTTPURL (Options.MCPServers)", name)
		}
		servers[name], _ = json.Marshal(srv)
	}
	// The agent's launcher (host/launch): the workspace worked out and the machine probed
	// once; every program the agent starts goes through it.
	a := &Agent{opts: o, env: env, environ: environ}
	h := a.host()
	if h.Environ != nil {
		a.environ = h.Environ
	}
	a.launcher = h.Launcher
	if a.launcher == nil {
		a.launcher = launch.New(launch.Options{Env: env, Environ: a.environ, ReadSecrets: secrets.Read})
	}
	if o.Settings == LoadSettings {
		a.disc, a.sets = h.Discovery, h.Settings
		if a.disc == nil {
			a.disc = registry.Discover(env, registry.Providers)
		}
		if a.sets == nil {
			a.sets = settings.Load(env, a.launcher.Workspace())
		}
	} else {
		a.disc = &registry.Discovery{}
		a.sets = &settings.Settings{}
	}
	a.sets.AddServers(servers, "the program (Options.MCPServers)")
	a.sets.Checkpointing = a.sets.Checkpointing || o.Checkpointing
	if a.opts.Model == nil {
		a.opts.Model = Gemini("", nil)
	}
	client, err := modelClient(ctx, a.opts.Model, getenv)
	if err != nil {
		return nil, err
	}
	a.client, a.sent = agent.FirstRequest(client)
	if err := a.parts.add(a, "", o.Instructions, o.Tools, o.Skills, o.Hooks, o.Subagents); err != nil {
		return nil, err
	}
	for _, x := range o.Extensions {
		if err := x.loaded(env, a.disc); err != nil {
			return nil, err
		}
		sp := x.spec
		if err := a.parts.add(a, sp.Name, sp.Instructions, sp.Tools, sp.Skills, sp.Hooks, sp.Subagents); err != nil {
			return nil, fmt.Errorf("extension %s: %w", sp.Name, err)
		}
	}
	a.services = h.Services
	switch {
	case a.services == nil:
		a.services = &tools.Services{Prompt: a.prompter()}
	case o.Ask != nil:
		a.services.Prompt = asking{Prompter: a.services.Prompt, ask: o.Ask} // the model's questions
	}
	a.catalog, err = tools.OpenCatalog(ctx, tools.CatalogConfig{
		Env: env, Discovery: a.disc, Settings: a.sets, Environ: a.environ, ApprovalMode: o.ApprovalMode,
		Services: a.services, CallTimeout: h.CallTimeout, Logger: h.Logger, Warn: h.Warn, AskWorkspace: h.AskWorkspace,
		ReadSecrets: secrets.Read, CoreWorkspace: a.launcher.Workspace(), Buffers: o.Buffers, Launcher: a.launcher,
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	for _, f := range a.allFuncs() {
		owner := "gem"
		t, taken := a.catalog.Lookup(f.Spec.Name)
		if t != nil {
			owner = t.Extension
		}
		if other, twice := seen[f.Spec.Name]; twice {
			taken, owner = true, other
		}
		if taken || f.Spec.Name == "activate_skill" {
			a.catalog.Close()
			return nil, fmt.Errorf("sdk: tool %s of %s: %s has a tool of that name already: rename one", f.Spec.Name, f.Extension, owner)
		}
		seen[f.Spec.Name] = f.Extension
	}
	return a, nil
}

// envOf is where the agent of o looks (home, gem's home, the workspace, the variables) and
// the environment its programs start from.
func envOf(o Options) (registry.Env, []string, error) {
	getenv := o.Getenv
	environ := config.Environ()
	if getenv == nil {
		getenv = config.Getenv
	} else {
		environ = environFrom(getenv)
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return registry.Env{}, nil, fmt.Errorf("sdk: no home folder: %w", err)
		}
		home = h
	}
	cwd, err := filepath.Abs(o.Cwd) // "": the current directory
	if err != nil {
		return registry.Env{}, nil, fmt.Errorf("sdk: the workspace %q: %w", o.Cwd, err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return registry.Env{}, nil, fmt.Errorf("sdk: the workspace %s is not a folder (Options.Cwd)", cwd)
	}
	env := registry.NewEnv(home, cwd, getenv)
	env.Engine = registry.Engine{HashFile: hashing.SHA256File, DescribeBinary: binfmt.Describe}
	return env, environ, nil
}

// KindOf is what the tool name does, as it declares (a subagent's call, "subagent/tool", is
// its tool's).
func (a *Agent) KindOf(name string) Kind {
	if _, inner, ok := strings.Cut(name, "/"); ok {
		name = inner
	}
	for _, f := range a.allFuncs() {
		if f.Spec.Name == name {
			return cmp.Or(f.Spec.Kind, KindOther)
		}
	}
	if t, _ := a.catalog.Lookup(name); t != nil {
		return cmp.Or(t.Spec.Kind, KindOther)
	}
	return KindOther
}

// allFuncs are the program's tools and its subagents' own.
func (a *Agent) allFuncs() []tools.Func {
	out := slices.Clone(a.parts.funcs)
	for _, sa := range a.parts.subagents {
		for _, f := range sa.Funcs {
			if !slices.ContainsFunc(out, func(o tools.Func) bool { return o.Spec.Name == f.Spec.Name && o.Extension == f.Extension }) {
				out = append(out, f)
			}
		}
	}
	return out
}

// prompter answers the policy's questions about tool calls: Options.Approve, else they are
// deferred (Result.Pending).
func (a *Agent) prompter() prompt.Prompter {
	var p prompt.Prompter = deferrer{}
	if a.opts.Approve != nil {
		p = approver{a.opts.Approve}
	}
	if a.opts.Ask != nil {
		p = asking{Prompter: p, ask: a.opts.Ask}
	}
	return p
}

// helperPrompter answers the questions of SessionContext's FS and Shell: Options.Approve,
// else they are refused (they cannot wait for a later process).
func (a *Agent) helperPrompter() prompt.Prompter {
	if a.opts.Approve != nil {
		return approver{a.opts.Approve}
	}
	return &prompt.Refuse{Why: prompt.NotAskedError{Reason: "no one to approve it (Options.Approve)"}}
}

// sessionByID is the open session of that id (nil when none).
func (a *Agent) sessionByID(id string) *Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.sessions {
		if s.conv.ID() == id {
			return s
		}
	}
	return nil
}

// environFrom is the environment getenv describes, for the agent's programs (gem's sandbox
// filters it further): the names of the process's environment and those a toolchain or a
// proxy needs, each read through getenv.
func environFrom(getenv func(string) string) []string {
	names := []string{"HOME", "PATH", "USER", "LANG", "TMPDIR", "GEM_HOME", "GEMINI_CLI_HOME",
		"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS"}
	for _, kv := range config.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range names {
		if v := getenv(k); v != "" && !seen[k] {
			seen[k] = true
			out = append(out, k+"="+v)
		}
	}
	return out
}

// Close stops what the agent started (MCP servers, plugins).
func (a *Agent) Close() error {
	a.catalog.Close()
	return nil
}

// Trusted reports whether the workspace is a trusted folder (Gemini CLI's
// trustedFolders.json, gem trust): an untrusted one gets no project configuration — its
// settings, hooks, policies, MCP servers and commands are not read — and the model's calls
// never run unasked there (yolo acts as default; a front's "approve all" must not apply).
func (a *Agent) Trusted() bool {
	return tools.Unattended(a.env, a.launcher.Workspace())
}

// SetApprovalMode switches the policy's mode (default, auto_edit, yolo, plan) for the calls
// of every session of the agent from now on. Yolo is refused where the settings disable it
// and acts as default in an untrusted folder, as at NewAgent; a mode refused is an
// *ApprovalModeError.
func (a *Agent) SetApprovalMode(mode string) error {
	m, err := tools.ApprovalMode(mode, a.sets)
	if err != nil {
		return err
	}
	if e := a.catalog.Policy(); e != nil {
		e.SetMode(m)
	}
	return nil
}

// ApprovalMode is the policy's mode now.
func (a *Agent) ApprovalMode() string {
	if e := a.catalog.Policy(); e != nil && e.CurrentMode() != "" {
		return string(e.CurrentMode())
	}
	return string(policy.ModeDefault)
}

// Session starts a new session.
func (a *Agent) Session(ctx context.Context) (*Session, error) { return a.open(ctx, "") }

// ResumeSession continues a saved session (one of gem's, or an earlier Session's ID).
func (a *Agent) ResumeSession(ctx context.Context, id string) (*Session, error) {
	return a.open(ctx, id)
}

func (a *Agent) open(ctx context.Context, resume string) (*Session, error) {
	s := &Session{agent: a}
	h := a.host()
	conv, err := agent.Open(ctx, agent.Config{
		Env: a.env, Discovery: a.disc, Settings: a.sets, Environ: a.environ, Catalog: a.catalog,
		Client: a.client, ReadSecrets: secrets.Read, FirstRequest: a.sent, Model: a.opts.Model.Name(), Resume: resume,
		Logger: h.Logger, Say: h.Say, Progress: h.Progress, Plan: a.ApprovalMode() == string(policy.ModePlan),
		Warn: s.warned, Funcs: a.parts.funcs, Instructions: s.instructions, Hooks: a.parts.hooks, Skills: a.parts.skills, Subagents: a.parts.subagents,
	})
	if err != nil {
		return nil, err
	}
	s.conv = conv
	a.mu.Lock()
	if a.sessions == nil {
		a.sessions = map[*agent.Session]*Session{}
	}
	a.sessions[conv.Session] = s
	a.mu.Unlock()
	return s, nil
}

// Session is one conversation with the model. Not safe for concurrent sends.
type Session struct {
	agent *Agent
	conv  *agent.Conversation
	last  *Result
	warn  atomic.Pointer[func(error)] // the running turn's warnings, as error events
}

// Close ends the session (its SessionEnd hooks run); it stays saved for ResumeSession.
func (s *Session) Close() {
	s.agent.mu.Lock()
	for k, v := range s.agent.sessions { // keyed by the session it opened with (/clear starts another)
		if v == s {
			delete(s.agent.sessions, k)
		}
	}
	s.agent.mu.Unlock()
	s.conv.End() // the catalog is the agent's: Agent.Close stops it
}

// Pending are the calls the session's last turn waits on (saved with the session).
func (s *Session) Pending() []PendingApproval { return pendingOf(s.conv.Pending()) }

func pendingOf(p *agent.PendingTurn) []PendingApproval {
	if p == nil {
		return nil
	}
	var out []PendingApproval
	for _, c := range p.Waiting() {
		out = append(out, PendingApproval{CallID: c.ID, Asked: c.Asked, Subagent: c.Via,
			ApprovalRequest: ApprovalRequest{Tool: c.Name, Extension: c.Extension, Args: c.Args, Question: c.Question}})
	}
	return out
}

// Approve decides the calls the last turn waits on (by PendingApproval.CallID) and goes on
// with the turn: the calls decided run or are refused, the model answers, and the turn's
// result is returned as Send's. A call without a decision that the policy asks about again
// stays pending (Result.Pending).
func (s *Session) Approve(ctx context.Context, decisions map[string]Decision) (*Result, error) {
	var err error
	for _, e := range s.run(ctx, "", func(ctx context.Context) (string, agent.Stats, error) {
		return s.conv.Approve(ctx, func(id string) prompt.Prompter {
			if d, ok := decisions[id]; ok {
				return decided(d)
			}
			return deferrer{}
		})
	}) {
		if e != nil {
			err = e
		}
	}
	return s.last, err
}

// Save writes the session where gem keeps sessions now (each turn saves it anyway): a
// session saved before its first prompt can be resumed (an ACP client loads a session it
// has just made). The agent's approval mode is saved with it (SavedApprovalMode).
func (s *Session) Save() error { return s.conv.Save() }

// SavedApprovalMode is the approval mode the session was last saved in ("" for a new
// session, or one saved before gem kept it). Resuming a session does not change the agent's
// mode (it is the agent's, shared by its sessions): a program that wants the session's
// back calls Agent.SetApprovalMode with it, as gem acp does.
func (s *Session) SavedApprovalMode() string { return s.conv.SavedApprovalMode() }

// Model is the model the session's next request goes to.
func (s *Session) Model() string { return s.conv.Model() }

// SetModel sends the session's requests to model from the next one on.
func (s *Session) SetModel(model string) { s.conv.SetModel(model) }

// ID is the session's id (ResumeSession and gem --resume take it).
func (s *Session) ID() string { return s.conv.ID() }

// instructions are the program's instructions for the next request of s, made with the
// turn's ctx.
func (s *Session) instructions(ctx context.Context, _ *agent.Session) string {
	var parts []string
	sc := s.agent.contextOf(ctx, s.conv.Session)
	for _, in := range s.agent.parts.instructions {
		if t := in.text(sc); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Result is a finished turn.
type Result struct {
	Text      string     // the model's final answer
	ToolCalls []ToolCall // the calls made during the turn, in order
	Usage     Usage
	// Pending are the calls the turn waits on, without Options.Approve: the turn goes on
	// with Session.Approve.
	Pending []PendingApproval
	// PlanFile is where the answer is kept as the plan, in plan mode (ApprovalMode plan:
	// the model is told it plans, and changes nothing).
	PlanFile string
}

// Send runs one turn and returns its result.
func (s *Session) Send(ctx context.Context, prompt string) (*Result, error) {
	var err error
	for _, e := range s.SendStream(ctx, prompt) {
		if e != nil {
			err = e
		}
	}
	return s.last, err
}

// SendStream runs one turn, yielding its events as they happen: init, the prompt's message,
// the model's messages and tool calls (with their live output), and the result last, with the turn's error, if any,
// in its pair. Each event marshals to Gemini CLI's stream-json line for it. The turn waits
// while the loop body handles an event (a tool call's event comes before its approval is
// asked, and before it runs). Breaking out of the loop cancels the turn.
func (s *Session) SendStream(ctx context.Context, prompt string) iter.Seq2[Event, error] {
	return s.run(ctx, prompt, func(ctx context.Context) (string, agent.Stats, error) { return s.conv.Send(ctx, prompt) })
}

// run runs one turn (or its continuation: no prompt), yielding its events.
func (s *Session) run(ctx context.Context, prompt string, turn func(context.Context) (string, agent.Stats, error)) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		start := time.Now()
		if !yield(Event{Type: EventInit, Time: start, SessionID: s.ID(), Model: s.Model()}, nil) {
			return
		}
		if prompt != "" && !yield(Event{Type: EventMessage, Time: start, Role: "user", Text: prompt}, nil) {
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// The turn waits for each event to be handled (the loop body to return): a tool
		// call is shown before its approval is asked, an answer before the next call runs.
		type item struct {
			ev      Event
			handled chan struct{}
		}
		ch := make(chan item)
		res := &Result{}
		send := func(ev Event) {
			it := item{ev: ev, handled: make(chan struct{})}
			select {
			case ch <- it:
			case <-ctx.Done():
				return
			}
			select {
			case <-it.handled:
			case <-ctx.Done():
			}
		}
		warn := func(err error) {
			send(Event{Type: EventError, Time: time.Now(), Severity: "warning", Text: err.Error()})
		}
		events := agentEvents(s.agent.KindOf, func(ev Event) {
			if ev.Type == EventToolResult {
				res.ToolCalls = append(res.ToolCalls, *ev.ToolCall)
			}
			send(ev)
		})
		events.Compressed = func(trigger string, before, after int) {
			if trigger == "auto" { // RunCommand's compress says it itself
				warn(fmt.Errorf("the conversation neared the model's input limit: %d messages compressed to %d", before, after))
			}
		}
		events.ToolOutput = outputEvents(s.agent.KindOf, send)
		s.conv.SetEvents(events)
		s.warn.Store(&warn)
		defer s.warn.Store(nil)
		done := make(chan error, 1)
		go func() {
			text, st, err := turn(ctx)
			if _, waits := errors.AsType[*agent.PendingError](err); waits {
				res.Pending, err = pendingOf(s.conv.Pending()), nil
			}
			res.Text = text
			res.Usage = usageOf(st, time.Since(start))
			if s.conv.Plan && err == nil && strings.TrimSpace(text) != "" {
				var perr error
				if res.PlanFile, perr = s.conv.KeepPlan(prompt, text); perr != nil {
					warn(fmt.Errorf("keeping the plan: %w", perr))
				}
			}
			done <- err // after its last event was handled: its sends are synchronous
		}()
		stopped := false
		var err error
	events:
		for {
			select {
			case it := <-ch:
				if !stopped && !yield(it.ev, nil) {
					stopped = true
					cancel()
				}
				close(it.handled)
			case err = <-done:
				break events
			}
		}
		s.last = res
		if !stopped {
			yield(Event{Type: EventResult, Time: time.Now(), Result: res, Err: err}, err)
		}
	}
}

// warned gives a warning of the session's conversation to the turn running (an error
// event), else to Host.Warn.
func (s *Session) warned(err error) {
	if w := s.warn.Load(); w != nil {
		(*w)(err)
	} else if w := s.agent.host().Warn; w != nil {
		w(err)
	}
}

// CallTool runs one tool as the model's calls run — its BeforeTool and AfterTool hooks, its
// arguments validated, the policy's decision (Approve), the audit — and returns what the
// model would get; the call is not added to the conversation. args is the arguments' JSON.
func (s *Session) CallTool(ctx context.Context, name string, args json.RawMessage) (*ToolCall, error) {
	resp, err := s.conv.Call(ctx, name, args)
	if resp == nil {
		return nil, err
	}
	c := &ToolCall{Name: name, Args: args}
	if e, ok := resp.Response["error"]; ok {
		c.Err = errors.New(fmt.Sprint(e))
	}
	if out, ok := resp.Response["output"]; ok {
		c.Output = fmt.Sprint(out)
	}
	return c, err
}

// Context is the session's SessionContext, for the program's own use of FS, Shell and Ask
// outside a tool call (decided by the policy and Approve as a tool's are). Its context is
// never cancelled: pass a context of the program's to FS and Shell to bound them.
func (s *Session) Context() SessionContext {
	return s.agent.contextOf(context.Background(), s.conv.Session)
}

// ApprovalModeError is an approval mode gem does not know, or one the settings disable
// (security.disableYoloMode), from NewAgent or SetApprovalMode.
type ApprovalModeError = tools.ApprovalModeError

// ErrStepLimit ends a turn that made as many model requests as it may (errors.Is): sending
// again lets it go on.
var ErrStepLimit = agent.ErrStepLimit

// StoppedError is a turn a hook ended (continue: false), with the hook's reason.
type StoppedError = agent.StoppedError

// LastResult is the result of the session's last turn (nil before the first): what Send
// returns, for a turn run with SendStream.
func (s *Session) LastResult() *Result { return s.last }

// ErrNoAPIKey: the agent's model is Gemini's on the environment's configuration (no
// Options.Model, or Gemini(name, nil)) and neither GEMINI_API_KEY nor GOOGLE_API_KEY is set.
var ErrNoAPIKey = agent.ErrNoAPIKey

// SignIn signs the agent in to its remote MCP server named server, when the server uses
// OAuth (`gem mcp auth`): open shows the user the authorization page (a browser; the
// page returns to gem on 127.0.0.1). The token is kept sealed where gem keeps it, for
// this server at its URL only, and used by later agents and by gem itself; sessions never
// open a browser, and a server that needs a sign-in fails its calls until there is one.
func (a *Agent) SignIn(ctx context.Context, server string, open func(ctx context.Context, pageURL string) error) error {
	mc, err := a.catalog.MCPServerByName(server)
	if err != nil {
		return err
	}
	_, err = mc.SignIn(ctx, mcpauth.SignInOptions{Open: open, ClientIDURL: a.env.Getenv("GEM_MCP_CLIENT_ID_URL")})
	return err
}
