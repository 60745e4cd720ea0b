// Package pluginsdk is what a plugin author imports to give gem tools: declare tools with
// typed arguments (the JSON Schema is derived from the Go struct and arguments are validated
// against it before the handler runs), then call Serve from main. A plugin is a go-plugin
// gRPC server speaking pluginsdk/proto/gemplugin1.proto; it imports nothing of gem's host.
//
//	type greetArgs struct {
//		Name string `json:"name" jsonschema:"who to greet"`
//	}
//
//	func main() {
//		pluginsdk.Serve(pluginsdk.Plugin{
//			Name: "greeter",
//			Tools: []pluginsdk.Tool{
//				pluginsdk.NewTool("greet", "Greets someone", pluginsdk.KindRead,
//					func(ctx context.Context, a greetArgs) (pluginsdk.Result, error) {
//						return pluginsdk.Text("Hello, " + a.Name + "!"), nil
//					}),
//			},
//		})
//	}
//
// Logs go to stderr (gem records them under ext.<name>); stdout belongs to go-plugin's
// handshake and must never be written. Serve detaches the plugin from the host's stdin.
//
// While a tool runs it may use the host's services through its context:
//
//   - Confirm(ctx, title, details) asks the user (gem asks on the terminal, or takes --yes;
//     with no one to ask the answer is no); ErrNoHost when the host offers no services.
//   - Progress(ctx, message, fraction) reports progress (fraction < 0 when unknown).
//   - Log(ctx, level, message) writes to gem's log file, tagged with the call.
//   - Output(ctx, text) streams output from a tool marked Streaming().
//
// Host services travel over go-plugin's GRPCBroker: the host offers them at the first call,
// and each request carries the call's id so concurrent calls are told apart.
//
// Serve runs the plugin with GOMAXPROCS=1 unless Plugin.MaxProcs or the GOMAXPROCS variable
// says otherwise: one P gives the lowest call latency on the small machines gem runs on.
// Plugin.OnShutdown runs when the host stops the plugin gracefully.
//
// Package plugintest tests a plugin without gem: InProcess serves it over a real gRPC
// connection in the test's process, Build and Start run the real binary as gem would; both
// give a Client whose Host records confirmations, progress and logs.
package pluginsdk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the major version of the plugin protocol (gemplugin1.proto).
const ProtocolVersion = 1

// The magic cookie tells a plugin binary it was started by gem; it never changes.
const (
	MagicCookieKey   = "GEM_PLUGIN_MAGIC_COOKIE"
	MagicCookieValue = "6f1d5c0e-gem-plugin-2b7a9c44"
)

// Handshake is go-plugin's handshake for gem plugins.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   MagicCookieKey,
	MagicCookieValue: MagicCookieValue,
}

// PluginName is the name under which the tool service is dispensed.
const PluginName = "tools"

// Kind says what a tool does, for policy and confirmation.
type Kind string

const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	KindOther   Kind = "other"
)

// Result is what a tool returns.
type Result struct {
	Text       string // for the model
	Display    string // for the user (defaults to Text)
	Structured any    // optional, sent as JSON
}

// Text is a Result with text only.
func Text(s string) Result { return Result{Text: s} }

// ToolError is an error with a type the host and model can act on.
type ToolError struct {
	Type    string // invalid_arguments, not_found, permission_denied, timeout, execution, …
	Message string
}

func (e *ToolError) Error() string { return e.Type + ": " + e.Message }

// Tool is one tool of a plugin; make it with NewTool.
type Tool struct {
	Name        string
	Description string
	Kind        Kind
	Streams     bool
	schema      *jsonschema.Schema
	schemaJSON  []byte
	resolved    *jsonschema.Resolved
	call        func(ctx context.Context, args json.RawMessage) (Result, error)
}

// Schema returns the tool's argument schema as JSON.
func (t Tool) Schema() ([]byte, error) {
	if t.schemaJSON != nil {
		return t.schemaJSON, nil
	}
	return json.Marshal(t.schema)
}

// NewTool declares a tool whose arguments decode into A. The schema comes from A's fields
// (json tags for names, jsonschema tags for descriptions; fields without omitempty are
// required) and arguments are validated against it before fn runs.
func NewTool[A any](name, description string, kind Kind, fn func(ctx context.Context, args A) (Result, error)) Tool {
	schema, err := jsonschema.For[A](nil)
	if err != nil {
		panic(fmt.Sprintf("pluginsdk: tool %s: cannot derive a JSON Schema from %T: %v", name, *new(A), err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("pluginsdk: tool %s: schema: %v", name, err))
	}
	schemaJSON, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("pluginsdk: tool %s: schema: %v", name, err))
	}
	return Tool{Name: name, Description: description, Kind: kind, schema: schema, schemaJSON: schemaJSON, resolved: resolved,
		call: func(ctx context.Context, raw json.RawMessage) (Result, error) {
			var a A
			if err := json.Unmarshal(raw, &a); err != nil {
				return Result{}, &ToolError{Type: "invalid_arguments", Message: err.Error()}
			}
			return fn(ctx, a)
		}}
}

// Streaming marks the tool as sending output updates (with Output) while it runs.
func (t Tool) Streaming() Tool { t.Streams = true; return t }

// Validate checks raw arguments against the tool's schema, reporting every violation.
func (t Tool) Validate(raw json.RawMessage) error {
	var v any
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return &ToolError{Type: "invalid_arguments", Message: "arguments are not JSON: " + err.Error()}
	}
	if err := t.resolved.Validate(v); err != nil {
		return &ToolError{Type: "invalid_arguments", Message: err.Error()}
	}
	return nil
}

// Plugin is a plugin's name and tools.
type Plugin struct {
	Name  string
	Tools []Tool
	// MaxProcs is the plugin's GOMAXPROCS; 0 means 1, which gives the lowest call latency
	// for tools that wait on I/O. Raise it for tools that compute in parallel. The
	// GOMAXPROCS environment variable, when set, wins.
	MaxProcs int
	// OnShutdown runs when the host stops the plugin gracefully (after Serve's server has
	// stopped): stop child processes, flush files. A killed plugin runs nothing.
	OnShutdown func()
}

// Check reports what is wrong with p's tools, all at once: a tool not made with NewTool (no
// handler or schema: a zero Tool{}), a missing or malformed name (letters, digits, '_', '-',
// '.', at most 64), the same name twice, an unknown kind. Serve refuses to start a plugin
// that fails it, so the mistake shows when the host starts the plugin, not on a first call.
func (p Plugin) Check() error {
	var problems []string
	seen := map[string]bool{}
	for i, t := range p.Tools {
		where := fmt.Sprintf("tool %d (%q)", i+1, t.Name)
		switch {
		case t.Name == "":
			problems = append(problems, fmt.Sprintf("tool %d has no name", i+1))
		case !validToolName(t.Name):
			problems = append(problems, where+": a name holds only letters, digits, '_', '-' and '.', at most 64")
		case seen[t.Name]:
			problems = append(problems, where+": a second tool of that name")
		}
		seen[t.Name] = true
		if t.call == nil || t.resolved == nil {
			problems = append(problems, where+": not made with NewTool (no handler or schema)")
		}
		if _, ok := kinds[t.Kind]; !ok && t.Kind != "" {
			problems = append(problems, fmt.Sprintf("%s: unknown kind %q", where, t.Kind))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("pluginsdk: plugin %s: %s", p.Name, strings.Join(problems, "; "))
	}
	return nil
}

func validToolName(name string) bool {
	if len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
