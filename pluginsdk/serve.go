package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// Serve runs the plugin until the host stops it. It must be called from main, before
// anything writes to stdout.
func Serve(p Plugin) {
	detachStdin()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{PluginName: &GRPCPlugin{Impl: NewServer(p)}},
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger:          hclog.New(&hclog.LoggerOptions{Name: p.Name, Output: os.Stderr, Level: hclog.Info, JSONFormat: true}),
	})
}

// detachStdin points stdin at /dev/null: a plugin never reads the host's terminal.
func detachStdin() {
	if f, err := os.Open(os.DevNull); err == nil {
		os.Stdin = f
		redirectStdin(f)
	}
}

// GRPCPlugin is go-plugin's glue. Hosts use their own with a GRPCClient.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl *Server
}

// GRPCServer registers the tool service.
func (g *GRPCPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	g.Impl.broker = broker
	pb.RegisterPluginServer(s, g.Impl)
	return nil
}

// GRPCClient is not used on the plugin side.
func (g *GRPCPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("pluginsdk: the plugin side has no client")
}

// Server serves a Plugin's tools over gRPC (also used in-process by plugintest).
type Server struct {
	pb.UnimplementedPluginServer
	plugin Plugin
	byName map[string]Tool
	broker *plugin.GRPCBroker
}

// NewServer makes the tool service of p.
func NewServer(p Plugin) *Server {
	s := &Server{plugin: p, byName: map[string]Tool{}}
	for _, t := range p.Tools {
		s.byName[t.Name] = t
	}
	return s
}

var kinds = map[Kind]pb.Kind{KindRead: pb.Kind_KIND_READ, KindEdit: pb.Kind_KIND_EDIT, KindDelete: pb.Kind_KIND_DELETE,
	KindMove: pb.Kind_KIND_MOVE, KindSearch: pb.Kind_KIND_SEARCH, KindExecute: pb.Kind_KIND_EXECUTE,
	KindThink: pb.Kind_KIND_THINK, KindFetch: pb.Kind_KIND_FETCH, KindOther: pb.Kind_KIND_OTHER}

// ListTools describes the tools.
func (s *Server) ListTools(context.Context, *pb.ListToolsRequest) (*pb.ListToolsResponse, error) {
	resp := &pb.ListToolsResponse{}
	for _, t := range s.plugin.Tools {
		schema, err := t.Schema()
		if err != nil {
			return nil, err
		}
		resp.Tools = append(resp.Tools, &pb.ToolSpec{Name: t.Name, Description: t.Description, InputSchemaJson: string(schema), Kind: kinds[t.Kind], Streams: t.Streams})
	}
	return resp, nil
}

type outputKey struct{}

// Output sends an output update from inside a streaming tool's handler.
func Output(ctx context.Context, text string) {
	if send, ok := ctx.Value(outputKey{}).(func(string)); ok {
		send(text)
	}
}

// CallTool validates the arguments and runs the tool, streaming its updates.
func (s *Server) CallTool(req *pb.CallToolRequest, stream grpc.ServerStreamingServer[pb.CallToolEvent]) error {
	result := func(r *pb.ToolResult) error {
		return stream.Send(&pb.CallToolEvent{Event: &pb.CallToolEvent_Result{Result: r}})
	}
	t, ok := s.byName[req.Name]
	if !ok {
		return result(&pb.ToolResult{Error: &pb.ToolError{Type: "not_found", Message: fmt.Sprintf("plugin %s has no tool %q", s.plugin.Name, req.Name)}})
	}
	args := json.RawMessage(req.ArgsJson)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := t.Validate(args); err != nil {
		return result(&pb.ToolResult{Error: toPBError(err)})
	}
	ctx := context.WithValue(stream.Context(), outputKey{}, func(text string) {
		stream.Send(&pb.CallToolEvent{Event: &pb.CallToolEvent_Update{Update: &pb.OutputUpdate{Text: text}}})
	})
	res, err := t.call(ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return result(&pb.ToolResult{Error: &pb.ToolError{Type: "cancelled", Message: ctx.Err().Error()}})
		}
		return result(&pb.ToolResult{Error: toPBError(err)})
	}
	out := &pb.ToolResult{LlmText: res.Text, DisplayText: res.Display}
	if res.Structured != nil {
		b, err := json.Marshal(res.Structured)
		if err != nil {
			return result(&pb.ToolResult{Error: &pb.ToolError{Type: "internal", Message: "structured result: " + err.Error()}})
		}
		out.StructuredJson = string(b)
	}
	return result(out)
}

func toPBError(err error) *pb.ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return &pb.ToolError{Type: te.Type, Message: te.Message}
	}
	return &pb.ToolError{Type: "execution", Message: err.Error()}
}
