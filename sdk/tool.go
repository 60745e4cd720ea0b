package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/tools"
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

// Tool is a tool the program runs itself, declared to the model with the schema of its
// argument type.
type Tool struct {
	spec tools.Spec
	call func(SessionContext, json.RawMessage) (*tools.Result, error)
	err  error
}

// Kind says what a tool does, for the policy: read, edit, delete, move, search, execute,
// think, fetch or other (the default).
type Kind = tools.Kind

// The kinds of Tool.WithKind.
const (
	KindRead    = tools.KindRead
	KindEdit    = tools.KindEdit
	KindDelete  = tools.KindDelete
	KindMove    = tools.KindMove
	KindSearch  = tools.KindSearch
	KindExecute = tools.KindExecute
	KindThink   = tools.KindThink
	KindFetch   = tools.KindFetch
	KindOther   = tools.KindOther
)

// WithKind is t with its kind set (the policy decides by it).
func (t Tool) WithKind(k Kind) Tool { t.spec.Kind = k; return t }

// Name is the tool's name.
func (t Tool) Name() string { return t.spec.Name }

// ModelError is a failure the model should see and act on (a file that is not there, an
// argument that makes no sense): the turn goes on.
type ModelError struct{ Message string }

func (e *ModelError) Error() string { return e.Message }

// NewTool declares a tool: its arguments decode into In (the schema from In's fields: json
// tags name them, jsonschema tags describe them, fields without omitempty are required), and
// it answers with Out: a string is the text the model gets, anything else is sent as JSON
// (and as structured output). The schema library is pluginsdk's, so the same types make a
// go-plugin tool.
func NewTool[In, Out any](name, description string, fn func(SessionContext, In) (Out, error)) Tool {
	t := Tool{spec: tools.Spec{Name: name, Description: description, Kind: tools.KindOther}}
	schema, err := jsonschema.For[In](nil)
	if err == nil {
		t.spec.InputSchema, err = json.Marshal(schema)
	}
	if err != nil {
		t.err = fmt.Errorf("no JSON Schema for its arguments (%T): %w", *new(In), err)
		return t
	}
	t.call = func(sc SessionContext, raw json.RawMessage) (*tools.Result, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, &tools.ArgumentsError{Tool: name, Problems: []string{err.Error()}}
		}
		out, err := fn(sc, in)
		if err != nil {
			var me *ModelError
			if !errors.As(err, &me) {
				me = &ModelError{Message: err.Error()}
			}
			return &tools.Result{Error: &tools.ResultError{Type: tools.ErrorExecution, Message: me.Message}}, nil
		}
		if text, ok := any(out).(string); ok {
			return &tools.Result{Text: text}, nil
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encoding its result: %w", name, err)
		}
		return &tools.Result{Text: string(data), Structured: data}, nil
	}
	return t
}

// fn is t as the agent runs it: through the catalog, with the session of the call.
func (t Tool) fn(a *Agent) tools.Func {
	return tools.Func{Spec: t.spec, Extension: "sdk", Run: func(ctx context.Context, args json.RawMessage) (*tools.Result, error) {
		return t.call(&sessionContext{agent: a, session: agent.SessionOf(ctx), at: time.Now()}, args)
	}}
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
