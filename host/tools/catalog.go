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
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/policy"
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
	// Launcher is the session's (host/launch): every program of the catalog is prepared and
	// started through it. nil: Load makes one from env, Environ and ReadSecrets.
	Launcher *launch.Launcher
}

// Catalog holds the tools of one session. It is safe for concurrent use.
type Catalog struct {
	funcSchemas sync.Map   // Func schema text → *Tool holding it parsed and resolved (CallFunc)
	indexMu     sync.Mutex // one index at a time, so the last published is the newest
	mu          sync.RWMutex
	launcher    *launch.Launcher // the session's (Options.Launcher)
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
	if opts.Launcher == nil {
		opts.Launcher = launch.New(launch.Options{Env: env, Environ: opts.Environ, ReadSecrets: opts.ReadSecrets})
	}
	r := &Catalog{byName: map[string]*Tool{}, excluded: map[string]string{}, services: opts.Services, logger: opts.Logger, policy: opts.Policy, audit: opts.Audit, launcher: opts.Launcher}
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
			if opts.Settings != nil && opts.Settings.MCPOff {
				break // mcp.enabled false: no MCP server at all
			}
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
			c.services, c.launcher = opts.Services, opts.Launcher
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
	childEnv, policy, err := opts.Launcher.Program(x, commands.ProgramSpec{Platform: bin.Platform, Declared: p.Env, Plugin: p.ID})
	if err != nil {
		return nil, fmt.Errorf("plugin %s of %s: %w", p.ID, x.Name, err)
	}
	pl := &plugins.Plugin{
		Config:      plugins.Config{Name: p.ID, Extension: x.Name, Path: bin.Path, Env: childEnv, Logger: opts.Logger, Policy: policy, SocketBase: env.RunDir(), Launcher: opts.Launcher},
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
