package plugins

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
)

// DefaultCallTimeout bounds a tool call when the caller sets none.
const DefaultCallTimeout = 10 * time.Minute

// backoffFirst is the wait after a first crash, doubled per consecutive crash up to 8 s.
const backoffFirst = 250 * time.Millisecond

// Plugin is a plugin of a host session: started on first use, kept warm, restarted after a
// crash (with backoff), closed with the session. Safe for concurrent use.
type Plugin struct {
	Config
	CallTimeout time.Duration       // 0: DefaultCallTimeout
	Host        pluginhost.Services // for requests outside a call's own CallOptions.Host
	OnStart     func(*Client)       // called after each (re)start, e.g. to refresh a tool cache

	mu      sync.Mutex
	client  *Client
	backoff sandbox.Backoff
	lastErr error
	closed  bool
	starts  int
}

// Client returns the running plugin, starting it (again) when needed.
func (p *Plugin) Client(ctx context.Context) (*Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("plugin %s: %w", p.Name, ErrNotRunning)
	}
	if p.client != nil && p.client.Exited() {
		p.client.awaitStderr()
		p.crashedLocked(&CrashError{Plugin: p.Name, Stderr: p.client.stderr.Describe(), Err: errors.New("the process ended between calls")})
	}
	if p.client != nil {
		return p.client, nil
	}
	if wait := p.backoff.Remaining(); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("plugin %s: waiting %v to restart after a crash: %w (last: %v)", p.Name, wait.Round(time.Millisecond), ctx.Err(), p.lastErr)
		}
	}
	c, err := Start(ctx, p.Config)
	if err != nil {
		p.backoff.Failed()
		p.lastErr = err
		return nil, err
	}
	p.starts++
	if p.Host != nil {
		c.SetHost(p.Host)
	}
	p.client = c
	if p.OnStart != nil {
		p.OnStart(c)
	}
	return c, nil
}

func (p *Plugin) crashedLocked(err error) {
	if p.client != nil {
		p.client.Close()
		p.client = nil
	}
	p.backoff.Failed()
	p.lastErr = err
	if p.Logger != nil {
		p.Logger.Warn("plugin crashed", "plugin", p.Name, "extension", p.Extension, "error", err)
	}
}

// Call runs a tool of the plugin, starting the plugin if needed, within the call timeout.
func (p *Plugin) Call(ctx context.Context, tool, argsJSON string, opts pluginhost.CallOptions) (*pluginhost.Result, error) {
	c, err := p.Client(ctx)
	if err != nil {
		return nil, err
	}
	timeout := p.CallTimeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.Call(cctx, tool, argsJSON, opts)
	switch {
	case err == nil:
		p.mu.Lock()
		p.backoff.Succeeded()
		p.mu.Unlock()
		return res, nil
	case errors.As(err, new(*CrashError)):
		p.mu.Lock()
		if p.client == c {
			p.crashedLocked(err)
		}
		p.mu.Unlock()
		return nil, err
	case ctx.Err() == nil && (cctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || status.Code(errors.Unwrap(err)) == codes.DeadlineExceeded):
		return nil, &TimeoutError{Tool: tool, Plugin: p.Name, Limit: timeout}
	}
	return nil, err
}

// Running reports whether the plugin process is up.
func (p *Plugin) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client != nil && !p.client.Exited()
}

// Starts counts the plugin's successful starts in this session.
func (p *Plugin) Starts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

// Close stops the plugin; later calls fail with ErrNotRunning.
func (p *Plugin) Close() {
	p.mu.Lock()
	c := p.client
	p.client, p.closed = nil, true
	p.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// TimeoutError: a tool call ran past its time limit and was cancelled (errors.Is
// context.DeadlineExceeded).
type TimeoutError struct {
	Tool, Plugin string
	Limit        time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("tool %s of plugin %s timed out after %v and was cancelled", e.Tool, e.Plugin, e.Limit)
}

func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }
