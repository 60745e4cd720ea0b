// Package plugins owns go-plugin tool plugins on the host side: starting a plugin binary
// (gRPC only, gem's handshake, no host environment, its own process group, killed with gem),
// listing its tools and calling them with streamed updates and cancellation.
//
// Transport security: AutoMTLS is off. go-plugin speaks over a Unix socket in a private
// temporary folder of the user; certificates would add ≈ 20 ms (P-521 key generation) to
// every cold start (spec/plugins.md) and protect against nothing a same-user process could
// not already do to the plugin's memory. Remaining for the plugins issue: lazy start and
// warm reuse in a registry, crash detection with stderr tails and restart with backoff,
// per-call timeouts, host services over the broker.
package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/gemhost/gem/pluginsdk"
	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// hostPlugin is go-plugin's glue on the host side.
type hostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host does not serve tools")
}

func (hostPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pb.NewPluginClient(c), nil
}

// Client is one running plugin.
type Client struct {
	Name  string
	gp    *plugin.Client
	rpc   pb.PluginClient
	Tools []*pb.ToolSpec
}

// Start launches the plugin binary at path with exactly env, performs the handshake and
// lists its tools.
func Start(ctx context.Context, name, path string, env []string, logger hclog.Logger) (*Client, error) {
	if logger == nil {
		logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	cmd := exec.Command(path)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	gp := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginsdk.Handshake,
		Plugins:          plugin.PluginSet{pluginsdk.PluginName: hostPlugin{}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		Logger:           logger.Named("ext." + name),
	})
	conn, err := gp.Client()
	if err != nil {
		gp.Kill()
		return nil, fmt.Errorf("plugin %s (%s) did not start: %w", name, path, err)
	}
	raw, err := conn.Dispense(pluginsdk.PluginName)
	if err != nil {
		gp.Kill()
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	c := &Client{Name: name, gp: gp, rpc: raw.(pb.PluginClient)}
	resp, err := c.rpc.ListTools(ctx, &pb.ListToolsRequest{})
	if err != nil {
		gp.Kill()
		return nil, fmt.Errorf("plugin %s: listing tools: %w", name, err)
	}
	c.Tools = resp.Tools
	return c, nil
}

// Call runs a tool; onUpdate (may be nil) receives streamed output.
func (c *Client) Call(ctx context.Context, tool string, argsJSON string, onUpdate func(string)) (*pb.ToolResult, error) {
	stream, err := c.rpc.CallTool(ctx, &pb.CallToolRequest{Name: tool, ArgsJson: argsJSON})
	if err != nil {
		return nil, c.failure(err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("plugin %s: tool %s ended without a result", c.Name, tool)
			}
			return nil, c.failure(err)
		}
		switch e := ev.Event.(type) {
		case *pb.CallToolEvent_Update:
			if onUpdate != nil {
				onUpdate(e.Update.Text)
			}
		case *pb.CallToolEvent_Result:
			return e.Result, nil
		}
	}
}

func (c *Client) failure(err error) error {
	if c.gp.Exited() {
		return fmt.Errorf("plugin %s exited: %w", c.Name, err)
	}
	return fmt.Errorf("plugin %s: %w", c.Name, err)
}

// Exited reports whether the plugin process has ended.
func (c *Client) Exited() bool { return c.gp.Exited() }

// Close stops the plugin process.
func (c *Client) Close() { c.gp.Kill() }
