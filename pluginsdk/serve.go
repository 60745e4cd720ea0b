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
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{PluginName: &GRPCPlugin{Impl: NewServer(p)}},
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger:          hclog.New(&hclog.LoggerOptions{Name: p.Name, Output: os.Stderr, Level: hclog.Info, JSONFormat: true}),
	})
}

// setMaxProcs runs the plugin on one P unless the author or the GOMAXPROCS variable says
// otherwise: a tool plugin mostly answers one host over one socket, and with a single P the
// gRPC reader, handler and writer goroutines hand off without waking other threads, which
// halves a warm call's round trip on small machines (measured: p50 0.28 → 0.13–0.19 ms on 2
// cores; host/plugins BenchmarkWarmCall with BENCH_PLUGIN_ENV=GOMAXPROCS=1).
func setMaxProcs(n int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if n <= 0 {
		n = 1
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
	host   hostLink
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
func (s *Server) ListTools(_ context.Context, req *pb.ListToolsRequest) (*pb.ListToolsResponse, error) {
	s.host.announce(s.broker, req.HostBrokerId)
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
	res := s.run(stream.Context(), req, func(text string) {
		stream.Send(&pb.CallToolEvent{Event: &pb.CallToolEvent_Update{Update: &pb.OutputUpdate{Text: text}}})
	})
	return stream.Send(&pb.CallToolEvent{Event: &pb.CallToolEvent_Result{Result: res}})
}

// CallToolUnary runs a tool without a stream; updates the tool sends are dropped.
func (s *Server) CallToolUnary(ctx context.Context, req *pb.CallToolRequest) (*pb.ToolResult, error) {
	return s.run(ctx, req, nil), nil
}

// run validates the arguments and runs the tool.
func (s *Server) run(ctx context.Context, req *pb.CallToolRequest, update func(string)) *pb.ToolResult {
	t, ok := s.byName[req.Name]
	if !ok {
		return &pb.ToolResult{Error: &pb.ToolError{Type: "not_found", Message: fmt.Sprintf("plugin %s has no tool %q", s.plugin.Name, req.Name)}}
	}
	args := json.RawMessage(req.ArgsJson)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := t.Validate(args); err != nil {
		return &pb.ToolResult{Error: toPBError(err)}
	}
	s.host.announce(s.broker, req.HostBrokerId)
	ctx = context.WithValue(ctx, callKey{}, callInfo{id: req.CallId, link: &s.host})
	if update != nil {
		ctx = context.WithValue(ctx, outputKey{}, update)
	}
	res, err := t.call(ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return &pb.ToolResult{Error: &pb.ToolError{Type: "cancelled", Message: ctx.Err().Error()}}
		}
		return &pb.ToolResult{Error: toPBError(err)}
	}
	out := &pb.ToolResult{LlmText: res.Text, DisplayText: res.Display}
	if res.Structured != nil {
		b, err := json.Marshal(res.Structured)
		if err != nil {
			return &pb.ToolResult{Error: &pb.ToolError{Type: "internal", Message: "structured result: " + err.Error()}}
		}
		out.StructuredJson = string(b)
	}
	return out
}

func toPBError(err error) *pb.ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return &pb.ToolError{Type: te.Type, Message: te.Message}
	}
	return &pb.ToolError{Type: "execution", Message: err.Error()}
}
