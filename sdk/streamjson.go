package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gemhost/gem/host/agent"
)

// An Event's JSON is the line Gemini CLI 0.61's -o stream-json writes for it (its
// JsonStreamEvent types, packages/core/src/output/types.ts): each type's keys in the order
// Gemini CLI writes them, the timestamp as JavaScript's toISOString.

type streamInit struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
}

type streamMessage struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Role      string `json:"role,omitempty"` // user, assistant (a thought has none)
	Content   string `json:"content"`
	Delta     bool   `json:"delta,omitempty"`
}

type streamToolUse struct {
	Type       string          `json:"type"`
	Timestamp  string          `json:"timestamp"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
}

type streamToolResult struct {
	Type      string       `json:"type"`
	Timestamp string       `json:"timestamp"`
	ToolID    string       `json:"tool_id"`
	Status    string       `json:"status"`           // success, error
	Output    *string      `json:"output,omitempty"` // absent when the call did not run
	Error     *streamError `json:"error,omitempty"`
}

// streamToolOutput is gem's own line for a piece of a call's live output (Gemini CLI has none).
type streamToolOutput struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	ToolID    string `json:"tool_id"`
	Output    string `json:"output"`
}

type streamWarning struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Severity  string `json:"severity"` // warning, error
	Message   string `json:"message"`
}

type streamResult struct {
	Type      string      `json:"type"`
	Timestamp string      `json:"timestamp"`
	Status    string      `json:"status"` // success, error
	Error     any         `json:"error,omitempty"`
	Stats     streamStats `json:"stats"`
}

type streamError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// streamStats are the result's stats (Gemini CLI's StreamStats).
type streamStats struct {
	TotalTokens  int                         `json:"total_tokens"`
	InputTokens  int                         `json:"input_tokens"`
	OutputTokens int                         `json:"output_tokens"`
	Cached       int                         `json:"cached"`
	Input        int                         `json:"input"`
	DurationMs   int64                       `json:"duration_ms"`
	ToolCalls    int                         `json:"tool_calls"`
	Models       map[string]streamModelStats `json:"models"`
}

type streamModelStats struct {
	TotalTokens  int `json:"total_tokens"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	Cached       int `json:"cached"`
	Input        int `json:"input"` // the prompt less what the cache answered
}

// MarshalJSON is e as Gemini CLI's stream-json line (without its newline).
func (e Event) MarshalJSON() ([]byte, error) {
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	ts, typ := t.UTC().Format("2006-01-02T15:04:05.000Z"), string(e.Type)
	switch e.Type {
	case EventInit:
		return marshal(streamInit{typ, ts, e.SessionID, e.Model})
	case EventMessage, EventThought:
		return marshal(streamMessage{typ, ts, e.Role, e.Text, e.Delta})
	case EventToolUse:
		if e.ToolCall == nil {
			return nil, fmt.Errorf("sdk: a %s event without its ToolCall", e.Type)
		}
		return marshal(streamToolUse{typ, ts, e.ToolCall.Name, e.ToolCall.ID, orEmptyObject(e.ToolCall.Args)})
	case EventToolResult:
		if e.ToolCall == nil {
			return nil, fmt.Errorf("sdk: a %s event without its ToolCall", e.Type)
		}
		return marshal(toolResultLine(typ, ts, e.ToolCall))
	case EventToolOutput:
		if e.ToolCall == nil {
			return nil, fmt.Errorf("sdk: a %s event without its ToolCall", e.Type)
		}
		return marshal(streamToolOutput{typ, ts, e.ToolCall.ID, e.Text})
	case EventError:
		return marshal(streamWarning{typ, ts, e.Severity, e.Text})
	case EventResult:
		line := streamResult{Type: typ, Timestamp: ts, Status: "success"}
		if e.Result != nil {
			line.Stats = statsOf(e.Result.Usage)
		} else {
			line.Stats = statsOf(Usage{})
		}
		if e.Err != nil {
			line.Status, line.Error = "error", errorObject(e.Err)
		}
		return marshal(line)
	}
	return nil, fmt.Errorf("sdk: an event of type %q has no stream-json line", e.Type)
}

// marshal is v's JSON as JavaScript's JSON.stringify writes it: <, > and & as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func toolResultLine(typ, ts string, c *ToolCall) streamToolResult {
	line := streamToolResult{Type: typ, Timestamp: ts, ToolID: c.ID, Status: "success"}
	if _, answered := c.Err.(*ToolError); c.Err == nil || answered {
		out := c.Output
		line.Output = &out
	}
	if c.Err != nil {
		line.Status, line.Error = "error", &streamError{Type: toolErrorType(c.Err), Message: c.Err.Error()}
		if te, ok := c.Err.(*ToolError); ok {
			line.Error.Message = te.Message
		}
	}
	return line
}

// errorObject is a turn's error as the result line's error: its own JSON when it has one.
func errorObject(err error) any {
	if m, ok := err.(json.Marshaler); ok {
		return m
	}
	return streamError{Type: agent.ErrorType(err), Message: err.Error()}
}

func statsOf(u Usage) streamStats {
	s := streamStats{TotalTokens: u.TotalTokens, InputTokens: u.PromptTokens, OutputTokens: u.OutputTokens, Cached: u.CachedTokens,
		Input: u.PromptTokens - u.CachedTokens, DurationMs: u.Duration.Milliseconds(), ToolCalls: u.ToolCalls, Models: map[string]streamModelStats{}}
	for name, m := range u.Models {
		s.Models[name] = streamModelStats{TotalTokens: m.TotalTokens, InputTokens: m.PromptTokens, OutputTokens: m.OutputTokens, Cached: m.CachedTokens, Input: m.PromptTokens - m.CachedTokens}
	}
	return s
}

// orEmptyObject is a call's arguments, {} when it has none.
func orEmptyObject(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	return args
}
