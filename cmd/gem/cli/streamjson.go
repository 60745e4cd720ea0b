package cli

import "encoding/json"

// The stream-json events of gem -p: Gemini CLI's JsonStreamEvent types
// (packages/core/src/output/types.ts), one JSON object per line, with its keys so scripts
// written for gemini -o stream-json read gem's. The fields are declared in the order of
// their keys (sorted), which is the order gem prints them in.

// streamEvent is one line; emit stamps it with its type and time.
type streamEvent interface{ stamp(timestamp string) }

type streamInit struct {
	Model     string `json:"model"`
	SessionID string `json:"session_id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
}

type streamMessage struct {
	Content   string `json:"content"`
	Delta     bool   `json:"delta,omitempty"`
	Role      string `json:"role"` // user, assistant
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
}

type streamToolUse struct {
	Parameters json.RawMessage `json:"parameters"`
	Timestamp  string          `json:"timestamp"`
	ToolID     string          `json:"tool_id"`
	ToolName   string          `json:"tool_name"`
	Type       string          `json:"type"`
}

type streamToolResult struct {
	Error     *streamToolError `json:"error,omitempty"`
	Output    *string          `json:"output,omitempty"` // absent when the call did not run
	Status    string           `json:"status"`           // success, error
	Timestamp string           `json:"timestamp"`
	ToolID    string           `json:"tool_id"`
	Type      string           `json:"type"`
}

type streamToolError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

type streamResult struct {
	Error     *promptError `json:"error,omitempty"`
	Stats     *streamStats `json:"stats,omitempty"`
	Status    string       `json:"status"` // success, error
	Timestamp string       `json:"timestamp"`
	Type      string       `json:"type"`
}

// streamStats is the result event's stats (Gemini CLI's StreamStats).
type streamStats struct {
	Cached       int                         `json:"cached"`
	DurationMs   int64                       `json:"duration_ms"`
	Input        int                         `json:"input"`
	InputTokens  int                         `json:"input_tokens"`
	Models       map[string]streamModelStats `json:"models"`
	OutputTokens int                         `json:"output_tokens"`
	ToolCalls    int                         `json:"tool_calls"`
	TotalTokens  int                         `json:"total_tokens"`
}

type streamModelStats struct {
	Cached       int `json:"cached"`
	Input        int `json:"input"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// promptError is a failed turn as Gemini CLI's JsonError: type, message, code (the exit
// code), and gem's hint when it has one.
type promptError struct {
	Code    int    `json:"code"`
	Hint    string `json:"hint,omitempty"`
	Message string `json:"message"`
	Type    string `json:"type"`
}

func (e *streamInit) stamp(t string)       { e.Timestamp, e.Type = t, "init" }
func (e *streamMessage) stamp(t string)    { e.Timestamp, e.Type = t, "message" }
func (e *streamToolUse) stamp(t string)    { e.Timestamp, e.Type = t, "tool_use" }
func (e *streamToolResult) stamp(t string) { e.Timestamp, e.Type = t, "tool_result" }
func (e *streamResult) stamp(t string)     { e.Timestamp, e.Type = t, "result" }
