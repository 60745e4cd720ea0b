// Package tools owns the host's tool registry: the tools of enabled extensions' go-plugin
// plugins (MCP servers join in the MCP issue), their names after the conflict rule, argument
// validation against each tool's JSON Schema (every violation reported), and calls.
//
// Plugins start lazily: a plugin whose binary has a valid entry in the tool cache
// ($GEM_HOME/cache/tools, see cache.go) is listed from it and started on its first call; one
// without is started when the registry loads, and stays warm for the session. Each start
// rewrites the cache, so a changed binary is picked up.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/pluginsdk"
	pb "github.com/gemhost/gem/pluginsdk/proto"
	"github.com/gemhost/gem/registry"
)

// Tool is one tool in the registry.
type Tool struct {
	Name      string // as the model sees it
	Declared  string // as the plugin declares it
	Extension string
	Plugin    string
	Spec      *pb.ToolSpec
	Schema    json.RawMessage
	schema    *jsonschema.Schema
	resolved  *jsonschema.Resolved
	plugin    *plugins.Plugin
}

// Kind is the tool's kind in lower case (read, edit, execute, …).
func (t *Tool) Kind() string {
	if t.Spec.Kind == pb.Kind_KIND_UNSPECIFIED {
		return "other"
	}
	return strings.ToLower(strings.TrimPrefix(t.Spec.Kind.String(), "KIND_"))
}

// Options configure a registry.
type Options struct {
	ReadSecrets registry.SecretReader
	Logger      hclog.Logger
	CallTimeout time.Duration // per call; 0: plugins.DefaultCallTimeout
	Services    *Services     // host services offered to plugins; nil offers none
	NoCache     bool          // start every plugin now instead of trusting the tool cache
	Environ     []string      // the host environment children derive theirs from; nil: os.Environ()
}

// Registry holds the tools of one session.
type Registry struct {
	Tools   []*Tool
	byName  map[string]*Tool
	plugins []*plugins.Plugin
}

// Load collects the tools of the enabled extensions' plugins of d. A plugin that fails is
// reported in the errors and does not stop the others.
func Load(ctx context.Context, env registry.Env, d *registry.Discovery, opts Options) (*Registry, []error) {
	r := &Registry{byName: map[string]*Tool{}}
	var errs []error
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	for _, x := range d.Effective() {
		if !x.Enabled {
			continue
		}
		m := x.Manifest()
		for _, p := range m.Plugins {
			pl, err := preparePlugin(env, x, m, p, environ, opts)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			specs := []*pb.ToolSpec(nil)
			if !opts.NoCache {
				specs = readToolCache(env, pl.Path)
			}
			if specs == nil {
				c, err := pl.Client(ctx)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				specs = c.Tools
			}
			r.plugins = append(r.plugins, pl)
			for _, spec := range specs {
				t, err := newTool(x.Name, p.ID, spec, pl)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				r.Tools = append(r.Tools, t)
			}
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
	if want, ok := manifest.LookupKV(p.SHA256, bin.Platform.OS+"/"+bin.Platform.Arch); ok {
		if err := commands.CheckHash(env, bin.Path, want); err != nil {
			return nil, fmt.Errorf("plugin %s of %s: %w", p.ID, x.Name, err)
		}
	}
	var extra []string
	if m.Sandbox != nil {
		extra = append(extra, m.Sandbox.Env...)
	}
	if p.Sandbox != nil {
		extra = append(extra, p.Sandbox.Env...)
	}
	childEnv, err := commands.ChildEnv(env, x, commands.ProjectRoot(env.Cwd), bin.Platform, p.Env, extra, environ, opts.ReadSecrets)
	if err != nil {
		return nil, fmt.Errorf("plugin %s of %s: %w", p.ID, x.Name, err)
	}
	pl := &plugins.Plugin{
		Spec:        plugins.Spec{Name: p.ID, Extension: x.Name, Path: bin.Path, Env: childEnv, Logger: opts.Logger},
		CallTimeout: opts.CallTimeout,
	}
	if opts.Services != nil {
		pl.Host = opts.Services.For(p.ID)
	}
	pl.OnStart = func(c *plugins.Client) {
		if err := writeToolCache(env, bin.Path, c.Tools); err != nil && opts.Logger != nil {
			opts.Logger.Warn("writing the tool cache", "plugin", p.ID, "error", err)
		}
	}
	return pl, nil
}

func newTool(ext, plugin string, spec *pb.ToolSpec, pl *plugins.Plugin) (*Tool, error) {
	t := &Tool{Name: spec.Name, Declared: spec.Name, Extension: ext, Plugin: plugin, Spec: spec, Schema: json.RawMessage(spec.InputSchemaJson), plugin: pl}
	var s jsonschema.Schema
	if err := json.Unmarshal(t.Schema, &s); err != nil {
		return nil, fmt.Errorf("plugin %s of %s: tool %s has an invalid schema: %w", plugin, ext, spec.Name, err)
	}
	t.schema = &s
	var err error
	if t.resolved, err = s.Resolve(nil); err != nil {
		return nil, fmt.Errorf("plugin %s of %s: tool %s: schema: %w", plugin, ext, spec.Name, err)
	}
	return t, nil
}

// index applies the conflict rule (a name declared twice: both become <extension>_<tool>)
// and sorts the tools by name.
func (r *Registry) index() {
	count := map[string]int{}
	for _, t := range r.Tools {
		count[t.Declared]++
	}
	for _, t := range r.Tools {
		if count[t.Declared] > 1 {
			t.Name = t.Extension + "_" + t.Declared
		}
		r.byName[t.Name] = t
	}
	sort.Slice(r.Tools, func(i, j int) bool { return r.Tools[i].Name < r.Tools[j].Name })
}

// Lookup finds a tool.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// ErrInvalidArguments wraps argument validation failures.
var ErrInvalidArguments = errors.New("invalid arguments")

// Result is a tool call's outcome in the host's terms, whatever the tool's source.
type Result struct {
	Text       string          `json:"text"`                 // for the model
	Display    string          `json:"display,omitempty"`    // for the user, when it differs
	Structured json.RawMessage `json:"structured,omitempty"` // structured output, JSON
	Error      *ResultError    `json:"error,omitempty"`      // the tool's own failure
}

// ResultError is a tool's own failure, with a type the model can act on (invalid_arguments,
// not_found, permission_denied, timeout, cancelled, execution, internal).
type ResultError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// DisplayText is what to show a user.
func (r *Result) DisplayText() string {
	if r.Display != "" {
		return r.Display
	}
	return r.Text
}

func fromPB(res *pb.ToolResult) *Result {
	out := &Result{Text: res.LlmText, Display: res.DisplayText}
	if res.StructuredJson != "" && json.Valid([]byte(res.StructuredJson)) {
		out.Structured = json.RawMessage(res.StructuredJson)
	}
	if res.Error != nil {
		out.Error = &ResultError{Type: res.Error.Type, Message: res.Error.Message}
	}
	return out
}

// Call validates args against the tool's schema and runs it. An error means the call did not
// happen or did not finish (unknown tool, invalid arguments, the plugin crashed, timeout);
// a tool's own failure is the Result's Error.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage, opts pluginsdk.CallOptions) (*Result, error) {
	t, ok := r.byName[name]
	if !ok {
		return nil, fmt.Errorf("no tool %q: gem tools list shows the tools of enabled extensions", name)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("%w for %s: not JSON: %v", ErrInvalidArguments, name, err)
	}
	if err := t.resolved.Validate(v); err != nil {
		problems := t.violations(v)
		if len(problems) == 0 {
			problems = []string{err.Error()}
		}
		return nil, fmt.Errorf("%w for %s: %s (gem tools schema %s shows what it takes)", ErrInvalidArguments, name, strings.Join(problems, "; "), name)
	}
	res, err := t.plugin.Call(ctx, t.Declared, string(args), opts)
	if err != nil {
		return nil, err
	}
	return fromPB(res), nil
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

// Running counts the plugin processes up now.
func (r *Registry) Running() int {
	n := 0
	for _, p := range r.plugins {
		if p.Running() {
			n++
		}
	}
	return n
}

// Close stops every plugin.
func (r *Registry) Close() {
	for _, p := range r.plugins {
		p.Close()
	}
}
