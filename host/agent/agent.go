// Package agent owns the model loop: a session's history sent to a Gemini model with the
// catalog's tools as function declarations (ParametersJsonSchema) and the extensions'
// context as the system instruction; text streamed to the caller; the model's function calls
// run through the catalog (argument validation, policy and confirmation, sandboxed tool)
// with Gemini CLI's hooks around every step (hooks.go); their FunctionResponses sent back,
// until the model answers without a call or the step limit is hit. Sessions persist as JSON
// under $GEM_HOME/sessions and can be resumed; chats are saved by tag (chats.go). Token
// counts come from the API's usage metadata; the history is compressed near the model's
// input limit (compress.go). Skills (context.go) and subagents (subagents.go) are Gemini
// CLI's, found where it finds them; a skill's tools/ programs are tools while it is active
// (skilltools.go). The turn loop is loop.go; sessions session.go; model requests
// generate.go; turns waiting for approvals pending.go.
//
// Open (conversation.go) is the one composition of the model side: given a tool catalog and
// a client (NewClient) it loads hooks, prompt commands, context, skills and subagents,
// settles agent/tool name clashes, opens or resumes the session and runs `!{…}` through the
// sandbox. The SDK uses it; gem -p, gem shell and gem acp reach it through the SDK and keep
// only flags and rendering.
//
// Chosen where the spec is silent: at most 25 model requests per turn (MaxSteps); calls of one
// response run one after another, in order; a call the policy denies, a hook blocks or that
// fails is answered to the model as an error response (so it can adapt), never dropped;
// cancelling the context ends the turn after recording what was said so far.
package agent

import (
	"context"
	"encoding/json"
	"github.com/gemhost/gem/host/checkpoint"
	"time"

	"github.com/gemhost/gem/host/tools"
)

// DefaultModel is the model used when none is named.
const DefaultModel = "gemini-2.5-flash"

// DefaultMaxSteps bounds the model requests of one turn.
const DefaultMaxSteps = 25

// Events receive what happens during a turn; nil fields are skipped.
type Events struct {
	Text func(delta string)
	// Thought is a piece of the model's thinking, when it streams its thoughts.
	Thought    func(delta string)
	ToolCall   func(id, name string, args json.RawMessage)
	ToolResult func(id, name string, res *tools.Result, err error)
	// ToolOutput is a piece of a running call's live output: what a streaming plugin or an
	// in-process tool sends with pluginsdk.Output, between its ToolCall and ToolResult.
	ToolOutput func(id, name, text string)
	// Compressed tells that the history was summarized (trigger auto or manual): contents
	// before and after.
	Compressed func(trigger string, before, after int)
}

// Agent runs turns.
type Agent struct {
	Client ModelClient
	Model  string
	// WebSearchModel is the model google_web_search asks ("": settings.DefaultWebSearchModel,
	// as Gemini CLI's web-search alias).
	WebSearchModel string
	Tools          *tools.Catalog
	System         string // the system instruction (context files, skills)
	Hooks          *Hooks // nil runs none
	// Skills the model may activate (activate_skill) or the user (/skill); an active skill's
	// SKILL.md joins the system instruction from the next request on.
	Skills []Skill
	// Funcs are tools the program embedding the agent runs itself (the SDK's typed tools):
	// declared to the model and called through the catalog like its tools.
	Funcs []tools.Func
	// Instructions, when set, adds to the system instruction of every request (the SDK's
	// static and dynamic instructions, where context files stand); ctx is the turn's.
	Instructions func(ctx context.Context, s *Session) string
	MaxSteps     int
	Events       Events
	// Checkpoints, when set, snapshot the workspace before a core tool edits it
	// (checkpoints.go).
	Checkpoints  *checkpoint.Store
	checkpointOf *Session // a subagent's: the user's conversation, kept with its checkpoints
	// CallOptions are passed to every tool call (host services).
	CallOptions tools.CallOptions
	// TokenLimit is the model's input limit (0: TokenLimitOf(Model)); the history is
	// compressed before a request once the last prompt reached CompressAt of it.
	TokenLimit int
	CompressAt float64 // 0: DefaultCompressAt
	// Retries are the waits before retrying an overloaded request (nil: DefaultRetries).
	Retries []time.Duration
	// Subagents the model may hand tasks to (as tools of their names); Depth is this
	// agent's nesting: 0 is the user's agent, 1 a subagent (which calls no subagents).
	Subagents   []*Subagent
	Depth       int
	only        *Subagent // a subagent's own tool subset
	temperature *float32
	launch      *skillLauncher // runs skills' tools (Open sets it; nil: none offered)
}

// model is the model of the agent's requests.
func (a *Agent) model() string {
	if a.Model == "" {
		return DefaultModel
	}
	return a.Model
}

// fn is the Func named name, when this agent has one (a subagent only those its list allows).
func (a *Agent) fn(name string) (tools.Func, bool) {
	for _, f := range a.Funcs {
		if f.Spec.Name == name {
			return f, true
		}
	}
	return tools.Func{}, false
}
