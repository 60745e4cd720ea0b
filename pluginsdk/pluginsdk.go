// Package pluginsdk is what a plugin author imports to give gem tools, and all of it is for
// authors: declare tools with typed arguments (NewTool; the JSON Schema is derived from the Go
// struct and arguments are validated against it before the handler runs) or typed arguments
// and result (a typed result), then call Serve from main. Serve checks the tools first (names,
// duplicates, schemas) and refuses to start a plugin with a mistake, naming it. A plugin is a
// go-plugin gRPC server speaking pluginsdk/proto/gemplugin1.proto; the host's side of that
// protocol is package pluginhost, which authors never need.
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
//   - Log(ctx, level, message) writes to gem's log file, tagged with the call; Logger(ctx)
//     is the same as a *slog.Logger.
//   - Output(ctx, text) streams output from a tool marked Streaming().
//
// Host services travel over go-plugin's GRPCBroker: the host offers them at the first call,
// and each request carries the call's id so concurrent calls are told apart. A host that
// runs the same tools another way (gem's Go SDK in its own process, an MCP server) gives
// each call its own Host with WithHost (and WithOutput), so a tool is written once.
//
// A tool's failure is an error; a *ToolError (Errorf) gives it an ErrorType the model can act
// on. Plugin.MaxProcs sets GOMAXPROCS when asked (1 makes a warm call about 1.4× quicker for
// a plugin that waits on I/O: host/plugins BenchmarkWarmCall with and without
// BENCH_PLUGIN_ENV=GOMAXPROCS=1). Plugin.OnShutdown runs when the host stops the plugin
// gracefully.
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
)

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

// ErrorType says what kind of failure a tool's error is, for the host and the model to act on.
type ErrorType string

// The error types a host understands; an error that is not a *ToolError is Execution.
const (
	InvalidArguments ErrorType = "invalid_arguments" // the arguments cannot be acted on
	NotFound         ErrorType = "not_found"         // what the arguments name does not exist
	PermissionDenied ErrorType = "permission_denied" // the user or the system refused
	Timeout          ErrorType = "timeout"           // the tool gave up waiting
	Cancelled        ErrorType = "cancelled"         // the call's context ended
	Execution        ErrorType = "execution"         // the work itself failed
	Internal         ErrorType = "internal"          // a bug in the plugin
)

// ToolError is an error with a type the host and model can act on.
type ToolError struct {
	Type    ErrorType
	Message string
}

func (e *ToolError) Error() string { return string(e.Type) + ": " + e.Message }

// Errorf is a *ToolError of type t with a formatted message.
func Errorf(t ErrorType, format string, args ...any) error {
	return &ToolError{Type: t, Message: fmt.Sprintf(format, args...)}
}

// Tool is one tool of a plugin; make it with NewTool (a zero Tool is refused by
// Serve). A Tool is a value: its methods read it, Streaming returns a changed copy.
type Tool struct {
	name         string
	description  string
	kind         Kind
	streams      bool
	schemaJSON   []byte
	outputSchema []byte // nil: the tool declares no output schema
	resolved     *jsonschema.Resolved
	call         func(ctx context.Context, args json.RawMessage) (Result, error)
	err          error // why the tool cannot be served (its schema could not be derived)
}

// Name is the tool's name.
func (t Tool) Name() string { return t.name }

// Description is the tool's description, for the model.
func (t Tool) Description() string { return t.description }

// Kind is what the tool does, for policy and confirmation.
func (t Tool) Kind() Kind { return t.kind }

// Streams reports whether the tool sends output updates while it runs.
func (t Tool) Streams() bool { return t.streams }

// Schema is the JSON Schema of the tool's arguments.
func (t Tool) Schema() json.RawMessage { return t.schemaJSON }

// OutputSchema is the JSON Schema of the tool's structured result (a typed result), or nil.
func (t Tool) OutputSchema() json.RawMessage { return t.outputSchema }

// Call runs the tool's handler with args (JSON), as Serve does once Validate passed: for a
// host that runs a tool in its own process (gem's Go SDK runs its programs' tools so, with
// the same schemas and results as a plugin's). A tool made wrong (Plugin.Check says why)
// fails with an Internal *ToolError.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	if t.call == nil || t.err != nil {
		return Result{}, &ToolError{Type: Internal, Message: fmt.Sprintf("tool %q cannot run: %v", t.name, t.err)}
	}
	return t.call(ctx, args)
}

// Streaming marks the tool as sending output updates (with Output) while it runs.
func (t Tool) Streaming() Tool { t.streams = true; return t }

// NewTool declares a tool: its arguments decode into In, and it answers with Out. The
// argument schema comes from In's fields (json tags for names, jsonschema tags for
// descriptions; fields without omitempty are required) and arguments are validated against
// it before fn runs. When Out is Result the tool answers with text (and optional structured
// output); any other Out is a typed result: its output schema is derived from Out, and the
// result is Out as structured output with its JSON as the text, as the MCP Go SDK's AddTool
// does. A type no schema can be derived from makes Serve refuse to start, naming the tool.
// It is the one way to make a Tool: list them in Plugin.Tools.
func NewTool[In, Out any](name, description string, kind Kind, fn func(ctx context.Context, args In) (Out, error)) Tool {
	if text, ok := any(fn).(func(context.Context, In) (Result, error)); ok {
		return newTool(name, description, kind, text)
	}
	t := newTool(name, description, kind, func(ctx context.Context, args In) (Result, error) {
		out, err := fn(ctx, args)
		if err != nil {
			return Result{}, err
		}
		text, err := json.Marshal(out)
		if err != nil {
			return Result{}, &ToolError{Type: Internal, Message: "encoding the result: " + err.Error()}
		}
		return Result{Text: string(text), Structured: out}, nil
	})
	if t.err == nil {
		schema, err := jsonschema.For[Out](nil)
		if err == nil {
			t.outputSchema, err = json.Marshal(schema)
		}
		if err != nil {
			t.err = fmt.Errorf("no JSON Schema for its result (%T): %w", *new(Out), err)
		}
	}
	return t
}

func newTool[A any](name, description string, kind Kind, fn func(ctx context.Context, args A) (Result, error)) Tool {
	t := Tool{name: name, description: description, kind: kind}
	schema, err := jsonschema.For[A](nil)
	if err == nil {
		t.resolved, err = schema.Resolve(nil)
	}
	if err == nil {
		t.schemaJSON, err = json.Marshal(schema)
	}
	if err != nil {
		t.err = fmt.Errorf("no JSON Schema for its arguments (%T): %w", *new(A), err)
		return t
	}
	t.call = func(ctx context.Context, raw json.RawMessage) (Result, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return Result{}, &ToolError{Type: InvalidArguments, Message: err.Error()}
		}
		return fn(ctx, a)
	}
	return t
}

// Validate checks raw arguments against the tool's schema, reporting every violation.
func (t Tool) Validate(raw json.RawMessage) error {
	var v any
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return &ToolError{Type: InvalidArguments, Message: "arguments are not JSON: " + err.Error()}
	}
	if t.resolved == nil {
		return &ToolError{Type: Internal, Message: "the tool has no schema"}
	}
	if err := t.resolved.Validate(v); err != nil {
		return &ToolError{Type: InvalidArguments, Message: err.Error()}
	}
	return nil
}

// Plugin is a plugin's name and tools.
type Plugin struct {
	Name  string
	Tools []Tool
	// MaxProcs, when above 0, is the plugin's GOMAXPROCS; 0 leaves Go's default (one per
	// core). 1 gives the lowest call latency for a plugin whose tools wait on I/O (see
	// docs/benchmarks.md: a warm call's round trip). The GOMAXPROCS environment variable, when set, wins.
	MaxProcs int
	// OnShutdown runs when the host stops the plugin gracefully (after Serve's server has
	// stopped): stop child processes, flush files. A killed plugin runs nothing.
	OnShutdown func()
}

// Check reports what is wrong with p's tools, all at once: a zero Tool{} (not made with
// NewTool), arguments or a result no JSON Schema can be derived from, a missing or malformed name (letters, digits, '_', '-',
// '.', at most 64), the same name twice, an unknown kind. Serve refuses to start a plugin
// that fails it, so the mistake shows when the host starts the plugin, not on a first call.
func (p Plugin) Check() error {
	var problems []string
	seen := map[string]bool{}
	for i, t := range p.Tools {
		where := fmt.Sprintf("tool %d (%q)", i+1, t.name)
		switch {
		case t.name == "" && t.err == nil && t.call == nil:
			problems = append(problems, fmt.Sprintf("tool %d is a zero Tool (make it with NewTool)", i+1))
			continue
		case t.name == "":
			problems = append(problems, fmt.Sprintf("tool %d has no name", i+1))
		case !validToolName(t.name):
			problems = append(problems, where+": a name holds only letters, digits, '_', '-' and '.', at most 64")
		case seen[t.name]:
			problems = append(problems, where+": a second tool of that name")
		}
		seen[t.name] = true
		if t.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, t.err))
		}
		if _, ok := kinds[t.kind]; !ok && t.kind != "" {
			problems = append(problems, fmt.Sprintf("%s: unknown kind %q", where, t.kind))
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
