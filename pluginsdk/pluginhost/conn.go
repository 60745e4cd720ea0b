// Package pluginhost is the host's side of gem's plugin protocol: start nothing, just speak
// it. A host (gem, or package plugintest) gives go-plugin the Plugins set with proto.Handshake,
// dispenses proto.ServiceName and gets a *Conn: list a plugin's tools, call them with streamed
// updates, and serve the plugin's requests for confirmation, progress and logs from the
// Services of the call that made them. Plugin authors never import it; they use pluginsdk.
package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gemhost/gem/pluginsdk"
	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// Services is what a host offers a plugin's tools while they run: confirmation, progress
// and logs. gem implements it with its policy and confirmation; plugintest records calls.
type Services interface {
	Confirm(ctx context.Context, title, details string) (bool, error)
	Progress(ctx context.Context, message string, fraction float64)
	Log(ctx context.Context, level, message string)
}

// ToolSpec is a tool a plugin declares, in the host's terms (the protocol's types stay
// behind this package).
type ToolSpec struct {
	Name        string
	Description string
	// Kind is what the tool does; other when the plugin did not say, or said a kind newer
	// than this host knows.
	Kind         pluginsdk.Kind
	Streams      bool            // it sends output updates while it runs
	InputSchema  json.RawMessage // the JSON Schema of its arguments
	OutputSchema json.RawMessage // the JSON Schema of its structured result; nil when none
}

// Result is a tool call's outcome.
type Result struct {
	Text       string          // for the model
	Display    string          // for the user ("" : Text)
	Structured json.RawMessage // the structured result; nil when none
	Error      *pluginsdk.ToolError
}

func specFromPB(s *pb.ToolSpec) ToolSpec {
	out := ToolSpec{Name: s.Name, Description: s.Description, Kind: kindFromPB(s.Kind), Streams: s.Streams, InputSchema: json.RawMessage(s.InputSchemaJson)}
	if s.OutputSchemaJson != "" && json.Valid([]byte(s.OutputSchemaJson)) {
		out.OutputSchema = json.RawMessage(s.OutputSchemaJson)
	}
	return out
}

// kindFromPB: KIND_EXECUTE is execute; unspecified (or a kind newer than this host) is other.
func kindFromPB(k pb.Kind) pluginsdk.Kind {
	name, ok := pb.Kind_name[int32(k)]
	if k == pb.Kind_KIND_UNSPECIFIED || !ok {
		return pluginsdk.KindOther
	}
	return pluginsdk.Kind(strings.ToLower(strings.TrimPrefix(name, "KIND_")))
}

func resultFromPB(res *pb.ToolResult) *Result {
	if res == nil {
		return nil
	}
	out := &Result{Text: res.LlmText, Display: res.DisplayText}
	if res.StructuredJson != "" && json.Valid([]byte(res.StructuredJson)) {
		out.Structured = json.RawMessage(res.StructuredJson)
	}
	if res.Error != nil {
		out.Error = &pluginsdk.ToolError{Type: pluginsdk.ErrorType(res.Error.Type), Message: res.Error.Message}
	}
	return out
}

// CallOptions are per-call hooks of Conn.Call.
type CallOptions struct {
	OnUpdate func(text string) // streamed output updates; may be nil
	Host     Services          // host services for this call; nil refuses confirmations
}

// Plugins is the plugin set a host gives go-plugin's ClientConfig: dispensing
// proto.ServiceName gives a *Conn.
func Plugins() plugin.PluginSet { return plugin.PluginSet{pb.ServiceName: clientSide{}} }

// clientSide is go-plugin's glue on the host side.
type clientSide struct {
	plugin.NetRPCUnsupportedPlugin
}

// GRPCServer is not used on the host side.
func (clientSide) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("pluginhost: the host side serves no tools")
}

// GRPCClient makes the host's connection to a plugin.
func (clientSide) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewConn(broker, c), nil
}

// NewConn is the host's connection to a plugin served on c, with broker for the host
// services (go-plugin's GRPCClient hook; in-process test pairs call it themselves).
func NewConn(broker *plugin.GRPCBroker, c *grpc.ClientConn) *Conn {
	return &Conn{rpc: pb.NewPluginClient(c), broker: broker, calls: map[uint64]Services{}}
}

// Conn is a host's connection to one running plugin: list tools, call them. Host services
// are served to the plugin over go-plugin's broker, one server per connection, and routed to
// the CallOptions.Host of the call that asked.
type Conn struct {
	rpc      pb.PluginClient
	broker   *plugin.GRPCBroker
	brokerID uint32
	serve    sync.Once
	nextCall atomic.Uint64
	mu       sync.Mutex
	calls    map[uint64]Services
	fallback Services
	streams  map[string]bool // tool -> streams, from ListTools
	noUnary  atomic.Bool     // the plugin predates CallToolUnary
}

// SetHost sets the host services for requests outside any call (or of calls without their
// own CallOptions.Host), such as a plugin's logs between calls.
func (c *Conn) SetHost(h Services) {
	c.mu.Lock()
	c.fallback = h
	c.mu.Unlock()
}

// ListTools asks the plugin for its tools. The host services are offered with the first
// call, not here, to keep them off the cold start.
func (c *Conn) ListTools(ctx context.Context) ([]ToolSpec, error) {
	resp, err := c.rpc.ListTools(ctx, &pb.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	streams := map[string]bool{}
	for _, t := range resp.Tools {
		streams[t.Name] = t.Streams
	}
	c.mu.Lock()
	c.streams = streams
	c.mu.Unlock()
	out := make([]ToolSpec, 0, len(resp.Tools))
	for _, t := range resp.Tools {
		out = append(out, specFromPB(t))
	}
	return out, nil
}

// hostServices starts the broker server of the host services once and returns its id.
func (c *Conn) hostServices() uint32 {
	if c.broker == nil {
		return 0
	}
	c.serve.Do(func() {
		c.brokerID = c.broker.NextId()
		go c.broker.AcceptAndServe(c.brokerID, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(opts...)
			pb.RegisterHostServiceServer(s, &hostServer{conn: c})
			return s
		})
	})
	return c.brokerID
}

// Call runs a tool with JSON arguments: updates go to opts.OnUpdate, the result is returned.
// A transport failure (the plugin died, the context ended) is an error; a tool's own failure
// is in the result's Error.
func (c *Conn) Call(ctx context.Context, tool, argsJSON string, opts CallOptions) (*Result, error) {
	res, err := c.call(ctx, tool, argsJSON, opts)
	return resultFromPB(res), err
}

func (c *Conn) call(ctx context.Context, tool, argsJSON string, opts CallOptions) (*pb.ToolResult, error) {
	id := c.nextCall.Add(1)
	if opts.Host != nil {
		c.mu.Lock()
		c.calls[id] = opts.Host
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.calls, id)
			c.mu.Unlock()
		}()
	}
	req := &pb.CallToolRequest{Name: tool, ArgsJson: argsJSON, HostBrokerId: c.hostServices(), CallId: id}
	c.mu.Lock()
	streams, known := c.streams[tool]
	c.mu.Unlock()
	if known && !streams && !c.noUnary.Load() {
		res, err := c.rpc.CallToolUnary(ctx, req)
		if status.Code(err) != codes.Unimplemented {
			return endedBy(ctx, res, err)
		}
		c.noUnary.Store(true)
	}
	stream, err := c.rpc.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("tool %s ended without a result", tool)
			}
			return nil, err
		}
		switch e := ev.Event.(type) {
		case *pb.CallToolEvent_Update:
			if opts.OnUpdate != nil {
				opts.OnUpdate(e.Update.Text)
			}
		case *pb.CallToolEvent_Result:
			return endedBy(ctx, e.Result, nil)
		}
	}
}

// endedBy reports a call that failed because its context ended as the context's error: the
// plugin sees the same deadline and may answer with a cancelled result before the host's
// transport notices. A context's deadline is noticed by a timer that may not have run yet when
// the answer arrives (a busy machine), so a deadline that has passed counts as ended too.
func endedBy(ctx context.Context, res *pb.ToolResult, err error) (*pb.ToolResult, error) {
	if err == nil && res.GetError() == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return nil, context.DeadlineExceeded
	}
	return res, err
}

func (c *Conn) hostFor(id uint64) Services {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.calls[id]; ok {
		return h
	}
	return c.fallback
}

// hostServer routes the plugin's host service requests to the call they belong to.
type hostServer struct {
	pb.UnimplementedHostServiceServer
	conn *Conn
}

func (h *hostServer) Confirm(ctx context.Context, req *pb.ConfirmRequest) (*pb.ConfirmResponse, error) {
	hs := h.conn.hostFor(req.CallId)
	if hs == nil {
		return &pb.ConfirmResponse{Approved: false}, nil
	}
	ok, err := hs.Confirm(ctx, req.Title, req.Details)
	if err != nil {
		return nil, err
	}
	return &pb.ConfirmResponse{Approved: ok}, nil
}

func (h *hostServer) Progress(ctx context.Context, req *pb.ProgressRequest) (*pb.Empty, error) {
	if hs := h.conn.hostFor(req.CallId); hs != nil {
		hs.Progress(ctx, req.Message, req.Fraction)
	}
	return &pb.Empty{}, nil
}

func (h *hostServer) Log(ctx context.Context, req *pb.LogRequest) (*pb.Empty, error) {
	if hs := h.conn.hostFor(req.CallId); hs != nil {
		hs.Log(ctx, req.Level, req.Message)
	}
	return &pb.Empty{}, nil
}
