package sdk

import (
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/tools"
)

// EventType says what an Event carries: the type of Gemini CLI's stream-json line it
// marshals to (gem's own for a thought).
type EventType string

// The events of SendStream, in the order they come: init, the user's message, then the
// model's messages, tool_use and tool_result as they happen, and result last.
const (
	EventInit       EventType = "init"        // SessionID, Model: the turn starts
	EventMessage    EventType = "message"     // Role, Text: the user's prompt, or a piece of the model's answer (Delta)
	EventToolUse    EventType = "tool_use"    // ToolCall: a call about to run
	EventToolResult EventType = "tool_result" // ToolCall: the call with its outcome
	EventError      EventType = "error"       // Severity, Text: a problem the turn goes on after (a hook that failed, the session not saved)
	EventResult     EventType = "result"      // Result, Err: the turn's end
	// EventThought (Text) is a piece of the model's thinking. Gemini CLI's stream-json
	// leaves thoughts out (gem -p too); it marshals as {"type":"thought", …}.
	EventThought EventType = "thought"
	// EventToolOutput (ToolCall: its ID, Name and Kind; Text) is a piece of a running call's
	// live output, between its tool_use and its tool_result: what the tool sends with
	// pluginsdk.Output (in the program's process, as a streaming plugin), as a terminal
	// shows a command's output while it runs. Gemini CLI 0.61's stream-json has no such
	// line (gem -p leaves these out); it marshals as gem's own {"type":"tool_output",
	// "timestamp", "tool_id", "output"}. gem acp sends it as a tool_call_update.
	EventToolOutput EventType = "tool_output"
)

// Event is one step of a streamed turn. It marshals (encoding/json) to the line Gemini
// CLI's -o stream-json writes for it — the same keys in the same order — so a program
// prints a turn as stream-json with a json.Encoder; gem -p -o stream-json is that printing.
type Event struct {
	Type EventType
	Time time.Time // when it happened: the line's timestamp (zero: when marshalled)

	SessionID, Model string    // init
	Role             string    // message: "user" or "assistant"
	Text             string    // message, thought: the text (a piece of it when Delta); tool_output: the piece; error: the message
	Delta            bool      // message: Text is a piece of the model's answer
	Severity         string    // error: "warning" or "error"
	ToolCall         *ToolCall // tool_use, tool_output, tool_result
	Result           *Result   // result: the turn's result (its Usage is the line's stats)
	// Err is what ended the turn (result; nil: it succeeded). An Err that implements
	// json.Marshaler is the line's error object as it marshals (gem -p adds its exit code
	// and hint so); others marshal as {"type", "message"}.
	Err error
}

// ToolCall is one tool call of a turn and its outcome.
type ToolCall struct {
	ID, Name string
	Kind     Kind            // what the tool does (read, edit, execute, …; "other" when it does not say)
	Args     json.RawMessage // the arguments
	Output   string          // what the model got back
	// Display is what a person is shown of the output, when the tool says it apart ("":
	// Output); Structured, its structured result (an MCP tool's structuredContent, an
	// edit's lines_added and lines_removed), when it gives one.
	Display    string
	Structured json.RawMessage
	// Err: the call did not run (ErrDenied, invalid arguments, an unknown tool, a failure
	// to run it), or the tool answered with an error (*ToolError; Output is its text).
	Err error
}

// MarshalJSON is c as JSON: its arguments as they are, its error as its message.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	out := struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Kind   Kind            `json:"kind"`
		Args   json.RawMessage `json:"args"`
		Output string          `json:"output"`
		Error  string          `json:"error,omitempty"`
	}{c.ID, c.Name, c.Kind, orEmptyObject(c.Args), c.Output, ""}
	if c.Err != nil {
		out.Error = c.Err.Error()
	}
	return json.Marshal(out)
}

// ToolError is a tool's answer that it failed (ToolCall.Err): the model sees it and the
// turn goes on.
type ToolError struct {
	Type    string // what failed, as the tool says (invalid_tool_params, execution_failed, …)
	Message string
}

func (e *ToolError) Error() string { return e.Type + ": " + e.Message }

// Usage are a turn's requests, tool calls, tokens and time.
type Usage struct {
	Requests, ToolCalls                                   int
	PromptTokens, CachedTokens, OutputTokens, TotalTokens int
	ThoughtTokens, ToolTokens                             int // the model's thinking; the prompt's tool results
	Duration                                              time.Duration
	Models                                                map[string]Usage // by model (a subagent may use another): its requests and tokens
	// Errors and Latency are a model's (in Models): the requests that failed, and the
	// time its requests took.
	Errors  int
	Latency time.Duration
}

// usageOf is a turn's stats as Usage.
func usageOf(st agent.Stats, d time.Duration) Usage {
	u := Usage{Requests: st.Requests, ToolCalls: st.ToolCalls, PromptTokens: st.Tokens.Prompt, CachedTokens: st.Tokens.Cached,
		OutputTokens: st.Tokens.Output, TotalTokens: st.Tokens.Total, ThoughtTokens: st.Tokens.Thoughts, ToolTokens: st.Tokens.Tool,
		Duration: d, Models: map[string]Usage{}}
	for name, m := range st.Models {
		u.Models[name] = Usage{Requests: m.Requests, PromptTokens: m.Tokens.Prompt, CachedTokens: m.Tokens.Cached, OutputTokens: m.Tokens.Output,
			TotalTokens: m.Tokens.Total, ThoughtTokens: m.Tokens.Thoughts, ToolTokens: m.Tokens.Tool, Errors: m.Errors, Latency: m.Latency}
	}
	return u
}

// agentEvents are host/agent's callbacks of a turn as Events, given to emit as they happen
// (kindOf: a tool's Kind; nil: KindOther): SendStream's, with the calls' live output
// (EventToolOutput, outputEvents).
func agentEvents(kindOf func(name string) Kind, emit func(Event)) agent.Events {
	var mu sync.Mutex
	calls := map[string]*ToolCall{}
	return agent.Events{
		Text: func(d string) {
			emit(Event{Type: EventMessage, Time: time.Now(), Role: "assistant", Text: d, Delta: true})
		},
		Thought: func(d string) { emit(Event{Type: EventThought, Time: time.Now(), Text: d, Delta: true}) },
		ToolCall: func(id, name string, args json.RawMessage) {
			c := &ToolCall{ID: id, Name: name, Args: args, Kind: KindOther}
			if kindOf != nil {
				c.Kind = kindOf(name)
			}
			mu.Lock()
			calls[id] = c
			mu.Unlock()
			emit(Event{Type: EventToolUse, Time: time.Now(), ToolCall: c})
		},
		ToolResult: func(id, name string, r *tools.Result, err error) {
			mu.Lock()
			c := calls[id]
			delete(calls, id)
			mu.Unlock()
			if c == nil {
				c = &ToolCall{ID: id, Name: name, Kind: KindOther}
			}
			if r != nil && err == nil {
				c.Output, c.Structured = r.Text, r.Structured
				if r.Display != r.Text {
					c.Display = r.Display
				}
			}
			switch {
			case err != nil:
				c.Err = err
			case r != nil && r.Error != nil:
				c.Err = &ToolError{Type: string(r.Error.Type), Message: r.Error.Message}
			}
			emit(Event{Type: EventToolResult, Time: time.Now(), ToolCall: c})
		},
	}
}

// outputEvents are the live output of a turn's calls as EventToolOutput Events, given to
// emit as they come (kindOf: a tool's Kind; nil: KindOther).
func outputEvents(kindOf func(name string) Kind, emit func(Event)) func(id, name, text string) {
	return func(id, name, text string) {
		c := &ToolCall{ID: id, Name: name, Kind: KindOther}
		if kindOf != nil {
			c.Kind = kindOf(name)
		}
		emit(Event{Type: EventToolOutput, Time: time.Now(), ToolCall: c, Text: text})
	}
}

// toolErrorType names a call's failure, as Gemini CLI's tool_result error type does.
func toolErrorType(err error) string {
	var te *ToolError
	var args *tools.ArgumentsError
	var unknown *tools.UnknownToolError
	switch {
	case errors.As(err, &te):
		return te.Type
	case errors.Is(err, tools.ErrDenied):
		return "permission_denied"
	case errors.As(err, &args):
		return "invalid_tool_params"
	case errors.As(err, &unknown):
		return "tool_not_registered"
	}
	return "execution_failed"
}
