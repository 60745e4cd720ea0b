// Package tools owns the host's tool registry: the tools of enabled extensions' go-plugin
// plugins (MCP servers join in the MCP issue), their names after the conflict rule, argument
// validation against each tool's JSON Schema (every violation reported), and calls.
//
// Today every plugin of an enabled extension is started when the registry loads, to list its
// tools; a cached tool list, lazy start, warm reuse across calls and crash restarts are the
// plugins issue's remaining work.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/plugins"
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
	client    *plugins.Client
}

// Registry holds the tools of one session.
type Registry struct {
	Tools   []*Tool
	byName  map[string]*Tool
	clients []*plugins.Client
}

// Load starts the plugins of the enabled extensions of d and collects their tools. A plugin
// that fails is reported in the errors and does not stop the others.
func Load(ctx context.Context, env registry.Env, d *registry.Discovery, readSecrets registry.SecretReader, logger hclog.Logger) (*Registry, []error) {
	r := &Registry{byName: map[string]*Tool{}}
	var errs []error
	count := map[string]int{}
	for _, x := range d.Effective() {
		if !x.Enabled {
			continue
		}
		m := x.Manifest()
		for _, p := range m.Plugins {
			bin, err := x.ResolveBinary(env, "plugin", p.ID, p.Binary)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			var extra []string
			if m.Sandbox != nil {
				extra = append(extra, m.Sandbox.Env...)
			}
			if p.Sandbox != nil {
				extra = append(extra, p.Sandbox.Env...)
			}
			childEnv, err := commands.ChildEnv(env, x, commands.ProjectRoot(env.Cwd), bin.Platform, p.Env, extra, os.Environ(), readSecrets)
			if err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: %w", p.ID, err))
				continue
			}
			c, err := plugins.Start(ctx, p.ID, bin.Path, childEnv, logger)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			r.clients = append(r.clients, c)
			for _, spec := range c.Tools {
				t := &Tool{Name: spec.Name, Declared: spec.Name, Extension: x.Name, Plugin: p.ID, Spec: spec, Schema: json.RawMessage(spec.InputSchemaJson), client: c}
				var s jsonschema.Schema
				if err := json.Unmarshal(t.Schema, &s); err != nil {
					errs = append(errs, fmt.Errorf("plugin %s: tool %s has an invalid schema: %w", p.ID, spec.Name, err))
					continue
				}
				t.schema = &s
				if t.resolved, err = s.Resolve(nil); err != nil {
					errs = append(errs, fmt.Errorf("plugin %s: tool %s: schema: %w", p.ID, spec.Name, err))
					continue
				}
				count[spec.Name]++
				r.Tools = append(r.Tools, t)
			}
		}
	}
	for _, t := range r.Tools {
		if count[t.Declared] > 1 {
			t.Name = t.Extension + "_" + t.Declared
		}
		r.byName[t.Name] = t
	}
	sort.Slice(r.Tools, func(i, j int) bool { return r.Tools[i].Name < r.Tools[j].Name })
	return r, errs
}

// Lookup finds a tool.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// ErrInvalidArguments wraps argument validation failures.
var ErrInvalidArguments = errors.New("invalid arguments")

// Call validates args against the tool's schema and runs it.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage, onUpdate func(string)) (*pb.ToolResult, error) {
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
	return t.client.Call(ctx, t.Declared, string(args), onUpdate)
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

// Close stops every plugin.
func (r *Registry) Close() {
	for _, c := range r.clients {
		c.Close()
	}
}
