package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
	pb "github.com/gemhost/gem/pluginsdk/proto"
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
	return resultFromPB(res), nil
}

// specFromPB is a plugin's tool description in the host's terms.
func specFromPB(s *pb.ToolSpec) Spec {
	out := Spec{Name: s.Name, Description: s.Description, Kind: kindFromPB(s.Kind), Streams: s.Streams, InputSchema: json.RawMessage(s.InputSchemaJson)}
	if s.OutputSchemaJson != "" && json.Valid([]byte(s.OutputSchemaJson)) {
		out.OutputSchema = json.RawMessage(s.OutputSchemaJson)
	}
	return out
}

func specsFromPB(list []*pb.ToolSpec) []Spec {
	out := make([]Spec, 0, len(list))
	for _, s := range list {
		out = append(out, specFromPB(s))
	}
	return out
}

// kindFromPB: KIND_EXECUTE is execute; unspecified (or a kind newer than this host) is other.
func kindFromPB(k pb.Kind) Kind {
	if k == pb.Kind_KIND_UNSPECIFIED {
		return KindOther
	}
	name, ok := pb.Kind_name[int32(k)]
	if !ok {
		return KindOther
	}
	return Kind(strings.ToLower(strings.TrimPrefix(name, "KIND_")))
}

func resultFromPB(res *pb.ToolResult) *Result {
	out := &Result{Text: res.LlmText, Display: res.DisplayText}
	if res.StructuredJson != "" && json.Valid([]byte(res.StructuredJson)) {
		out.Structured = json.RawMessage(res.StructuredJson)
	}
	if res.Error != nil {
		out.Error = &ResultError{Type: ErrorType(res.Error.Type), Message: res.Error.Message}
	}
	return out
}
