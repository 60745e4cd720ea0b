package pluginsdk_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gemhost/gem/pluginsdk"
)

type greetArgs struct {
	Name  string `json:"name" jsonschema:"who to greet"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

// A plugin with one tool, served from main.
func ExampleServe() {
	greet := pluginsdk.NewTool("greet", "Greets someone", pluginsdk.KindRead,
		func(ctx context.Context, a greetArgs) (pluginsdk.Result, error) {
			return pluginsdk.Text("Hello, " + a.Name + "!"), nil
		})
	pluginsdk.Serve(pluginsdk.Plugin{Name: "greeter", Tools: []pluginsdk.Tool{greet}})
}

type lookupArgs struct {
	Word string `json:"word" jsonschema:"the word to look up"`
}

type definition struct {
	Word    string   `json:"word"`
	Senses  []string `json:"senses"`
	Related []string `json:"related,omitempty"`
}

// A tool with a typed result: the output schema comes from definition, and the model gets
// the result as structured output with its JSON as text.
func ExampleNewTool_typedResult() {
	define := pluginsdk.NewTool("define", "Looks a word up", pluginsdk.KindRead,
		func(ctx context.Context, a lookupArgs) (definition, error) {
			if a.Word != "gem" {
				return definition{}, pluginsdk.Errorf(pluginsdk.NotFound, "no entry for %q", a.Word)
			}
			return definition{Word: "gem", Senses: []string{"a precious stone"}}, nil
		})
	p := pluginsdk.Plugin{Name: "dictionary", Tools: []pluginsdk.Tool{define}}
	fmt.Println(p.Tools[0].Name(), string(p.Tools[0].OutputSchema()) != "")
	// Output: define true
}

// Arguments are checked against the schema derived from the argument type before a handler
// runs; every violation is reported.
func ExampleTool_Validate() {
	greet := pluginsdk.NewTool("greet", "Greets someone", pluginsdk.KindRead,
		func(ctx context.Context, a greetArgs) (pluginsdk.Result, error) { return pluginsdk.Text("hi"), nil })
	err := greet.Validate([]byte(`{"times":"twice"}`))
	var te *pluginsdk.ToolError
	fmt.Println(errors.As(err, &te), te.Type)
	// Output: true invalid_arguments
}

// Serve refuses a plugin with a mistake at start, naming each one.
func ExamplePlugin_Check() {
	greet := pluginsdk.NewTool("greet", "Greets someone", pluginsdk.KindRead,
		func(ctx context.Context, a greetArgs) (pluginsdk.Result, error) { return pluginsdk.Text("hi"), nil })
	err := pluginsdk.Plugin{Name: "greeter", Tools: []pluginsdk.Tool{greet, greet}}.Check()
	fmt.Println(err)
	// Output: pluginsdk: plugin greeter: tool 2 ("greet"): a second tool of that name
}

// A tool logs through the host with log/slog; gem writes the lines to its log file, tagged
// with the call.
func ExampleLogger() {
	tool := pluginsdk.NewTool("sync", "Syncs the notes", pluginsdk.KindEdit,
		func(ctx context.Context, a struct{}) (pluginsdk.Result, error) {
			log := pluginsdk.Logger(ctx)
			log.Info("syncing", "notes", 12)
			if _, err := os.Stat("notes"); err != nil {
				log.Warn("no notes folder", "error", err)
				return pluginsdk.Result{}, pluginsdk.Errorf(pluginsdk.NotFound, "no notes folder: %v", err)
			}
			return pluginsdk.Text("synced"), nil
		})
	_ = tool
}

// printHost is a host that runs a tool itself: it answers confirmations and prints logs.
type printHost struct{}

func (printHost) Confirm(_ context.Context, title, _ string) (bool, error) {
	fmt.Println("confirm:", title)
	return true, nil
}
func (printHost) Progress(context.Context, string, float64) {}
func (printHost) Log(_ context.Context, level, message string) {
	fmt.Println(level+":", message)
}

// A host that runs tools in its own process (gem's Go SDK) or behind another protocol (an
// MCP server) gives each call its Host with WithHost: the tool's Confirm, Log and Logger are
// the same code as under Serve.
func ExampleWithHost() {
	wipe := pluginsdk.NewTool("wipe", "Wipes the cache", pluginsdk.KindDelete,
		func(ctx context.Context, _ struct{}) (pluginsdk.Result, error) {
			if ok, err := pluginsdk.Confirm(ctx, "Wipe the cache?", ""); err != nil || !ok {
				return pluginsdk.Text("kept"), err
			}
			pluginsdk.Logger(ctx).Info("wiped", "entries", 3)
			return pluginsdk.Text("wiped"), nil
		})
	res, _ := wipe.Call(pluginsdk.WithHost(context.Background(), printHost{}), []byte(`{}`))
	fmt.Println(res.Text)
	// Output:
	// confirm: Wipe the cache?
	// info: wiped entries=3
	// wiped
}
