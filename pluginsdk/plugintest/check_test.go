package plugintest

import (
	"context"
	"strings"
	"testing"

	"github.com/gemhost/gem/pluginsdk"
)

// TestPluginCheck: what Serve refuses at start, each named, all at once; a good plugin passes.
func TestPluginCheck(t *testing.T) {
	type args struct {
		Name string `json:"name"`
	}
	ok := pluginsdk.NewTool("greet", "Greets", pluginsdk.KindRead, func(ctx context.Context, a args) (pluginsdk.Result, error) {
		return pluginsdk.Text("hi " + a.Name), nil
	})
	cases := []struct {
		name  string
		tools []pluginsdk.Tool
		want  []string // "" for no error
	}{
		{"good", []pluginsdk.Tool{ok}, nil},
		{"zero tool", []pluginsdk.Tool{{}}, []string{"tool 1 is a zero Tool (make it with NewTool)"}},
		{"no schema", []pluginsdk.Tool{pluginsdk.NewTool("c", "x", pluginsdk.KindRead, func(ctx context.Context, a chan int) (pluginsdk.Result, error) { return pluginsdk.Result{}, nil })}, []string{`tool 1 ("c"): no JSON Schema for its arguments (chan int)`}},
		{"no output schema", typed(func(ctx context.Context, a args) (func(), error) { return nil, nil }), []string{`tool 1 ("t"): no JSON Schema for its result (func())`}},
		{"duplicate", []pluginsdk.Tool{ok, ok}, []string{`tool 2 ("greet"): a second tool of that name`}},
		{"bad name", []pluginsdk.Tool{pluginsdk.NewTool("has space", "x", pluginsdk.KindRead, func(ctx context.Context, a args) (pluginsdk.Result, error) { return pluginsdk.Result{}, nil })}, []string{"a name holds only letters"}},
		{"unknown kind", []pluginsdk.Tool{pluginsdk.NewTool("k", "x", "frobnicate", func(ctx context.Context, a args) (pluginsdk.Result, error) { return pluginsdk.Result{}, nil })}, []string{`unknown kind "frobnicate"`}},
	}
	for _, c := range cases {
		err := pluginsdk.Plugin{Name: "p", Tools: c.tools}.Check()
		if (err == nil) != (len(c.want) == 0) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v lacks %q", c.name, err, w)
			}
		}
	}
}

// typed is the tools of a plugin with one tool "t" with a typed result.
func typed[In, Out any](fn func(context.Context, In) (Out, error)) []pluginsdk.Tool {
	return []pluginsdk.Tool{pluginsdk.NewTool("t", "typed", pluginsdk.KindRead, fn)}
}
