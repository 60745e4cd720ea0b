package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/pluginsdk"
)

// SessionContext is what a tool, a hook or a dynamic instruction knows of the session it
// runs for.
type SessionContext interface {
	SessionID() string
	Cwd() string // the workspace
	Timestamp() time.Time
	// Transcript is the conversation so far, one entry per message.
	Transcript() []Message
	// Agent is the agent the session belongs to; Session, the session (nil when the call
	// comes from a subagent's own conversation).
	Agent() *Agent
	Session() *Session
}

// Message is one message of a transcript.
type Message struct {
	Role string // user, model
	Text string
}

type sessionContext struct {
	agent   *Agent
	session *agent.Session
	at      time.Time
}

func (c *sessionContext) SessionID() string {
	if c.session == nil {
		return ""
	}
	return c.session.ID
}
func (c *sessionContext) Cwd() string          { return c.agent.env.Cwd }
func (c *sessionContext) Agent() *Agent        { return c.agent }
func (c *sessionContext) Session() *Session    { return c.agent.sessionOf(c.session) }
func (c *sessionContext) Timestamp() time.Time { return c.at }
func (c *sessionContext) Transcript() []Message {
	if c.session == nil {
		return nil
	}
	var out []Message
	for _, m := range c.session.History {
		var text string
		for _, p := range m.Parts {
			text += p.Text
		}
		if text != "" {
			out = append(out, Message{Role: m.Role, Text: text})
		}
	}
	return out
}

// contextKey carries a call's SessionContext to the tool's handler.
type contextKey struct{}

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
// argument that makes no sense): the turn goes on.
type ModelError struct{ Message string }

func (e *ModelError) Error() string { return e.Message }

// NewTool declares a tool: its arguments decode into In (the schema from In's fields: json
// tags name them, jsonschema tags describe them, fields without omitempty are required), and
// it answers with Out: a string is the text the model gets, anything else is sent as JSON
// (and as structured output, with an output schema from Out). It is pluginsdk.NewTool with
// the session passed in, so the same types make a go-plugin tool.
func NewTool[In, Out any](name, description string, fn func(SessionContext, In) (Out, error)) Tool {
	sc := func(ctx context.Context) SessionContext {
		if c, ok := ctx.Value(contextKey{}).(SessionContext); ok {
			return c
		}
		return &sessionContext{agent: &Agent{}, at: time.Now()}
	}
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
		ctx = context.WithValue(ctx, contextKey{}, SessionContext(&sessionContext{agent: a, session: agent.SessionOf(ctx), at: time.Now()}))
		res, err := t.tool.Call(ctx, args)
		if err != nil {
			return &tools.Result{Error: resultError(err)}, nil // the model sees it; the turn goes on
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

// Dynamic is an instruction made before every request from the session's state.
func Dynamic(fn func(SessionContext) string) Instruction { return Instruction{dynamic: fn} }

func (in Instruction) text(sc SessionContext) string {
	if in.dynamic != nil {
		return in.dynamic(sc)
	}
	return in.static
}
