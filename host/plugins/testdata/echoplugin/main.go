// Command echoplugin is a test plugin built with pluginsdk: echo (typed args), slow (streams
// and honours cancellation), fail (a typed error).
package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gemhost/gem/pluginsdk"
)

type echoArgs struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

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
			pluginsdk.NewTool("fail", "Always fails", pluginsdk.KindOther, func(ctx context.Context, a struct{}) (pluginsdk.Result, error) {
				return pluginsdk.Result{}, &pluginsdk.ToolError{Type: "execution", Message: "it failed on purpose"}
			}),
		},
	})
}
