package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// Serve runs the plugin until the host stops it. It must be called from main, before
// anything writes to stdout.
func Serve(p Plugin) {
	if err := p.Check(); err != nil {
		fmt.Fprintln(os.Stderr, err) // the host shows it with the plugin's last stderr lines
		os.Exit(1)
	}
	detachStdin()
	setMaxProcs(p.MaxProcs)
	if p.OnShutdown != nil {
		defer p.OnShutdown()
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: pb.Handshake,
		Plugins:         plugin.PluginSet{pb.ServiceName: &grpcPlugin{impl: newServer(p)}},
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger:          hclog.New(&hclog.LoggerOptions{Name: p.Name, Output: os.Stderr, Level: hclog.Info, JSONFormat: true}),
	})
}

// setMaxProcs sets GOMAXPROCS when the author asked (n > 0) and the GOMAXPROCS variable does
// not say otherwise. A tool plugin mostly answers one host over one socket: with a single P
// the gRPC reader, handler and writer goroutines hand off without waking other threads, which
// shortens a warm call's round trip on small machines (host/plugins BenchmarkWarmCall, with
// and without BENCH_PLUGIN_ENV=GOMAXPROCS=1); a plugin that computes in parallel wants them all.
func setMaxProcs(n int) {
	if n <= 0 || os.Getenv("GOMAXPROCS") != "" {
		return
	}
	runtime.GOMAXPROCS(n)
}

// detachStdin points stdin at /dev/null: a plugin never reads the host's terminal.
func detachStdin() {
	if f, err := os.Open(os.DevNull); err == nil {
		os.Stdin = f
		redirectStdin(f)
	}
}

// ServerPlugin is p's tool service as go-plugin serves it (what Serve runs); package
// plugintest serves it inside a test's process. It does not check p (Serve does).
func ServerPlugin(p Plugin) plugin.GRPCPlugin { return &grpcPlugin{impl: newServer(p)} }

// grpcPlugin is go-plugin's glue on the plugin side.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl *server
}

// GRPCServer registers the tool service.
func (g *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	g.impl.broker = broker
	pb.RegisterPluginServer(s, g.impl)
	return nil
}

// GRPCClient is not used on the plugin side.
func (g *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("pluginsdk: the plugin side has no client")
}

// server serves a Plugin's tools over gRPC.
type server struct {
	pb.UnimplementedPluginServer
	plugin Plugin
	byName map[string]Tool
	broker *plugin.GRPCBroker
	host   hostLink
}

// newServer makes the tool service of p.
func newServer(p Plugin) *server {
	s := &server{plugin: p, byName: map[string]Tool{}}
	for _, t := range p.Tools {
		s.byName[t.name] = t
	}
	return s
}

var kinds = map[Kind]pb.Kind{KindRead: pb.Kind_KIND_READ, KindEdit: pb.Kind_KIND_EDIT, KindDelete: pb.Kind_KIND_DELETE,
	KindMove: pb.Kind_KIND_MOVE, KindSearch: pb.Kind_KIND_SEARCH, KindExecute: pb.Kind_KIND_EXECUTE,
	KindThink: pb.Kind_KIND_THINK, KindFetch: pb.Kind_KIND_FETCH, KindOther: pb.Kind_KIND_OTHER}

// ListTools describes the tools.
func (s *server) ListTools(_ context.Context, req *pb.ListToolsRequest) (*pb.ListToolsResponse, error) {
	s.host.announce(s.broker, req.HostBrokerId)
	resp := &pb.ListToolsResponse{}
	for _, t := range s.plugin.Tools {
		resp.Tools = append(resp.Tools, &pb.ToolSpec{Name: t.name, Description: t.description, InputSchemaJson: string(t.schemaJSON),
			Kind: kinds[t.kind], Streams: t.streams, OutputSchemaJson: string(t.outputSchema)})
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
func (s *server) CallTool(req *pb.CallToolRequest, stream grpc.ServerStreamingServer[pb.CallToolEvent]) error {
	res := s.run(stream.Context(), req, func(text string) {
		stream.Send(&pb.CallToolEvent{Event: &pb.CallToolEvent_Update{Update: &pb.OutputUpdate{Text: text}}})
	})
	return stream.Send(&pb.CallToolEvent{Event: &pb.CallToolEvent_Result{Result: res}})
}

// CallToolUnary runs a tool without a stream; updates the tool sends are dropped.
func (s *server) CallToolUnary(ctx context.Context, req *pb.CallToolRequest) (*pb.ToolResult, error) {
	return s.run(ctx, req, nil), nil
}

// run validates the arguments and runs the tool.
func (s *server) run(ctx context.Context, req *pb.CallToolRequest, update func(string)) *pb.ToolResult {
	t, ok := s.byName[req.Name]
	if !ok {
		return &pb.ToolResult{Error: &pb.ToolError{Type: string(NotFound), Message: fmt.Sprintf("plugin %s has no tool %q", s.plugin.Name, req.Name)}}
	}
	args := json.RawMessage(req.ArgsJson)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := t.Validate(args); err != nil {
		return &pb.ToolResult{Error: toPBError(err)}
	}
	s.host.announce(s.broker, req.HostBrokerId)
	ctx = WithHost(ctx, callInfo{id: req.CallId, link: &s.host})
	if update != nil {
		ctx = WithOutput(ctx, update)
	}
	res, err := t.call(ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return &pb.ToolResult{Error: &pb.ToolError{Type: string(Cancelled), Message: ctx.Err().Error()}}
		}
		return &pb.ToolResult{Error: toPBError(err)}
	}
	out := &pb.ToolResult{LlmText: res.Text, DisplayText: res.Display}
	if res.Structured != nil {
		b, err := json.Marshal(res.Structured)
		if err != nil {
			return &pb.ToolResult{Error: &pb.ToolError{Type: string(Internal), Message: "structured result: " + err.Error()}}
		}
		out.StructuredJson = string(b)
	}
	return out
}

func toPBError(err error) *pb.ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return &pb.ToolError{Type: string(te.Type), Message: te.Message}
	}
	return &pb.ToolError{Type: string(Execution), Message: err.Error()}
}
