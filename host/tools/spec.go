package tools

import (
	"context"
	"encoding/json"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
)

// Kind says what a tool does, for policy and confirmation: pluginsdk's, the one plugins
// declare; an MCP tool's comes from its server's annotations (read-only: read, destructive:
// delete, else other).
type Kind = pluginsdk.Kind

// The kinds Gemini CLI knows (pluginsdk's).
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

// Spec is what a tool's source says of it, the same for a plugin's and an MCP server's tools.
// It is also the tool cache's record of a plugin tool (cache.go).
type Spec struct {
	Name         string          `json:"name"` // as its source declares it
	Description  string          `json:"description"`
	Kind         Kind            `json:"kind"`
	Streams      bool            `json:"streams,omitempty"`       // sends output updates while it runs
	InputSchema  json.RawMessage `json:"schema"`                  // JSON Schema of the arguments
	OutputSchema json.RawMessage `json:"output_schema,omitempty"` // of the structured result, when declared
}

// ErrorType says what kind of failure a tool's own error (ResultError) is, for the model to
// act on: pluginsdk's, the names plugins send; other names pass through unchanged.
type ErrorType = pluginsdk.ErrorType

// The error types of tool results (pluginsdk's).
const (
	ErrorInvalidArguments = pluginsdk.InvalidArguments
	ErrorNotFound         = pluginsdk.NotFound
	ErrorPermissionDenied = pluginsdk.PermissionDenied
	ErrorTimeout          = pluginsdk.Timeout
	ErrorCancelled        = pluginsdk.Cancelled
	ErrorExecution        = pluginsdk.Execution
	ErrorInternal         = pluginsdk.Internal
)

// HostServices is what the host offers a tool while it runs: confirmation, progress, logs
// (Services bound to a plugin, or gem mcp serve's client). It is the plugin protocol's
// contract, and MCP tools get the same.
type HostServices = pluginhost.Services

// CallOptions are per-call hooks of [Catalog.Call], whatever the tool's source.
type CallOptions struct {
	OnUpdate func(text string) // streamed output updates; may be nil
	Host     HostServices      // plugins' confirmation and progress for this call; nil: the session's Services
	// Prompt asks the policy's questions about this call (gem mcp serve: its client, by
	// elicitation); nil: the session's Services.Prompt.
	Prompt prompt.Prompter
	// Confirm, when set, makes the call asked about even where the policy allows it (a
	// BeforeTool hook said "decision": "ask"); it is the hook's reason, shown in the question.
	// A call the policy denies stays denied.
	Confirm string
}

// backend is a source of tools: a plugin (plugin.go) or an MCP server (mcp.go). A call gets
// the declared name and the validated arguments, and gives the host's Result.
type backend interface {
	call(ctx context.Context, declared string, args json.RawMessage, opts CallOptions) (*Result, error)
	// sandbox is the extension whose program runs the tools and that program's policy (nil
	// for the core tools, which run in gem): a tool's failure is read against it.
	sandbox() (extension string, p *sandbox.Policy)
}
