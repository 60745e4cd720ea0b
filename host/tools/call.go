package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/limits"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/internal/suggest"
	"github.com/gemhost/gem/pluginsdk"
)

// Result is a tool call's outcome in the host's terms, whatever the tool's source.
type Result struct {
	Text       string          `json:"text"`                 // for the model
	Display    string          `json:"display,omitempty"`    // for the user, when it differs
	Structured json.RawMessage `json:"structured,omitempty"` // structured output, JSON
	Error      *ResultError    `json:"error,omitempty"`      // the tool's own failure
	// Media are files the model takes as they are (images, audio, PDFs: media.go), sent
	// with Text as inline data.
	Media []Media `json:"media,omitempty"`
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

// capped cuts the result's texts to limits.ToolResult and its media to coreMaxMedia (the
// first that fit are kept), saying so in them.
func (r *Result) capped() *Result {
	size, kept := 0, r.Media[:0:0]
	for _, m := range r.Media {
		if size+len(m.Data) > coreMaxMedia {
			r.Text += fmt.Sprintf("\n[gem: %s of %d bytes dropped: over the limit of %d bytes of media in one result]", m.MIMEType, len(m.Data), coreMaxMedia)
			continue
		}
		size += len(m.Data)
		kept = append(kept, m)
	}
	r.Media = kept
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

func (b funcBackend) call(ctx context.Context, _ string, args json.RawMessage, opts CallOptions) (*Result, error) {
	return b.run(outputContext(ctx, opts), args)
}

// outputContext is ctx whose pluginsdk.Output calls go to opts.OnUpdate: a Func's live
// output reaches the caller as a streaming plugin's does.
func outputContext(ctx context.Context, opts CallOptions) context.Context {
	if opts.OnUpdate == nil {
		return ctx
	}
	return pluginsdk.WithOutput(ctx, opts.OnUpdate)
}

func (funcBackend) sandbox() (string, *sandbox.Policy) { return "", nil }

// CallFunc calls f as Call calls a tool of the catalog. Its schema is resolved once per
// schema text (a Func is made for each call).
func (r *Catalog) CallFunc(ctx context.Context, f Func, args json.RawMessage, opts CallOptions) (*Result, error) {
	if r == nil {
		return f.Run(outputContext(ctx, opts), args) // no catalog: nothing to decide with
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
