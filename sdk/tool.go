package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/pluginsdk"
)

// contextKey carries a call's SessionContext to the tool's handler (a SessionContext's
// own context carries it, so a context derived from it does too).
type contextKey struct{}

// sessionContextOf is the SessionContext ctx carries (with ctx as its context, when ctx
// was derived from it), or a tool's served outside an agent.
func sessionContextOf(ctx context.Context) SessionContext {
	c, ok := ctx.Value(contextKey{}).(*sessionContext)
	switch {
	case !ok:
		return standalone(ctx)
	case ctx == SessionContext(c):
		return c
	}
	derived := *c
	derived.Context = ctx
	return &derived
}

// Tool is a tool the program runs itself. It is a pluginsdk tool (the same schema from its
// Go types, the same typed results), run in the program's process with the session it is
// called for.
type Tool struct {
	tool pluginsdk.Tool
	kind Kind
}

// Kind says what a tool does, for the policy: read, edit, delete, move, search, execute,
// think, fetch or other (the default).
type Kind = pluginsdk.Kind

// The kinds of Tool.WithKind.
const (
	KindRead    = pluginsdk.KindRead
	KindEdit    = pluginsdk.KindEdit
	KindDelete  = pluginsdk.KindDelete
	KindMove    = pluginsdk.KindMove
	KindSearch  = pluginsdk.KindSearch
	KindExecute = pluginsdk.KindExecute
	KindThink   = pluginsdk.KindThink
	KindFetch   = pluginsdk.KindFetch
	KindOther   = pluginsdk.KindOther
)

// WithKind is t with its kind set (the policy decides by it).
func (t Tool) WithKind(k Kind) Tool { t.kind = k; return t }

// Name is the tool's name.
func (t Tool) Name() string { return t.tool.Name() }

// ModelError is a failure the model should see and act on (a file that is not there, an
// argument that makes no sense): the turn goes on. Any other error a tool returns ends the
// turn (Send returns it; the model's history keeps the failed call).
type ModelError struct{ Message string }

func (e *ModelError) Error() string { return e.Message }

// ModelErrorf is a ModelError with a formatted message.
func ModelErrorf(format string, args ...any) error {
	return &ModelError{Message: fmt.Sprintf(format, args...)}
}

// NewTool declares a tool: its arguments decode into In (the schema from In's fields: json
// tags name them, jsonschema tags describe them, fields without omitempty are required), and
// it answers with Out: a string is the text the model gets, anything else is sent as JSON
// (and as structured output, with an output schema from Out). It is pluginsdk.NewTool with
// the session passed in, so the same types make a go-plugin tool. fn's SessionContext is
// the call's context: a tool that waits (on a program, the network, the user) waits on it,
// and stops when it is done.
func NewTool[In, Out any](name, description string, fn func(SessionContext, In) (Out, error)) Tool {
	sc := sessionContextOf
	if text, ok := any(fn).(func(SessionContext, In) (string, error)); ok {
		return Tool{kind: KindOther, tool: pluginsdk.NewTool(name, description, KindOther, func(ctx context.Context, in In) (pluginsdk.Result, error) {
			s, err := text(sc(ctx), in)
			return pluginsdk.Text(s), err
		})}
	}
	return Tool{kind: KindOther, tool: pluginsdk.NewTool(name, description, KindOther, func(ctx context.Context, in In) (Out, error) {
		return fn(sc(ctx), in)
	})}
}

// check says what is wrong with t (a type no schema can be derived from, a bad name).
func (t Tool) check() error {
	return pluginsdk.Plugin{Name: "sdk", Tools: []pluginsdk.Tool{t.tool}}.Check()
}

// fn is t as the agent runs it: through the catalog, with the session of the call.
func (t Tool) fn(a *Agent) tools.Func {
	spec := tools.Spec{Name: t.tool.Name(), Description: t.tool.Description(), Kind: t.kind, Streams: t.tool.Streams(),
		InputSchema: t.tool.Schema(), OutputSchema: t.tool.OutputSchema()}
	return tools.Func{Spec: spec, Extension: "sdk", Run: func(ctx context.Context, args json.RawMessage) (*tools.Result, error) {
		res, err := t.tool.Call(a.contextOf(ctx, agent.SessionOf(ctx)), args)
		if _, forModel := errors.AsType[*ModelError](err); forModel || err != nil && isToolError(err) {
			return &tools.Result{Error: resultError(err)}, nil // the model sees it; the turn goes on
		}
		if err != nil {
			return nil, &agent.EndTurnError{Tool: spec.Name, Err: err}
		}
		out := &tools.Result{Text: res.Text, Display: res.Display}
		if res.Structured != nil {
			if out.Structured, err = json.Marshal(res.Structured); err != nil {
				return nil, fmt.Errorf("tool %s: encoding its result: %w", spec.Name, err)
			}
		}
		return out, nil
	}}
}

// isToolError: a pluginsdk error with a type for the model.
func isToolError(err error) bool {
	_, ok := errors.AsType[*pluginsdk.ToolError](err)
	return ok
}

// resultError is a tool's error as the model gets it: a pluginsdk error keeps its type.
func resultError(err error) *tools.ResultError {
	if te, ok := errors.AsType[*pluginsdk.ToolError](err); ok {
		return &tools.ResultError{Type: te.Type, Message: te.Message}
	}
	return &tools.ResultError{Type: tools.ErrorExecution, Message: err.Error()}
}

// Instruction is part of the system instruction: Static text or Dynamic text made for each
// request.
type Instruction struct {
	static  string
	dynamic func(SessionContext) string
}

// Static is a fixed instruction.
func Static(text string) Instruction { return Instruction{static: text} }

// Dynamic is an instruction made before every request from the session's state; its
// SessionContext is the turn's context.
func Dynamic(fn func(SessionContext) string) Instruction { return Instruction{dynamic: fn} }

func (in Instruction) text(sc SessionContext) string {
	if in.dynamic != nil {
		return in.dynamic(sc)
	}
	return in.static
}
