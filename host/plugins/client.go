// Package plugins owns go-plugin tool plugins on the host side: starting a plugin binary
// (gRPC only, gem's handshake, no host environment, stdin not shared, its own process group,
// killed with gem), listing its tools and calling them with streamed updates, host services,
// per-call timeouts and cancellation; and a Plugin's session lifecycle: started on first use,
// kept warm, a crash reported with the plugin's last stderr lines and restarted on the next
// call with backoff, stopped with no process left.
//
// Transport security: AutoMTLS is off. go-plugin speaks over a Unix socket in a private
// temporary folder of the user; certificates would add ≈ 20 ms (P-521 key generation) to
// every cold start and protect against nothing a same-user process could
// not already do to the plugin's memory.
//
// Chosen where the spec is silent: a call's default timeout is 10 minutes (Gemini CLI's MCP
// default); after a crash the next start waits 250 ms, doubling per consecutive crash up to
// 8 s, and a successful call resets the count.
package plugins

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/limits"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// Config says how to start a plugin.
type Config struct {
	Name      string // the plugin's id in its manifest
	Extension string
	Path      string   // resolved, checked binary
	Env       []string // the whole environment of the plugin
	Logger    hclog.Logger
	Policy    *sandbox.Policy // the plugin's sandbox; nil runs it unrestricted
	// SocketBase is where the plugin's socket folder is made ($GEM_HOME/run: a folder no
	// extension may list); "" uses $TMPDIR/gem-<uid>.
	SocketBase string
	// Launcher is the session's (host/launch), which starts the plugin; nil starts it as
	// prepared, with no session (tests).
	Launcher *launch.Launcher
}

// Client is one running plugin process.
type Client struct {
	Name    string
	sockDir string
	runner  *cmdRunner // the process, once go-plugin started it
	gp      *plugin.Client
	conn    *pluginhost.Conn
	stderr  *sandbox.StderrTail
	Tools   []pluginhost.ToolSpec
}

// Start launches the plugin binary with exactly spec.Env, performs the handshake and lists
// its tools.
func Start(ctx context.Context, spec Config) (*Client, error) {
	logger := spec.Logger
	if logger == nil {
		logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	// The plugin's socket (and the host's broker sockets) live in a folder of its own with
	// an unguessable name: reachable by gem and this plugin only (another program can neither
	// list the base folder nor see it in its own view).
	sockDir, err := socketDir(spec.SocketBase)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: its socket folder: %w", spec.Name, err)
	}
	pol := spec.Policy
	if pol != nil {
		cp := *pol
		cp.Write = append(slices.Clone(cp.Write), sockDir)
		pol = &cp
	}
	sspec := sandbox.Program{Path: spec.Path, Env: spec.Env, Name: spec.Name, Extension: spec.Extension, Policy: pol}
	cmd, err := spec.Launcher.Command(sspec)
	if err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("plugin %s: %w", spec.Name, err)
	}
	tail := &sandbox.StderrTail{}
	c := &Client{Name: spec.Name, stderr: tail, sockDir: sockDir}
	gp := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pb.Handshake,
		Plugins:          pluginhost.Plugins(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		Logger:           logger.Named("ext." + spec.Name),
		Stderr:           tail,
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: sockDir},
		// go-plugin describes the command in meta (its environment: the magic cookie, the
		// protocol versions, PLUGIN_UNIX_SOCKET_DIR); gem runs its own sandboxed one.
		RunnerFunc: func(_ hclog.Logger, meta *exec.Cmd, _ string) (runner.Runner, error) {
			c.runner.spec.Env = append(slices.Clone(c.runner.spec.Env), meta.Env...) // the plugin's, not the helper's
			return c.runner, nil
		},
		// go-plugin lets a message be 2 GiB; a plugin must not grow gem that far.
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(limits.Message))},
	})
	c.gp = gp
	if c.runner, err = newCmdRunner(spec.Launcher, cmd, sspec); err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("plugin %s: %w", spec.Name, err)
	}
	fail := func(err error) (*Client, error) {
		c.Close()
		err = fmt.Errorf("plugin %s (%s) did not start: %w%s", spec.Name, spec.Path, err, tail.Describe())
		return nil, sandbox.Explained(err, spec.Extension, tail.Lines(20), pol)
	}
	rpc, err := gp.Client()
	if err != nil {
		return fail(err)
	}
	raw, err := rpc.Dispense(pb.ServiceName)
	if err != nil {
		return fail(err)
	}
	c.conn = raw.(*pluginhost.Conn)
	if c.Tools, err = c.conn.ListTools(ctx); err != nil {
		return fail(fmt.Errorf("listing tools: %w", err))
	}
	return c, nil
}

// Call runs a tool. A transport failure is an error (a *CrashError when the plugin died); a
// tool's own failure is in the result's Error.
func (c *Client) Call(ctx context.Context, tool, argsJSON string, opts pluginhost.CallOptions) (*pluginhost.Result, error) {
	res, err := c.conn.Call(ctx, tool, argsJSON, opts)
	if err != nil {
		return nil, c.failure(tool, err)
	}
	return res, nil
}

// SetHost sets the host services for the plugin's requests outside a call's own.
func (c *Client) SetHost(h pluginhost.Services) { c.conn.SetHost(h) }

// CrashError is a plugin process that ended while gem needed it.
type CrashError struct {
	Plugin string
	Tool   string // the tool being called, if any
	Stderr string // the last lines the plugin wrote to stderr, described
	Err    error
}

func (e *CrashError) Error() string {
	during := ""
	if e.Tool != "" {
		during = " during tool " + e.Tool
	}
	return fmt.Sprintf("plugin %s exited unexpectedly%s (%v); it is restarted on the next call%s", e.Plugin, during, e.Err, e.Stderr)
}

func (e *CrashError) Unwrap() error { return e.Err }

func (c *Client) failure(tool string, err error) error {
	if status.Code(err) == codes.Unavailable {
		// The connection broke: give go-plugin a moment to notice the process ended.
		for deadline := time.Now().Add(time.Second); !c.Exited() && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if c.Exited() {
		c.awaitStderr()
		return &CrashError{Plugin: c.Name, Tool: tool, Stderr: c.stderr.Describe(), Err: err}
	}
	return fmt.Errorf("plugin %s: tool %s: %w", c.Name, tool, err)
}

// awaitStderr waits (a second at most) until what the ended plugin wrote to stderr is in
// the tail, so a crash report carries its panic.
func (c *Client) awaitStderr() {
	if c.runner == nil {
		return
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.runner.stderrRead():
	case <-t.C:
	}
}

// Exited reports whether the plugin process has ended.
func (c *Client) Exited() bool { return c.gp.Exited() }

// Pid is the plugin's process id (0 before it started).
func (c *Client) Pid() int {
	if c.runner != nil && c.runner.proc != nil {
		return c.runner.proc.Pid()
	}
	return 0
}

// Close stops the plugin (go-plugin's graceful shutdown: the plugin's OnShutdown runs; the
// process group is killed after 2 s) and kills whatever is left in its process group and
// pids cgroup (sandbox.Process.Kill).
func (c *Client) Close() {
	c.gp.Kill()
	c.killProcess()
	os.RemoveAll(c.sockDir)
}

func (c *Client) killProcess() {
	if c.runner != nil && c.runner.proc != nil {
		c.runner.proc.Kill()
	}
}

// socketDir makes a fresh folder with a random 96-bit name under base (checked as gem's
// own). A unix socket's path is at most 107 bytes and go-plugin adds about 40: when base is
// too deep, $TMPDIR/gem-<uid> is used instead.
func socketDir(base string) (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	name := hex.EncodeToString(b)
	if base == "" || len(base)+len(name) > 64 {
		base = filepath.Join(os.TempDir(), "gem-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return "", err
	}
	if err := sandbox.OwnDir(base); err != nil {
		return "", err
	}
	dir := filepath.Join(base, name)
	return dir, sandbox.OwnDir(dir)
}

// Kill ends the plugin at once with SIGKILL (tests, and a host that must not wait).
func (c *Client) Kill() {
	c.killProcess()
	c.gp.Kill()
}

// ErrNotRunning is returned by a stopped Plugin.
var ErrNotRunning = errors.New("plugin is stopped")
