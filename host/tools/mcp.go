package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/host/commands"
	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/mcpauth"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/host/toolchain/launcher"
	"github.com/gemhost/gem/internal/suggest"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// mcpServer is an MCP server of the catalog with its tools converted once per list; it is
// their backend. Until it has started, its tools are those of its cache (mcpcache.go).
type mcpServer struct {
	*mcphost.Client
	services  *Services // progress of calls without their own host
	cacheFile string
	cached    []*sdk.Tool // the list the cache held at load; nil: none
	fetches   bool        // its launcher downloads what it runs (npx, uvx …: toolchain.Profile.Network)
	// firstList, for a stdio server without a cached list, is run once after its first
	// start, when its list is known: a shell-like tool there may make gem ask for the
	// workspace capability (and start it again with it).
	firstList func(ctx context.Context) error
	mu        sync.Mutex
	from      []*sdk.Tool // the list the conversion was made from
	tools     []*Tool
}

// MCPServer describes one server for `gem mcp list`.
type MCPServer struct {
	Name      string
	Extension string
	Transport string
	Endpoint  string
	State     string
	Error     error
	Tools     int
	Pid       int
}

// StateNeedsConfig is the state of an MCP server that waits for a setting of its extension
// (registry.UnconfiguredError): it is not started.
const StateNeedsConfig = "needs-config"

// waitsForSetting records ms, an MCP server of x, as waiting for a setting of x when its
// address is one not set (registry.UnconfiguredError): it is listed, never started.
func (r *Catalog) waitsForSetting(x *registry.Extension, ms manifest.MCPServer) bool {
	err := x.Unconfigured(ms)
	if err == nil {
		return false
	}
	transport, _ := mcphost.TransportOf(ms)
	r.unconfigured = append(r.unconfigured, MCPServer{Name: ms.Name, Extension: x.Name, Transport: string(transport), State: StateNeedsConfig, Error: err})
	return true
}

// Servers describes the MCP servers of the session, in discovery order, then those that
// wait for a setting.
func (r *Catalog) Servers() []MCPServer {
	out := make([]MCPServer, 0, len(r.servers)+len(r.unconfigured))
	for _, s := range r.servers {
		st, err := s.State()
		out = append(out, MCPServer{Name: s.Name, Extension: s.Extension, Transport: string(s.Transport), Endpoint: s.Endpoint(), State: string(st), Error: err, Tools: len(s.Tools()), Pid: s.Pid()})
	}
	return append(out, r.unconfigured...)
}

// ServerTools lists the catalog's tools served by one MCP server (after starting it).
func (r *Catalog) ServerTools(ctx context.Context, server string) ([]*Tool, error) {
	for _, s := range r.servers {
		if s.Name != server {
			continue
		}
		if errs := r.StartMCP(ctx, s.Name); len(errs) > 0 {
			return nil, errs[0]
		}
		var out []*Tool
		for _, t := range r.List() {
			if t.Server == s.Name {
				out = append(out, t)
			}
		}
		return out, nil
	}
	return nil, r.unknownServer(server)
}

func (r *Catalog) prepareServer(env registry.Env, x *registry.Extension, m *manifest.Manifest, i int, environ []string, opts Options) (*mcpServer, error) {
	raw := m.MCPServers[i]
	for j, a := range append([]string{raw.Command}, raw.Args...) {
		field := fmt.Sprintf("%s: mcpServers.%s.args[%d]", x.ManifestPath, raw.Name, j-1)
		if j == 0 {
			field = fmt.Sprintf("%s: mcpServers.%s.command", x.ManifestPath, raw.Name)
		}
		if err := commands.CheckCommandLine(x, field, a); err != nil {
			return nil, err
		}
	}
	platforms := manifest.HostPlatforms(env.Getenv)
	platform := platforms[0]
	resolved := m.Resolved(x.Expander(env, platform)).MCPServers[i]
	// A command path built with ${platform}/${arch}: Node's names first, Go's if only they exist.
	for _, p := range platforms[1:] {
		if _, err := os.Stat(resolved.Command); err == nil || !strings.ContainsRune(resolved.Command, os.PathSeparator) {
			break
		}
		alt := m.Resolved(x.Expander(env, p)).MCPServers[i]
		if _, err := os.Stat(alt.Command); err == nil {
			resolved, platform = alt, p
		}
	}
	payloadDir := ""
	if pin, ok := x.PinnedPayload(env, raw.Name); ok && resolved.Command != "" {
		// The launcher gets the version the install pinned (gem.lock), never @latest; npx
		// runs it from where a bundle or a mirror installed it, when one did.
		if pkg, ok := launcher.PackageOf(resolved.Command, resolved.Args); ok && pkg.Type == pin.Type && pkg.Name == pin.Name {
			resolved.Args = launcher.Pin(resolved.Args, pkg, pin)
			if dir, ok := launcher.NPMInstalled(env.PayloadRoot(), pin); ok && !slices.ContainsFunc(resolved.Args, func(a string) bool { return strings.HasPrefix(a, "--prefix") }) {
				resolved.Args, payloadDir = launcher.PrefixArgs(resolved.Args, dir), dir
			}
		}
	}
	// An extension's server never runs the project's code in its launcher's place (npx's
	// --prefix: toolchain.KeepOuts; its environment's part is Program's); a server the user
	// declared may mean the project's own packages.
	spec := commands.ProgramSpec{Platform: platform, Declared: raw.Env, Command: resolved.Command, Args: resolved.Args, Server: raw.Name, Payload: payloadDir}
	var args []string
	if !x.Synthetic && resolved.Command != "" {
		args, _ = toolchain.KeepProjectOut(resolved.Command, slices.Clone(resolved.Args), env.DataDir(x.Name))
	}
	var childEnv []string
	var policy *sandbox.Policy
	program := func() error {
		var err error
		if childEnv, policy, err = opts.Launcher.Program(x, spec); err != nil {
			return fmt.Errorf("mcp server %s of %s: %w", raw.Name, x.Name, err)
		}
		return nil
	}
	if resolved.Command != "" {
		if err := program(); err != nil {
			return nil, err
		}
	}
	localAllowed := true
	if resolved.Command == "" {
		// A remote server: gem connects for the extension, to public addresses only unless
		// the extension has the network capability (the user's settings servers have it).
		// What cannot be worked out (a workspace gem refuses, an unreadable grant) reaches
		// public addresses only.
		pol, err := opts.Launcher.Isolation(x, platform, "")
		localAllowed = err == nil && pol.Network
	}
	srv := &mcpServer{services: opts.Services, cacheFile: env.MCPToolCacheFile(x.Dir, mcpCacheKey(x.Name, resolved, childEnv, env.Cwd))}
	srv.cached = readMCPCache(srv.cacheFile)
	// A shell-like tool in the list it had last time, and no way to change the project: the
	// user is asked (WorkspaceNeed), and a grant applies from this start.
	if resolved.Command != "" && askWorkspace(opts, x, "MCP server "+raw.Name, mcpSpecs(srv.cached), policy) {
		if err := program(); err != nil {
			return nil, err
		}
	}
	if resolved.Command != "" && srv.cached == nil {
		srv.firstList = func(ctx context.Context) error {
			if !askWorkspace(opts, x, "MCP server "+raw.Name, mcpSpecs(srv.Tools()), policy) {
				return nil
			}
			if err := program(); err != nil {
				return err
			}
			return srv.Restart(ctx, policy, childEnv)
		}
	}
	var progress, caches []string
	if pr := toolchain.ProfileOf(filepath.Base(resolved.Command)); resolved.Command != "" && pr != nil && pr.Network {
		srv.fetches = true
		// What says its launcher is downloading: its progress lines, its caches growing (as
		// the program writes them: the overlays its writes land in, or the caches themselves).
		progress = pr.Progress
		if policy != nil {
			for _, o := range policy.Overlays {
				if toolchain.IsProfileCache(o.Lower, env.Home) {
					caches = append(caches, o.Upper)
				}
			}
			for _, w := range policy.Write {
				if toolchain.IsProfileCache(w, env.Home) {
					caches = append(caches, w)
				}
			}
		}
	}
	c, err := mcphost.New(mcphost.Config{
		Name: raw.Name, Extension: x.Name, Source: x.ManifestPath, Server: resolved, Args: args, Env: childEnv, Dir: env.Cwd, Logger: opts.Logger, Policy: policy, Launcher: opts.Launcher,
		LocalAllowed:   localAllowed,
		Auth:           &mcpauth.Store{Env: env},
		StartTimeout:   mcpStartTimeout(env),
		Progress:       progress,
		Caches:         caches,
		Waiting:        opts.Services.waiting(),
		OnToolsChanged: func(*mcphost.Client) { srv.saveCache(opts.Logger); r.index() },
	})
	if err != nil {
		return nil, err
	}
	srv.Client = c
	return srv, nil
}

// UncachedServers names the MCP servers whose tools are not known yet: not started, and no
// list in the cache.
func (r *Catalog) UncachedServers() []string {
	var out []string
	for _, s := range r.servers {
		if st, _ := s.State(); st != mcphost.Ready && s.cached == nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// StartMCP starts the named MCP servers (every one when none is named) in parallel and
// adds their tools; each server that fails is one error, and the others go on.
func (r *Catalog) StartMCP(ctx context.Context, names ...string) []error {
	return r.startWhere(ctx, func(s *mcpServer) bool { return len(names) == 0 || slices.Contains(names, s.Name) })
}

// Prefetch starts the MCP servers of extension whose launcher downloads what it runs (npx,
// uvx …) and whose tools are not known yet, so the download happens now (gem ext install
// --prefetch) and not at the first request; it leaves their tool lists in the cache, so
// later starts keep the usual limit. It returns the servers it started and their failures.
func (r *Catalog) Prefetch(ctx context.Context, extension string) (started []string, errs []error) {
	started = r.Fetching(extension)
	if len(started) == 0 {
		return nil, nil
	}
	return started, r.startWhere(ctx, func(s *mcpServer) bool { return fetching(s, extension) })
}

// Fetching names the servers Prefetch would start.
func (r *Catalog) Fetching(extension string) []string {
	var out []string
	for _, s := range r.servers {
		if fetching(s, extension) {
			out = append(out, s.Name)
		}
	}
	return out
}

func fetching(s *mcpServer, extension string) bool {
	return s.Extension == extension && s.fetches && s.cached == nil
}

func (r *Catalog) startWhere(ctx context.Context, pick func(*mcpServer) bool) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, s := range r.servers {
		if !pick(s) {
			continue
		}
		wg.Go(func() {
			if err := s.Start(ctx); err != nil {
				if r.logger != nil {
					r.logger.Warn("mcp server did not start", "server", s.Name, "extension", s.Extension, "error", err)
				}
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			if err := r.afterFirstList(ctx, s); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			// Saved now, not only by the list's own callback: a command that lists and
			// exits (gem tools list) must leave the cache behind.
			s.saveCache(r.logger)
		})
	}
	wg.Wait()
	r.index()
	return errs
}

// afterFirstList runs s.firstList once, one server at a time (it may ask the user).
func (r *Catalog) afterFirstList(ctx context.Context, s *mcpServer) error {
	r.askMu.Lock()
	defer r.askMu.Unlock()
	f := s.firstList
	s.firstList = nil
	if f == nil {
		return nil
	}
	return f(ctx)
}

// serversFor names the servers whose tools an mcp_ name can be: those whose prefix it has,
// or every server when the name was shortened ("...") or no prefix fits.
func (r *Catalog) serversFor(name string) []string {
	var out []string
	if !strings.Contains(name, "...") {
		for _, s := range r.servers {
			if strings.HasPrefix(name, mcphost.SanitizeName("mcp_"+s.Name+"_")) {
				out = append(out, s.Name)
			}
		}
	}
	if len(out) == 0 {
		for _, s := range r.servers {
			out = append(out, s.Name)
		}
	}
	return out
}

// mcpSpecs are the names and argument schemas of an MCP tool list.
func mcpSpecs(list []*sdk.Tool) []Spec {
	out := make([]Spec, 0, len(list))
	for _, mt := range list {
		schema, _ := json.Marshal(mt.InputSchema)
		out = append(out, Spec{Name: mt.Name, InputSchema: schema})
	}
	return out
}

// registryTools converts the server's current tool list (nothing before it started).
func (s *mcpServer) registryTools(log hclog.Logger) []*Tool {
	list := s.Tools()
	if st, _ := s.State(); st != mcphost.Ready && len(list) == 0 {
		list = s.cached
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(list) > 0 && len(s.from) == len(list) && &s.from[0] == &list[0] {
		return s.tools
	}
	s.from, s.tools = list, nil
	for _, mt := range list {
		s.tools = append(s.tools, newMCPTool(s, mt, log))
	}
	return s.tools
}

func newMCPTool(s *mcpServer, mt *sdk.Tool, log hclog.Logger) *Tool {
	schema, err := json.Marshal(mt.InputSchema)
	if err != nil || mt.InputSchema == nil || string(schema) == "null" {
		schema = []byte(`{"type":"object"}`)
	}
	// Kinds from the server's hints: read-only is read, destructive is delete, else other.
	kind := KindOther
	if a := mt.Annotations; a != nil && a.ReadOnlyHint {
		kind = KindRead
	} else if a != nil && a.DestructiveHint != nil && *a.DestructiveHint {
		kind = KindDelete
	}
	spec := Spec{Name: mt.Name, Description: mt.Description, Kind: kind, InputSchema: schema}
	if mt.OutputSchema != nil {
		if out, err := json.Marshal(mt.OutputSchema); err == nil && string(out) != "null" {
			spec.OutputSchema = out
		}
	}
	name := mcphost.ToolName(s.Name, mt.Name)
	t := &Tool{Name: name, base: name, Declared: mt.Name, Extension: s.Extension, Server: s.Name, Spec: spec, backend: s}
	// Servers write schemas in many drafts; gem checks the ones it can and leaves the rest to
	// the server.
	var js jsonschema.Schema
	if err := json.Unmarshal(schema, &js); err == nil {
		if res, err := js.Resolve(nil); err == nil {
			t.schema, t.resolved = &js, res
		} else {
			log.Debug("mcp tool schema not checked by gem", "tool", name, "error", err)
		}
	}
	return t
}

// call runs one of the server's tools: progress goes to the call's host, else the session's.
func (s *mcpServer) call(ctx context.Context, declared string, args json.RawMessage, opts CallOptions) (*Result, error) {
	var host HostServices = opts.Host
	if host == nil && s.services != nil {
		host = s.services.For(s.Name)
	}
	var copts mcphost.CallOptions
	if host != nil {
		copts.OnProgress = func(message string, fraction float64) { host.Progress(ctx, message, fraction) }
	}
	res, err := s.Client.Call(ctx, declared, args, copts)
	if err != nil {
		return nil, err
	}
	return fromMCP(res), nil
}

func (s *mcpServer) sandbox() (string, *sandbox.Policy) { return s.Extension, s.Policy }

// fromMCP converts an MCP result: text contents joined by newlines, images and audio as
// Media (named in brackets in the text, so the model knows what came), other contents named
// in brackets, structured content as JSON, isError as an execution error.
func fromMCP(res *sdk.CallToolResult) *Result {
	var parts []string
	var media []Media
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes: attached]", c.MIMEType, len(c.Data)))
			media = append(media, Media{MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes: attached]", c.MIMEType, len(c.Data)))
			media = append(media, Media{MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", c.URI))
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s]", c.Resource.URI))
			}
		}
	}
	out := &Result{Text: strings.Join(parts, "\n"), Media: media}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			out.Structured = data
		}
	}
	if res.IsError {
		out.Error = &ResultError{Type: ErrorExecution, Message: out.Text}
	}
	return out
}

// MCPServerByName returns an MCP server of the session.
func (r *Catalog) MCPServerByName(name string) (*mcphost.Client, error) {
	for _, s := range r.servers {
		if s.Name == name {
			return s.Client, nil
		}
	}
	return nil, r.unknownServer(name)
}

// unknownServer is the error for a name no MCP server has, with the one probably meant.
func (r *Catalog) unknownServer(name string) *UnknownServerError {
	var names []string
	for _, s := range r.servers {
		names = append(names, s.Name)
	}
	return &UnknownServerError{Name: name, Similar: suggest.Closest(name, names)}
}

// mcpStartTimeout is GEM_MCP_START_TIMEOUT (a Go duration), or 0 for the default.
func mcpStartTimeout(env registry.Env) time.Duration {
	if env.Getenv == nil {
		return 0
	}
	d, _ := time.ParseDuration(env.Getenv("GEM_MCP_START_TIMEOUT"))
	return d
}
