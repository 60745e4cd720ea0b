// Package tools owns the host's tool catalog (Catalog): the tools of enabled extensions'
// go-plugin plugins and MCP servers, described alike (Spec, Kind) and called alike (a
// backend per source, CallOptions, Result; protobuf only in plugin.go), their names after the conflict rule, the manifests'
// excludeTools, argument validation against each tool's JSON Schema (every violation
// reported), and calls.
//
// Names: plugin tools keep their declared names, MCP tools are mcp_<server>_<tool> (package
// host/mcp); a name two sources share becomes <extension>_<name> on both sides.
// excludeTools entries without arguments ("tool") hide a tool of that name (catalog or
// declared name) from every source, as Gemini CLI applies an extension's excludeTools to the
// whole session; entries with arguments ("run_shell_command(rm -rf)") restrict commands and
// are left to the policy engine.
//
// MCP servers start on demand, in parallel: StartMCP starts them (gem tools list starts all),
// and a call to an mcp_ name starts the server it names. Two extensions declaring the same
// server name: the second is skipped with a warning naming both.
//
// Plugins start lazily: a plugin whose binary has a valid entry in the tool cache
// ($GEM_HOME/cache/tools, see cache.go) is listed from it and started on its first call; one
// without is started when the catalog loads, and stays warm for the session. Each start
// rewrites the cache, so a changed binary is picked up.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/commands"
	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/limits"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/internal/suggest"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// Tool is one tool in the catalog.
type Tool struct {
	Name      string // as the model sees it
	Declared  string // as its source declares it (Spec.Name)
	Extension string
	Plugin    string // the plugin that serves it, or ""
	Server    string // the MCP server that serves it, or ""
	Spec      Spec
	base      string // the name before the conflict rule
	schema    *jsonschema.Schema
	resolved  *jsonschema.Resolved // nil: the schema is not one gem can check (an MCP server's)
	backend   backend
	aliases   map[string]string // older parameter names → current ones (core tools)
}

// renameAliases moves arguments given under an older parameter name to the current one
// (the current one wins when both are given); changed reports whether obj changed.
func (t *Tool) renameAliases(obj map[string]any) (changed bool) {
	for old, cur := range t.aliases {
		v, ok := obj[old]
		if !ok {
			continue
		}
		if _, has := obj[cur]; !has {
			obj[cur] = v
		}
		delete(obj, old)
		changed = true
	}
	return changed
}

// Source is "plugin <id>" or "mcp <server>".
func (t *Tool) Source() string {
	if t.Server != "" {
		return "mcp " + t.Server
	}
	return "plugin " + t.Plugin
}

// Kind is the tool's kind (other when its source gave none).
func (t *Tool) Kind() Kind {
	if t.Spec.Kind == "" {
		return KindOther
	}
	return t.Spec.Kind
}

// Options configure a registry.
type Options struct {
	ReadSecrets registry.SecretReader
	Settings    *settings.Settings // the user's settings.json (trusted servers, tools.exclude); nil reads none
	// CoreWorkspace, when set, offers the core file tools (core.go) confined to that folder:
	// the model side (gem -p, the shell) sets it; gem tools and gem mcp serve do not.
	// settings' tools.core, when set, names the ones offered.
	CoreWorkspace string
	// Buffers, when set, gives the text of a workspace file as the user's editor has it
	// (unsaved changes included), by absolute path; false: the file as on disk. The core
	// tools read the file through the workspace rules first; only the text is replaced.
	Buffers     func(path string) (string, bool)
	Logger      hclog.Logger
	CallTimeout time.Duration // per call; 0: plugins.DefaultCallTimeout
	Services    *Services     // host services offered to plugins; nil offers none
	NoCache     bool          // start every plugin now instead of trusting the tool cache
	CachedOnly  bool          // start nothing: plugins without a tool cache entry list no tools (shell completion)
	Environ     []string      // the host environment children derive theirs from; nil: none
	// WebFetchAllow are the private addresses web_fetch may reach all the same (the user's
	// GEM_WEB_FETCH_ALLOW).
	WebFetchAllow []netip.Prefix
	Policy        *policy.Engine // decides every call; nil allows all (library use, tests)
	Audit         *policy.Audit  // where decisions are logged; nil logs none
	// AskWorkspace, when set, is asked about a user extension's program whose last tool list
	// holds a shell-like tool while it may not change the project (workspace_need.go); it
	// reports whether the user granted it (and recorded the grant). nil: nobody is asked.
	AskWorkspace func(WorkspaceNeed) bool
}

// Catalog holds the tools of one session. It is safe for concurrent use.
type Catalog struct {
	funcSchemas sync.Map   // Func schema text → *Tool holding it parsed and resolved (CallFunc)
	indexMu     sync.Mutex // one index at a time, so the last published is the newest
	mu          sync.RWMutex
	tools       []*Tool
	byName      map[string]*Tool
	pluginTools []*Tool // and the core tools
	core        *coreBackend
	plugins     []*plugins.Plugin
	servers     []*mcpServer
	// unconfigured are the MCP servers that wait for a setting (registry.UnconfiguredError):
	// listed, never started.
	unconfigured []MCPServer
	excluded     map[string]string // tool name → the extension whose excludeTools hides it
	services     *Services
	policy       *policy.Engine
	audit        *policy.Audit
	logger       hclog.Logger
	onChange     []func()
	trusted      map[string]bool // MCP servers the user's own settings trust
	unloaded     []unloadedPlugin
	// failedStarts are the MCP servers that did not start when a tool of theirs was looked
	// for, as errors: an unknown mcp_ tool names them.
	failedStarts []string
	askMu        sync.Mutex // one question at a time (afterFirstList)
}

// unloadedPlugin is a plugin that did not load, and the tools its cache says it brings.
type unloadedPlugin struct {
	what  string // "plugin P of extension E did not load: why"
	tools []string
}

// Load collects the tools of the enabled extensions' plugins of d. A plugin that fails is
// reported in the errors and does not stop the others.
func Load(ctx context.Context, env registry.Env, d *registry.Discovery, opts Options) (*Catalog, []error) {
	r := &Catalog{byName: map[string]*Tool{}, excluded: map[string]string{}, services: opts.Services, logger: opts.Logger, policy: opts.Policy, audit: opts.Audit}
	if r.logger == nil {
		r.logger = hclog.NewNullLogger()
	}
	r.trusted = map[string]bool{}
	if st := opts.Settings; st != nil {
		for _, name := range st.TrustedServers {
			r.trusted[name] = true
		}
		for _, name := range st.ExcludeTools {
			if !strings.Contains(name, "(") {
				r.excluded[name] = "settings"
			}
		}
	}
	var errs []error
	environ := opts.Environ // nil: programs start with nothing of gem's environment
	serverOwner := map[string]string{}
	exts := d.Effective()
	if x := opts.Settings.Extension(env); x != nil {
		exts = append([]*registry.Extension{x}, exts...) // the user's own servers first: their names win
	}
	for _, x := range exts {
		if !x.Active() {
			continue
		}
		m := x.Manifest()
		for _, name := range m.ExcludeTools {
			if !strings.Contains(name, "(") {
				r.excluded[name] = x.Name
			}
		}
		for i, ms := range m.MCPServers {
			if owner, taken := serverOwner[ms.Name]; taken {
				errs = append(errs, fmt.Errorf("mcp server %q of %s is skipped: %s declares a server of the same name first (rename one, or disable an extension)", ms.Name, x.Name, owner))
				continue
			}
			if r.waitsForSetting(x, ms) {
				serverOwner[ms.Name] = x.Name
				continue
			}
			srv, err := r.prepareServer(env, x, m, i, environ, opts)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			serverOwner[ms.Name] = x.Name
			r.servers = append(r.servers, srv)
		}
		for _, p := range m.Plugins {
			pl, err := preparePlugin(env, x, m, p, environ, opts)
			if err != nil {
				errs = append(errs, err)
				r.unloaded = append(r.unloaded, unloadedPlugin{what: fmt.Sprintf("plugin %s of extension %s did not load: %v", p.ID, x.Name, err)})
				continue
			}
			var specs []Spec
			if !opts.NoCache {
				specs = readToolCache(env, x.Dir, pl.Path)
			}
			// A shell-like tool it listed last time, and no way to change the project: the
			// user is asked (WorkspaceNeed), and a grant applies from this start.
			if askWorkspace(opts, x, "plugin "+p.ID, specs, pl.Policy) {
				if again, err := preparePlugin(env, x, m, p, environ, opts); err == nil {
					pl = again
				}
			}
			if specs == nil && opts.CachedOnly {
				continue
			}
			if specs == nil {
				c, err := pl.Client(ctx)
				if err != nil {
					errs = append(errs, err)
					r.unloaded = append(r.unloaded, unloadedPlugin{what: fmt.Sprintf("plugin %s of extension %s did not load: %v", p.ID, x.Name, err), tools: lastToolNames(env, x.Dir, pl.Path)})
					continue
				}
				specs = specsOf(c.Tools)
				// Its list is known only now (a first start): asked now, and a grant applies
				// from its next start, at its first call.
				if askWorkspace(opts, x, "plugin "+p.ID, specs, pl.Policy) {
					if again, err := preparePlugin(env, x, m, p, environ, opts); err == nil {
						pl.Close()
						pl = again
					}
				}
			}
			r.plugins = append(r.plugins, pl)
			for _, spec := range specs {
				t, err := newTool(x.Name, p.ID, spec, pl)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				r.pluginTools = append(r.pluginTools, t)
			}
		}
	}
	if opts.CoreWorkspace != "" {
		var enabled []string
		if opts.Settings != nil && len(opts.Settings.CoreTools) > 0 {
			enabled = opts.Settings.CoreTools
		}
		core, c, err := coreTools(opts.CoreWorkspace, MemoryFile(env, opts.Settings), enabled, newWebFetcher(environ, opts.WebFetchAllow), ripgrepPath(environ, opts.CoreWorkspace))
		if c != nil {
			c.buffers = opts.Buffers
		}
		if err != nil {
			errs = append(errs, err)
		} else {
			c.services = opts.Services
			c.dataDir, c.catalog = env.DataRoot(), r
			if len(r.servers) == 0 {
				core = slices.DeleteFunc(core, func(t *Tool) bool { return slices.Contains(mcpResourceTools, t.Declared) })
			}
			r.pluginTools, r.core = append(r.pluginTools, core...), c
		}
	}
	r.index()
	return r, errs
}

func preparePlugin(env registry.Env, x *registry.Extension, m *manifest.Manifest, p manifest.Plugin, environ []string, opts Options) (*plugins.Plugin, error) {
	bin, err := x.ResolveBinary(env, "plugin", p.ID, p.Binary)
	if err != nil {
		return nil, err
	}
	// The manifest's pin, else the install record (plugins start through the sandbox
	// helper by path: the check-to-exec window that `gem run` closes remains here).
	if f, err := commands.OpenVerified(env, x, bin.Path, p.SHA256, bin.Platform); err != nil {
		return nil, fmt.Errorf("plugin %s of %s: %w", p.ID, x.Name, err)
	} else if f != nil {
		f.Close()
	}
	childEnv, policy, err := commands.Program(env, x, commands.ProgramSpec{Root: commands.Workspace(env), Platform: bin.Platform, Declared: p.Env, Plugin: p.ID, Environ: environ, ReadSecrets: opts.ReadSecrets})
	if err != nil {
		return nil, fmt.Errorf("plugin %s of %s: %w", p.ID, x.Name, err)
	}
	pl := &plugins.Plugin{
		Config:      plugins.Config{Name: p.ID, Extension: x.Name, Path: bin.Path, Env: childEnv, Logger: opts.Logger, Policy: policy, SocketBase: env.RunDir()},
		CallTimeout: opts.CallTimeout,
	}
	if opts.Services != nil {
		pl.Host = opts.Services.For(p.ID)
	}
	pl.OnStart = func(c *plugins.Client) {
		if err := writeToolCache(env, x.Dir, bin.Path, specsOf(c.Tools)); err != nil && opts.Logger != nil {
			opts.Logger.Warn("writing the tool cache", "plugin", p.ID, "error", err)
		}
	}
	return pl, nil
}

func newTool(ext, plugin string, spec Spec, pl *plugins.Plugin) (*Tool, error) {
	t := &Tool{Name: spec.Name, Declared: spec.Name, base: spec.Name, Extension: ext, Plugin: plugin, Spec: spec, backend: pluginBackend{pl}}
	if err := t.resolveSchema(); err != nil {
		return nil, fmt.Errorf("plugin %s of %s: %w", plugin, ext, err)
	}
	return t, nil
}

// resolveSchema parses and resolves t's argument schema, for Call to validate with.
func (t *Tool) resolveSchema() error {
	var s jsonschema.Schema
	if err := json.Unmarshal(t.Spec.InputSchema, &s); err != nil {
		return fmt.Errorf("tool %s has an invalid schema: %w", t.Spec.Name, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: schema: %w", t.Spec.Name, err)
	}
	t.schema, t.resolved = &s, resolved
	return nil
}

// index rebuilds the tool list from the plugins' tools and the started MCP servers' tools:
// excludeTools applied, the conflict rule (a name two sources share: both become
// <extension>_<name>), sorted by name.
func (r *Catalog) index() {
	for _, fn := range r.publishIndex() {
		fn()
	}
}

// publishIndex builds and publishes the tool list under indexMu: two servers that finish
// starting at once cannot publish out of order. It returns the change callbacks to run.
func (r *Catalog) publishIndex() []func() {
	r.indexMu.Lock()
	defer r.indexMu.Unlock()
	all := append([]*Tool{}, r.pluginTools...)
	for _, srv := range r.servers {
		all = append(all, srv.registryTools(r.logger)...)
	}
	kept := all[:0]
	for _, t := range all {
		if _, hidden := r.excluded[t.base]; hidden {
			continue
		}
		if _, hidden := r.excluded[t.Declared]; hidden {
			continue
		}
		kept = append(kept, t)
	}
	count := map[string]int{}
	for _, t := range kept {
		count[t.base]++
	}
	byName := make(map[string]*Tool, len(kept))
	for i, t := range kept {
		c := *t // readers may hold the previous list
		c.Name = c.base
		if count[c.base] > 1 {
			c.Name = c.Extension + "_" + c.base
		}
		kept[i] = &c
		byName[c.Name] = &c
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name })
	r.mu.Lock()
	r.tools, r.byName = kept, byName
	callbacks := r.onChange
	r.mu.Unlock()
	return callbacks
}

// List returns the tools, sorted by name.
func (r *Catalog) List() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tools
}

// OnChange registers fn to run after the tool list changed (an MCP server started or sent
// a list-changed notification).
func (r *Catalog) OnChange(fn func()) {
	r.mu.Lock()
	r.onChange = append(r.onChange, fn)
	r.mu.Unlock()
}

// Lookup finds a tool among those listed now (it starts nothing).
func (r *Catalog) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// Find is Lookup that first starts the MCP servers an mcp_ name can belong to.
func (r *Catalog) Find(ctx context.Context, name string) (*Tool, bool) {
	if t, ok := r.Lookup(name); ok || !strings.HasPrefix(name, "mcp_") {
		if !ok && LegacyToolNames[name] != "" {
			if t, ok := r.Lookup(LegacyToolNames[name]); ok && t.Extension == "gem" {
				return t, true // a core tool under Gemini CLI's older name
			}
		}
		return t, ok
	}
	for _, err := range r.StartMCP(ctx, r.serversFor(name)...) {
		// kept to say why the tool is missing (unknownTool), not only "no tool"
		r.mu.Lock()
		if !slices.Contains(r.failedStarts, err.Error()) { // a long session looks again and again
			r.failedStarts = append(r.failedStarts, err.Error())
		}
		r.mu.Unlock()
	}
	return r.Lookup(name)
}

// Policy is the engine deciding the catalog's calls (nil: every call allowed).
func (r *Catalog) Policy() *policy.Engine { return r.policy }

// authorize asks the policy engine about a call, asks the user when it says ask_user (the
// call's own host first: an MCP client of gem mcp serve; else the session's services), logs
// the decision, and returns ErrDenied when the call must not run.
func (r *Catalog) authorize(ctx context.Context, t *Tool, args json.RawMessage, opts CallOptions) error {
	if r.policy == nil {
		return nil
	}
	c := policy.Call{Tool: t.Name, Extension: t.Extension, Kind: r.policyKind(t), Args: args}
	if t.Server != "" {
		server := mcphost.SanitizeName(t.Server)
		if tool, ok := strings.CutPrefix(t.Name, "mcp_"+server+"_"); ok {
			c.MCPServer, c.MCPTool = server, tool
		}
	}
	v := r.policy.Decide(c)
	if opts.Confirm != "" && v.Decision == policy.Allow {
		v.Decision = policy.AskUser // a hook asks that the user confirm
	}
	entry := policy.Entry{Extension: t.Extension, Tool: t.Name, ArgsDigest: policy.Digest(args), Decision: v.Decision, Rule: v.Rule.String(), Mode: r.policy.CurrentMode(), Outcome: "ran"}
	defer func() {
		if err := r.audit.Log(entry); err != nil {
			r.logger.Warn("writing the audit log", "error", err)
		}
	}()
	switch v.Decision {
	case policy.Deny:
		entry.Outcome = "refused"
		return &DeniedError{Tool: t.Name, Rule: v.Rule.String()}
	case policy.AskUser:
		question := describeCall(t, args)
		if opts.Confirm != "" {
			question = "A hook asks you to confirm this (" + termsafe.Show(opts.Confirm, "") + ").\n" + question
		}
		svc := r.services
		if opts.Prompt != nil {
			svc = &Services{Prompt: opts.Prompt}
		}
		asked := AskedCall{Tool: t.Name, Extension: t.Extension, Args: args, Question: question}
		answer, err := svc.ask(context.WithValue(ctx, askedKey{}, asked), question, map[string]any{"tool_name": t.Name, "tool_input": args, "extension": t.Extension})
		entry.Answer = string(answer)
		if _, later := errors.AsType[*DeferredError](err); later {
			entry.Outcome = "deferred"
			return err
		}
		if err != nil {
			entry.Outcome = "refused"
			return fmt.Errorf("asking about %s: %w", t.Name, err)
		}
		switch answer {
		case policy.AnswerAlways, policy.AnswerSave:
			if err := r.policy.Remember(c, answer == policy.AnswerSave); err != nil {
				r.logger.Warn("remembering an answer", "error", err)
			}
		case policy.AnswerYes:
		default:
			entry.Outcome = "refused"
			return &DeniedError{Tool: t.Name}
		}
	}
	return nil
}

// policyKind is the kind the policy decides a call of t by. An MCP tool's kind comes from
// annotations its server chose, which can only make it stricter: unless the user's own
// settings trust the server, it counts as execute (asked in default mode, denied in plan).
func (r *Catalog) policyKind(t *Tool) string {
	if t.Server != "" && !r.trusted[t.Server] {
		if k := t.Kind(); k == KindDelete || k == KindMove || k == KindEdit {
			return string(k)
		}
		return string(KindExecute)
	}
	return string(t.Kind())
}

// AuthorizeShell decides a shell command a prompt command wants to run (!{…}) as Gemini
// CLI does: as a run_shell_command call of kind execute, under the same rules and questions.
func (r *Catalog) AuthorizeShell(ctx context.Context, extension, command string, opts CallOptions) error {
	t := &Tool{Name: "run_shell_command", Declared: "run_shell_command", Extension: extension, Spec: Spec{Kind: KindExecute}}
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return err
	}
	return r.authorize(ctx, t, args, opts)
}

// describeCall is the question put to the user about a call: the whole command (or
// arguments), escaped and wrapped by policy.Show, never cut.
func describeCall(t *Tool, args json.RawMessage) string {
	what := string(args)
	var a struct {
		Command *string `json:"command"`
	}
	always := ""
	if json.Unmarshal(args, &a) == nil && a.Command != nil {
		what = "$ " + *a.Command
		if an := policy.AnalyzeCommand(*a.Command); len(an.Commands) > 0 && len(an.Commands[0]) > 0 {
			always = fmt.Sprintf(" (\"always\" covers every %s command)", termsafe.Show(an.Commands[0][0], "")) // as policy.Remember saves it
		}
	}
	if diff, ok := t.previewEdit(args); ok {
		// a file edit: the change itself, as a unified diff
		return fmt.Sprintf("%s (%s, from %s) wants to change a file:\n%s\nAllow it?", t.Name, t.Kind(), t.Extension, termsafe.Show(diff, "  "))
	}
	return fmt.Sprintf("%s (%s, from %s) wants to run:\n%s\nAllow it%s?", t.Name, t.Kind(), t.Extension, termsafe.Show(what, "  "), always)
}

// Result is a tool call's outcome in the host's terms, whatever the tool's source.
type Result struct {
	Text       string          `json:"text"`                 // for the model
	Display    string          `json:"display,omitempty"`    // for the user, when it differs
	Structured json.RawMessage `json:"structured,omitempty"` // structured output, JSON
	Error      *ResultError    `json:"error,omitempty"`      // the tool's own failure
}

// ResultError is a tool's own failure, with a type the model can act on.
type ResultError struct {
	Type    ErrorType `json:"type"`
	Message string    `json:"message"`
	// Sandbox is what the sandbox made of the failure when it points at it (a path it
	// denied, the network): said in Message too, for the model; the front end adds what
	// to grant.
	Sandbox *sandbox.FailureError `json:"-"`
}

// explain reads a sandboxed tool's failure against its policy: a denied path outside what
// it may write, a project file it may not change, or the network it lacks is named in the
// message (the model then tells the user the cause, not just "permission denied") and kept
// in Sandbox. A failure the sandbox did not cause (a path it may write) is left as is.
func (e *ResultError) explain(extension string, p *sandbox.Policy) {
	if p == nil {
		return
	}
	f := sandbox.Classify([]string{e.Message}, p)
	if f.Kind == "" {
		f = sandbox.Hidden(e.Message, p)
	}
	switch f.Kind {
	case sandbox.FailedPath:
		for _, w := range p.Write {
			if pathx.Within(w, f.Detail) {
				return
			}
		}
	case sandbox.FailedWorkspace, sandbox.FailedProtected, sandbox.FailedNetwork:
	default:
		return
	}
	e.Sandbox = &sandbox.FailureError{Extension: extension, Failure: f, Err: errors.New(e.Message)}
	e.Message += "\n(" + f.String() + ")"
}

// Summary is the error as one line: "type: message".
func (e *ResultError) Summary() string { return string(e.Type) + ": " + e.Message }

// DisplayText is what to show a user.
func (r *Result) DisplayText() string {
	if r.Display != "" {
		return r.Display
	}
	return r.Text
}

// Call validates args against the tool's schema and runs it. An error means the call did not
// happen or did not finish (unknown tool, invalid arguments, the plugin crashed, timeout);
// a tool's own failure is the Result's Error.
func (r *Catalog) Call(ctx context.Context, name string, args json.RawMessage, opts CallOptions) (*Result, error) {
	t, ok := r.Find(ctx, name)
	if !ok {
		return nil, r.unknownTool(name)
	}
	return r.call(ctx, t, args, opts)
}

func (r *Catalog) call(ctx context.Context, t *Tool, args json.RawMessage, opts CallOptions) (*Result, error) {
	name := t.Name
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, &ArgumentsError{Tool: name, Problems: []string{err.Error()}, NotJSON: true}
	}
	if obj, ok := v.(map[string]any); ok && t.renameAliases(obj) {
		args, _ = json.Marshal(obj) // policies, hooks and the tool see the current names
	}
	if t.resolved == nil {
		// An MCP schema gem cannot check: the server validates.
	} else if err := t.resolved.Validate(v); err != nil {
		problems := t.violations(v)
		if len(problems) == 0 {
			problems = []string{err.Error()}
		}
		return nil, &ArgumentsError{Tool: name, Problems: problems}
	}
	if err := r.authorize(ctx, t, args, opts); err != nil {
		return nil, err
	}
	res, err := t.backend.call(ctx, t.Declared, args, opts)
	if err != nil {
		return nil, err
	}
	if res.Error != nil {
		res.Error.explain(t.backend.sandbox())
	}
	return res.capped(), nil
}

// unknownTool is the error for a name no tool has, with the one probably meant.
func (r *Catalog) unknownTool(name string) *UnknownToolError {
	var names []string
	for _, t := range r.List() {
		names = append(names, t.Name)
	}
	e := &UnknownToolError{Name: name, Similar: suggest.Closest(name, names)}
	r.mu.RLock()
	if strings.HasPrefix(name, "mcp_") && len(r.failedStarts) > 0 {
		e.Unloaded = append(e.Unloaded, r.failedStarts...)
	}
	r.mu.RUnlock()
	for _, u := range r.unloaded {
		if slices.Contains(u.tools, name) {
			e.NotLoaded, e.Similar = u.what, ""
			return e
		}
		if u.tools == nil {
			e.Unloaded = append(e.Unloaded, u.what)
		}
	}
	return e
}

// UnknownTool is the error for a name no tool of the catalog has.
func (r *Catalog) UnknownTool(name string) error { return r.unknownTool(name) }

// capped cuts the result's texts to limits.ToolResult, saying so in them.
func (r *Result) capped() *Result {
	r.Text = limits.Truncate(r.Text, limits.ToolResult)
	r.Display = limits.Truncate(r.Display, limits.ToolResult)
	if len(r.Structured) > limits.ToolResult {
		r.Structured = nil
		r.Text += fmt.Sprintf("\n[gem: structured output dropped: over the limit of %d bytes]", limits.ToolResult)
	}
	return r
}

// violations lists every problem of an object argument: each missing required property,
// each unknown one when additional properties are not allowed, and each property that does
// not match its own schema (the schema library stops at the first).
func (t *Tool) violations(v any) []string {
	obj, ok := v.(map[string]any)
	if !ok || t.schema == nil {
		return nil
	}
	var out []string
	for _, req := range t.schema.Required {
		if _, present := obj[req]; !present {
			out = append(out, fmt.Sprintf("%q is required", req))
		}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ps, known := t.schema.Properties[k]
		if !known {
			if ap := t.schema.AdditionalProperties; ap != nil && ap.Not != nil {
				out = append(out, fmt.Sprintf("%q is not a parameter of this tool", k))
			}
			continue
		}
		r, err := ps.Resolve(nil)
		if err != nil {
			continue
		}
		if err := r.Validate(obj[k]); err != nil {
			out = append(out, fmt.Sprintf("%q: %s", k, strings.TrimPrefix(err.Error(), "validating root: ")))
		}
	}
	return out
}

// Running counts the plugin and MCP server processes up now.
func (r *Catalog) Running() int {
	n := 0
	for _, p := range r.plugins {
		if p.Running() {
			n++
		}
	}
	for _, s := range r.servers {
		if s.Pid() != 0 {
			n++
		}
	}
	return n
}

// Close stops every plugin and MCP server, in parallel.
func (r *Catalog) Close() {
	defer r.audit.Close()
	var wg sync.WaitGroup
	for _, p := range r.plugins {
		wg.Go(p.Close)
	}
	for _, s := range r.servers {
		wg.Go(s.Close)
	}
	wg.Wait()
	if r.core != nil {
		r.core.close()
	}
}

// Func is a tool the caller runs itself (the agent's activate_skill and subagents): not
// listed in the catalog, but called through it like the catalog's tools, so every tool the
// model can call takes one path — its arguments validated against Spec.InputSchema, the
// policy's decision (by Spec.Kind) asked and audited — before Run.
type Func struct {
	Spec      Spec
	Extension string // whose it is, for policy rules and the audit ("gem": gem's own)
	Run       func(ctx context.Context, args json.RawMessage) (*Result, error)
}

// funcBackend runs a Func's Run.
type funcBackend struct {
	run func(ctx context.Context, args json.RawMessage) (*Result, error)
}

func (b funcBackend) call(ctx context.Context, _ string, args json.RawMessage, _ CallOptions) (*Result, error) {
	return b.run(ctx, args)
}

func (funcBackend) sandbox() (string, *sandbox.Policy) { return "", nil }

// CallFunc calls f as Call calls a tool of the catalog. Its schema is resolved once per
// schema text (a Func is made for each call).
func (r *Catalog) CallFunc(ctx context.Context, f Func, args json.RawMessage, opts CallOptions) (*Result, error) {
	if r == nil {
		return f.Run(ctx, args) // no catalog: nothing to decide with
	}
	t := &Tool{Name: f.Spec.Name, Declared: f.Spec.Name, base: f.Spec.Name, Extension: f.Extension, Spec: f.Spec, backend: funcBackend{f.Run}}
	if cached, ok := r.funcSchemas.Load(string(f.Spec.InputSchema)); ok {
		c := cached.(*Tool)
		t.schema, t.resolved = c.schema, c.resolved
	} else {
		if err := t.resolveSchema(); err != nil {
			return nil, err
		}
		r.funcSchemas.Store(string(f.Spec.InputSchema), &Tool{schema: t.schema, resolved: t.resolved})
	}
	return r.call(ctx, t, args, opts)
}
