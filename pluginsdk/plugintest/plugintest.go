// Package plugintest lets plugin authors test their tools the way gem calls them: InProcess
// serves a pluginsdk.Plugin over a real gRPC connection inside the test process (fast, with a
// debugger), Build and Start run the real plugin binary as a go-plugin subprocess (the
// handshake, stdout discipline and process behaviour included). Both give a Client whose
// calls go through argument validation, streaming and the host services (recorded by Host).
//
//	func TestGreet(t *testing.T) {
//		c := plugintest.InProcess(t, myPlugin())
//		res := c.Call(t, "greet", `{"name":"gem"}`)
//		if res.Text != "Hello, gem!" {
//			t.Fatal(res)
//		}
//		bin := plugintest.Build(t, ".") // the package with main
//		p := plugintest.Start(t, bin)
//		if got := p.Call(t, "greet", `{"name":"x"}`).Text; got != "Hello, x!" {
//			t.Fatal(got)
//		}
//	}
package plugintest

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// Host records what tools ask of the host and answers confirmations with Approve.
type Host struct {
	mu       sync.Mutex
	Approve  bool
	Asked    []string // "title: details"
	Reported []string // progress messages
	Logs     []string // "level: message"
}

func (h *Host) Confirm(_ context.Context, title, details string) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Asked = append(h.Asked, title+": "+details)
	return h.Approve, nil
}

func (h *Host) Progress(_ context.Context, message string, _ float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Reported = append(h.Reported, message)
}

func (h *Host) Log(_ context.Context, level, message string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Logs = append(h.Logs, level+": "+message)
}

// Result is a call's outcome.
type Result struct {
	Text       string
	Display    string
	Structured string               // JSON, "" when none
	Error      *pluginsdk.ToolError // the tool's own failure, nil on success
	Updates    []string             // streamed output, in order
}

// Client is a connection to a plugin under test.
type Client struct {
	Conn  *pluginhost.Conn
	Tools []pluginhost.ToolSpec
	Host  *Host // the host services of every call; set Host.Approve to approve
	Pid   int   // the subprocess, 0 in process
}

// Call runs a tool and fails the test when the call itself fails (a tool's own error is in
// Result.Error).
func (c *Client) Call(t testing.TB, tool, argsJSON string) Result {
	t.Helper()
	res, err := c.CallContext(context.Background(), tool, argsJSON)
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// CallContext runs a tool under ctx (to test cancellation and timeouts).
func (c *Client) CallContext(ctx context.Context, tool, argsJSON string) (Result, error) {
	var r Result
	var mu sync.Mutex
	res, err := c.Conn.Call(ctx, tool, argsJSON, pluginhost.CallOptions{
		Host: c.Host,
		OnUpdate: func(s string) {
			mu.Lock()
			r.Updates = append(r.Updates, s)
			mu.Unlock()
		},
	})
	if err != nil {
		return r, err
	}
	r.Text, r.Display, r.Structured, r.Error = res.Text, res.Display, string(res.Structured), res.Error
	return r, nil
}

// both serves a plugin and dispenses the host's Conn, for go-plugin's in-process pair.
type both struct {
	plugin.NetRPCUnsupportedPlugin
	server plugin.GRPCPlugin
}

func (b both) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	return b.server.GRPCServer(broker, s)
}

func (b both) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pluginhost.NewConn(broker, c), nil
}

// InProcess serves p inside the test over a real gRPC connection with go-plugin's broker.
// It fails the test when p has a mistake Serve would refuse (Plugin.Check).
func InProcess(t testing.TB, p pluginsdk.Plugin) *Client {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	ps := map[string]plugin.Plugin{pb.ServiceName: both{server: pluginsdk.ServerPlugin(p)}}
	client, server := plugin.TestPluginGRPCConn(t, false, ps)
	t.Cleanup(func() { client.Close(); server.Stop() })
	raw, err := client.Dispense(pb.ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, raw.(*pluginhost.Conn), 0)
}

func connect(t testing.TB, conn *pluginhost.Conn, pid int) *Client {
	t.Helper()
	tools, err := conn.ListTools(context.Background())
	if err != nil {
		t.Fatalf("listing tools: %v", err)
	}
	return &Client{Conn: conn, Tools: tools, Host: &Host{}, Pid: pid}
}

// Build compiles the plugin's main package in dir into a temporary binary.
func Build(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plugin-under-test")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the plugin in %s: %v\n%s", dir, err, out)
	}
	return bin
}

// Start runs the plugin binary as gem does (go-plugin gRPC, gem's handshake, the given
// environment only) and stops it when the test ends. Its stderr goes to the test log.
func Start(t testing.TB, binary string, env ...string) *Client {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	gp := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pb.Handshake,
		Plugins:          pluginhost.Plugins(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		Stderr:           testWriter{t},
		StartTimeout:     30 * time.Second,
	})
	t.Cleanup(gp.Kill)
	rpc, err := gp.Client()
	if err != nil {
		t.Fatalf("starting plugin %s: %v", binary, err)
	}
	raw, err := rpc.Dispense(pb.ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	if rc := gp.ReattachConfig(); rc != nil {
		pid = rc.Pid
	}
	return connect(t, raw.(*pluginhost.Conn), pid)
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	if s := string(p); s != "\n" {
		w.t.Log("plugin stderr: " + s)
	}
	return len(p), nil
}
