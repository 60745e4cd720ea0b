// Package mcp owns the MCP servers that extensions declare in `mcpServers`, on the host side:
// connecting to them with the official Go SDK over stdio (`command`, `args`, `env`, `cwd`),
// streamable HTTP (`httpUrl`, or `url` with `type: "http"`) or SSE (`url`), with `headers`;
// listing their tools (all pages, `includeTools`/`excludeTools` applied), refreshing the list
// on list-changed notifications, calling tools with progress and cancellation, and reporting a
// server that fails to start, hangs or dies with its last stderr lines.
//
// Chosen where the spec is silent (Gemini CLI's behaviour where it has one):
//   - Transport precedence: `httpUrl`, then `url` (`type: "http"` means streamable HTTP,
//     anything else SSE), then `command`. `tcp` is refused with a message: neither the SDK nor
//     Gemini CLI's current releases speak it.
//   - `timeout` (milliseconds, default 600 000) bounds every request; the start (launch,
//     initialize, first tool list) has its own shorter limit, DefaultStartTimeout (30 s,
//     GEM_MCP_START_TIMEOUT), so a server that never answers does not hold up the others,
//     a first start included; a start goes on past its limit, up to 10 minutes as Gemini
//     CLI waits for a first start, only while its launcher shows it is downloading (npx's
//     or uvx's cache growing, uv's progress lines: watchStart), so a launcher is never
//     killed mid-install while a server that hangs, or floods stderr without answering,
//     still ends at the limit. A long start is said on a terminal.
//   - A stdio server runs with the launcher's environment (host/sandbox allowlist, the
//     extension's settings, then the server's `env`), in `cwd` or else gem's working folder,
//     in its own process group, killed with gem. Closing it closes its stdin, SIGTERMs its
//     group after 1 s and kills group and cgroup after another (sandbox.Process.Stop).
//   - A server that died is restarted by the next request, after a backoff of 500 ms doubling
//     per consecutive failure up to 8 s; a successful call resets it.
//   - An empty `includeTools` means "not set" (the manifest cannot tell [] from absent).
//   - A remote server that uses OAuth gets the token of its sign-in (host/mcpauth, `gem mcp
//     auth`): unless its manifest sends its own Authorization header (a token from a
//     setting) or sets `oauth.enabled: false`. A remote server's requests stay on its origin:
//     a redirect elsewhere is refused (it would take the headers and the token along).
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/mcpauth"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/manifest"
)

// Transport is how gem reaches a server.
type Transport string

const (
	Stdio Transport = "stdio"
	HTTP  Transport = "http"
	SSE   Transport = "sse"
)

// TransportOf says how a manifest entry is reached, or why it cannot be.
func TransportOf(s manifest.MCPServer) (Transport, error) {
	switch {
	case s.HTTPURL != "":
		return HTTP, nil
	case s.URL != "" && s.Type == "http":
		return HTTP, nil
	case s.URL != "":
		return SSE, nil
	case s.Command != "":
		return Stdio, nil
	case s.TCP != "":
		return "", errors.New(`the "tcp" transport is not supported: declare "command" (stdio), "httpUrl" or "url" instead`)
	}
	return "", errors.New(`it declares no way to reach it: set "command" (stdio), "httpUrl" (streamable HTTP) or "url" (SSE)`)
}

// State is where a server is in its life.
type State string

const (
	Stopped  State = "stopped" // not started yet (servers start on first use)
	Starting State = "starting"
	Ready    State = "ready"
	Failed   State = "failed"
)

// Config is one server to run.
type Config struct {
	Name      string             // as declared in mcpServers
	Extension string             // the extension that declares it
	Source    string             // the file that declares it (a manifest, settings.json), for messages
	Server    manifest.MCPServer // with variables resolved
	// Args, when set, are what a stdio server is started with instead of Server.Args: those
	// with what gem adds to keep the project's code out (toolchain.KeepProjectOut). Messages
	// and lists show Server's command line, as the manifest has it.
	Args   []string
	Env    []string        // a stdio server's whole environment
	Dir    string          // a stdio server's working folder when Server.Cwd is empty
	Policy *sandbox.Policy // a stdio server's sandbox; nil runs it unrestricted
	// Launcher is the session's (host/launch), which starts a stdio server; nil starts it
	// as prepared, with no session (tests).
	Launcher *launch.Launcher
	// LocalAllowed: a remote (HTTP or SSE) server may be on a loopback or private address.
	// Without it (an extension without the network capability) gem, which connects on the
	// extension's behalf, reaches public addresses only: checked when resolved and when
	// dialed, so an extension cannot make gem call a local service with its headers.
	LocalAllowed bool
	// Auth keeps the OAuth sign-ins of remote servers (nil: gem signs in to none).
	Auth   *mcpauth.Store
	Logger hclog.Logger
	// StartTimeout bounds the start (DefaultStartTimeout when 0).
	StartTimeout time.Duration
	// Progress are the starts of the stderr lines in which the server's launcher says it is
	// downloading (toolchain.Profile.Progress: uv's "Downloading "), and Caches the folders
	// it downloads into (its cache, or the overlay its writes to the cache land in): while
	// either moves, a start past its limit is a download, not a hang (watchStart).
	Progress []string
	Caches   []string
	// Waiting hears, every few seconds, of a start that takes long (a terminal; nil: none).
	Waiting func(message string)
	// OnToolsChanged runs (in its own goroutine) after the tool list changed, and after each
	// start (the first list).
	OnToolsChanged func(*Client)
}

// Client is one MCP server of a session.
type Client struct {
	Config
	Transport Transport

	startMu sync.Mutex // serialises starts
	mu      sync.Mutex
	state   State
	err     error
	session *sdk.ClientSession
	proc    *sandbox.Process
	// cancelSession ends the context the session was made with.
	cancelSession context.CancelFunc
	tools         []*sdk.Tool
	closed        bool

	backoff sandbox.Backoff // restarts after failures: 500 ms doubling to 8 s

	progressMu sync.Mutex
	progress   map[string]func(message string, fraction float64)
	nextToken  atomic.Uint64
}

// New prepares a server; nothing starts until Start or Call.
func New(c Config) (*Client, error) {
	t, err := TransportOf(c.Server)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s of %s: %w", c.Name, c.Extension, err)
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return &Client{Config: c, Transport: t, state: Stopped, progress: map[string]func(string, float64){}, backoff: sandbox.Backoff{First: 500 * time.Millisecond}}, nil
}

// Timeout is the server's request timeout.
func (s *Client) Timeout() time.Duration {
	ms := s.Server.Timeout
	if ms <= 0 {
		ms = manifest.DefaultMCPTimeoutMillis
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// Endpoint is what the server runs or where it is: the command line or the URL.
func (s *Client) Endpoint() string {
	switch s.Transport {
	case Stdio:
		return strings.Join(append([]string{s.Server.Command}, s.Server.Args...), " ")
	case HTTP:
		if s.Server.HTTPURL != "" {
			return s.Server.HTTPURL
		}
	}
	return s.Server.URL
}

// State reports the state and, when failed, why.
func (s *Client) State() (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.err
}

// Tools is the server's tool list after includeTools/excludeTools (nil before it started).
func (s *Client) Tools() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// Pid is a stdio server's process id, 0 when none runs.
func (s *Client) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid()
}

// Start connects (starting a stdio server's process) and lists the tools. It returns at once
// when the server is ready, and the last failure while a restart backoff runs.
func (s *Client) Start(ctx context.Context) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return fmt.Errorf("mcp server %s of %s: the session is closing", s.Name, s.Extension)
	case s.state == Ready:
		s.mu.Unlock()
		return nil
	case s.state == Failed && s.backoff.Remaining() > 0:
		err := s.err
		s.mu.Unlock()
		return err
	}
	s.state = Starting
	s.mu.Unlock()

	err := s.connect(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failLocked(err)
		return err
	}
	if s.closed { // closed while connecting
		s.stopLocked()
		return fmt.Errorf("mcp server %s of %s: the session is closing", s.Name, s.Extension)
	}
	s.state, s.err = Ready, nil
	if s.OnToolsChanged != nil {
		go s.OnToolsChanged(s) // the first list: what a cache of it was has changed
	}
	return nil
}

// Restart ends a stdio server's process and starts it again with another sandbox policy and
// environment: what the user granted once its tool list was known. Nothing may be calling
// it (its first start, before any call).
func (s *Client) Restart(ctx context.Context, policy *sandbox.Policy, env []string) error {
	s.startMu.Lock()
	s.mu.Lock()
	s.stopLocked()
	s.Policy, s.Env = policy, env // read by connect, under startMu
	s.mu.Unlock()
	s.startMu.Unlock()
	return s.Start(ctx)
}

func (s *Client) failLocked(err error) {
	s.state, s.err = Failed, err
	s.backoff.Failed()
}

func (s *Client) connect(ctx context.Context) error {
	// The session's context outlives this call (HTTP transports keep a stream open with it);
	// the start limit (watchStart) and the caller's cancellation bound only the connection.
	sctx, cancelSession := context.WithCancel(context.WithoutCancel(ctx))
	var timedOut atomic.Bool
	progress := &progressLines{prefixes: s.Progress}
	watchDone := make(chan struct{})
	go s.watchStart(watchDone, startSayAfter, progress, func() { timedOut.Store(true); cancelSession() }) // read here: the goroutine may outlive connect
	stopParent := context.AfterFunc(ctx, cancelSession)
	defer func() { close(watchDone); stopParent() }()

	client := sdk.NewClient(&sdk.Implementation{Name: "gem", Version: buildinfo.Version}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go s.refresh()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			s.onProgress(req.Params)
		},
	})
	var transport sdk.Transport
	var proc *sandbox.Process
	switch s.Transport {
	case Stdio:
		p, t, err := s.startProcess(progress)
		if err != nil {
			cancelSession()
			return err
		}
		proc, transport = p, t
	case HTTP, SSE:
		if err := s.checkEndpoint(sctx); err != nil {
			cancelSession()
			return err
		}
	}
	switch s.Transport {
	case HTTP:
		endpoint := s.Server.HTTPURL
		if endpoint == "" {
			endpoint = s.Server.URL
		}
		st := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: s.httpClient(), MaxRetries: 2}
		transport = st
		if err := s.authorize(st); err != nil {
			cancelSession()
			return err
		}
	case SSE:
		st := &sdk.SSEClientTransport{Endpoint: s.Server.URL, HTTPClient: s.httpClient()}
		transport = st
		if err := s.authorize(st); err != nil {
			cancelSession()
			return err
		}
	}
	session, err := client.Connect(sctx, transport, nil)
	if err == nil {
		s.mu.Lock()
		s.session, s.proc, s.cancelSession = session, proc, cancelSession
		s.mu.Unlock()
		err = s.listTools(sctx)
	}
	if err != nil {
		if session != nil {
			session.Close()
		}
		if proc != nil {
			proc.Stop(stopGrace)
		}
		cancelSession()
		s.mu.Lock()
		s.session, s.proc, s.cancelSession = nil, nil, nil
		s.mu.Unlock()
		return s.describe("did not start", timedOut.Load() && ctx.Err() == nil, err, proc)
	}
	if proc != nil {
		go s.watch(session, proc)
	}
	return nil
}

// describe wraps a failure with what explains it: the timeout, the exit, the stderr tail.
func (s *Client) describe(what string, timedOut bool, err error, proc *sandbox.Process) error {
	prefix := fmt.Sprintf("mcp server %s of %s %s", s.Name, s.Extension, what)
	if needs := (*mcpauth.NeedsSignInError)(nil); errors.As(err, &needs) && !timedOut {
		return needs
	}
	if timedOut && what == "did not start" && s.StartTimeout() < s.Timeout() {
		err = fmt.Errorf("no answer within %s while starting (gem's start limit; GEM_MCP_START_TIMEOUT changes it)", s.StartTimeout())
	} else if timedOut {
		err = fmt.Errorf("no answer within %s (its \"timeout\" in gemini-extension.json, in milliseconds)", s.Timeout())
	}
	if proc != nil {
		// After a timeout gem stopped the process, and its exit says nothing. Otherwise the
		// exit replaces the transport's own error ("connection closed: … EOF").
		if exit := proc.ExitWithin(300 * time.Millisecond); exit != nil && !timedOut {
			err = fmt.Errorf("the process ended (%v)", exit)
		}
		return sandbox.Explained(fmt.Errorf("%s: %w%s", prefix, err, proc.Tail.Describe()), s.Extension, proc.Tail.Lines(20), s.Policy)
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// watch marks the server failed when its process ends while gem still needs it.
func (s *Client) watch(session *sdk.ClientSession, proc *sandbox.Process) {
	<-proc.Done()
	s.ended(session, proc)
}

// ended records that the process of session ended: the server is failed until a restart.
// Both the watcher and a call that saw the process die call it; the first one counts.
func (s *Client) ended(session *sdk.ClientSession, proc *sandbox.Process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != session || s.closed {
		return
	}
	cancel := s.cancelSession
	s.session, s.proc, s.cancelSession = nil, nil, nil
	session.Close()
	if cancel != nil {
		cancel()
	}
	s.failLocked(fmt.Errorf("mcp server %s of %s exited: %v%s", s.Name, s.Extension, proc.ExitWithin(0), proc.Tail.Describe()))
	s.Logger.Warn("mcp server exited", "server", s.Name, "extension", s.Extension, "error", proc.ExitWithin(0))
}

func (s *Client) listTools(ctx context.Context) error {
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	if session == nil {
		return errors.New("not connected")
	}
	var all []*sdk.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		if s.enabled(t.Name) {
			all = append(all, t)
		}
	}
	s.mu.Lock()
	s.tools = all
	s.mu.Unlock()
	return nil
}

// enabled applies includeTools and excludeTools as Gemini CLI does: excluded names are out;
// with includeTools set, only names listed (alone or as "name(…)") are in.
func (s *Client) enabled(tool string) bool {
	if slices.Contains(s.Server.ExcludeTools, tool) {
		return false
	}
	if len(s.Server.IncludeTools) == 0 {
		return true
	}
	for _, inc := range s.Server.IncludeTools {
		if inc == tool || strings.HasPrefix(inc, tool+"(") {
			return true
		}
	}
	return false
}

func (s *Client) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout())
	defer cancel()
	if err := s.listTools(ctx); err != nil {
		s.Logger.Warn("refreshing mcp tools", "server", s.Name, "error", err)
		return
	}
	s.Logger.Debug("mcp tool list changed", "server", s.Name, "tools", len(s.Tools()))
	if s.OnToolsChanged != nil {
		s.OnToolsChanged(s)
	}
}

// progressGrace is how long a call's progress still reaches its callback after the result.
const progressGrace = time.Second

// CallOptions carry what a call reports while it runs.
type CallOptions struct {
	// OnProgress receives the server's progress notifications (fraction < 0: unknown).
	// It may run briefly after Call returned (notifications can trail the result).
	OnProgress func(message string, fraction float64)
}

// Call runs a tool with JSON arguments, starting the server if needed. An error means the
// call did not complete (the server failed, timed out, or refused the request); the tool's
// own failure is a result with IsError.
func (s *Client) Call(ctx context.Context, tool string, args json.RawMessage, opts CallOptions) (*sdk.CallToolResult, error) {
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	session, proc := s.session, s.proc
	s.mu.Unlock()
	if session == nil {
		_, err := s.State()
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.Timeout())
	defer cancel()
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	if opts.OnProgress != nil {
		token := s.nextToken.Add(1)
		key := "gem-" + fmt.Sprint(token)
		params.SetProgressToken(key)
		s.progressMu.Lock()
		s.progress[key] = opts.OnProgress
		s.progressMu.Unlock()
		// Notifications are dispatched apart from responses and may trail the result.
		defer time.AfterFunc(progressGrace, func() {
			s.progressMu.Lock()
			delete(s.progress, key)
			s.progressMu.Unlock()
		})
	}
	res, err := session.CallTool(cctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded)
		err = s.describe(fmt.Sprintf("failed calling %s", tool), timedOut, err, proc)
		if proc != nil && proc.Exited() {
			s.ended(session, proc) // the caller sees the failed state at once
		}
		return nil, err
	}
	s.mu.Lock()
	s.backoff.Succeeded()
	s.mu.Unlock()
	return res, nil
}

func (s *Client) onProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	s.progressMu.Lock()
	fn := s.progress[fmt.Sprint(p.ProgressToken)]
	s.progressMu.Unlock()
	if fn == nil {
		return
	}
	fraction := -1.0
	if p.Total > 0 {
		fraction = p.Progress / p.Total
	}
	fn(p.Message, fraction)
}

// Close ends the session and stops a stdio server's process group.
func (s *Client) Close() {
	s.mu.Lock()
	s.closed = true
	s.stopLocked()
	s.mu.Unlock()
}

func (s *Client) stopLocked() {
	session, proc, cancel := s.session, s.proc, s.cancelSession
	s.session, s.proc, s.cancelSession = nil, nil, nil
	if session != nil {
		session.Close()
	}
	if cancel != nil {
		cancel()
	}
	if proc != nil {
		proc.Stop(stopGrace)
	}
	if s.state == Ready || s.state == Starting {
		s.state = Stopped
	}
}

// started starts the server if need be and returns its session.
func (s *Client) started(ctx context.Context) (*sdk.ClientSession, error) {
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	if session == nil {
		_, err := s.State()
		return nil, err
	}
	return session, nil
}
