package tools

import (
	"context"
	"encoding/json"

	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
)

// The plugin edge: the only place in package tools that speaks protobuf. A plugin's
// ToolSpec becomes a Spec, a call's CallOptions become the protocol's, its ToolResult a
// Result.

// pluginBackend serves the tools of one go-plugin plugin.
type pluginBackend struct{ plugin *plugins.Plugin }

func (b pluginBackend) sandbox() (string, *sandbox.Policy) {
	return b.plugin.Extension, b.plugin.Policy
}

func (b pluginBackend) call(ctx context.Context, declared string, args json.RawMessage, opts CallOptions) (*Result, error) {
	popts := pluginhost.CallOptions{OnUpdate: opts.OnUpdate}
	if opts.Host != nil {
		popts.Host = opts.Host
	}
	res, err := b.plugin.Call(ctx, declared, string(args), popts)
	if err != nil {
		return nil, err
	}
	return resultOf(res), nil
}

// specsOf are a plugin's tools in the host's terms.
func specsOf(list []pluginhost.ToolSpec) []Spec {
	out := make([]Spec, 0, len(list))
	for _, s := range list {
		out = append(out, Spec{Name: s.Name, Description: s.Description, Kind: s.Kind, Streams: s.Streams, InputSchema: s.InputSchema, OutputSchema: s.OutputSchema})
	}
	return out
}

func resultOf(res *pluginhost.Result) *Result {
	out := &Result{Text: res.Text, Display: res.Display, Structured: res.Structured}
	if res.Error != nil {
		out.Error = &ResultError{Type: res.Error.Type, Message: res.Error.Message}
	}
	return out
}
