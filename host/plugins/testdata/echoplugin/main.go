// Command echoplugin is a test plugin built with pluginsdk: echo (typed args), slow (streams
// and honours cancellation), fail (a typed error, of the type asked for), ask (host services: confirm, progress,
// log), count (state kept across calls), crash (the process dies with a panic).
package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gemhost/gem/pluginsdk"
)

type echoArgs struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

// failArgs: the error type fail's error carries (default execution): any string a plugin
// chooses.
type failArgs struct {
	Type string `json:"type,omitempty"`
}

type askArgs struct {
	What string `json:"what"`
}

var calls int

type slowArgs struct {
	Steps int `json:"steps"`
}

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name: "echo",
		Tools: []pluginsdk.Tool{
			pluginsdk.NewTool("echo", "Echoes text", pluginsdk.KindRead, func(ctx context.Context, a echoArgs) (pluginsdk.Result, error) {
				n := max(a.Times, 1)
				return pluginsdk.Result{Text: strings.Repeat(a.Text, n), Structured: map[string]int{"times": n}}, nil
			}),
			pluginsdk.NewTool("slow", "Streams a step at a time", pluginsdk.KindOther, func(ctx context.Context, a slowArgs) (pluginsdk.Result, error) {
				for i := range a.Steps {
					select {
					case <-ctx.Done():
						return pluginsdk.Result{}, ctx.Err()
					case <-time.After(20 * time.Millisecond):
					}
					pluginsdk.Output(ctx, fmt.Sprintf("step %d", i+1))
				}
				return pluginsdk.Text("done"), nil
			}).Streaming(),
			pluginsdk.NewTool("ask", "Asks the host to confirm", pluginsdk.KindEdit, func(ctx context.Context, a askArgs) (pluginsdk.Result, error) {
				pluginsdk.Progress(ctx, "asking", 0.5)
				pluginsdk.Log(ctx, "info", "asking about "+a.What)
				ok, err := pluginsdk.Confirm(ctx, "Do "+a.What+"?", "it is only a test")
				if err != nil {
					return pluginsdk.Result{}, err
				}
				return pluginsdk.Text(fmt.Sprintf("approved=%v", ok)), nil
			}),
			pluginsdk.NewTool("count", "Counts its calls in this process", pluginsdk.KindRead, func(ctx context.Context, a struct{}) (pluginsdk.Result, error) {
				calls++
				return pluginsdk.Text(fmt.Sprint(calls)), nil
			}),
			pluginsdk.NewTool("crash", "Dies", pluginsdk.KindOther, func(ctx context.Context, a struct{}) (pluginsdk.Result, error) {
				fmt.Fprintln(os.Stderr, "about to crash")
				panic("crashing on purpose")
			}),
			pluginsdk.NewTool("fail", "Always fails", pluginsdk.KindOther, func(ctx context.Context, a failArgs) (pluginsdk.Result, error) {
				return pluginsdk.Result{}, &pluginsdk.ToolError{Type: cmp.Or(pluginsdk.ErrorType(a.Type), pluginsdk.Execution), Message: "it failed on purpose"}
			}),
		},
	})
}
