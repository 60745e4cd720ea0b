package pluginsdk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"

	pb "github.com/gemhost/gem/pluginsdk/proto"
)

// ErrNoHost is returned by Confirm when the plugin runs without host services (a host that
// offers none, or a test without a Host).
var ErrNoHost = errors.New("pluginsdk: the host offers no services")

// hostLink is the plugin side of the host services: one connection per broker id, dialed
// as soon as the host announces it.
type hostLink struct {
	mu     sync.Mutex
	broker *plugin.GRPCBroker
	id     uint32
	ready  chan struct{}
	client pb.HostServiceClient
	err    error
}

// announce dials the host services of broker id in the background (go-plugin forgets
// connection info that is not dialed within 5 s).
func (l *hostLink) announce(broker *plugin.GRPCBroker, id uint32) {
	if broker == nil || id == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id == id {
		return
	}
	l.broker, l.id, l.ready = broker, id, make(chan struct{})
	ready := l.ready
	go func() {
		conn, err := broker.Dial(id)
		l.mu.Lock()
		if err != nil {
			l.err = fmt.Errorf("dialing host services: %w", err)
		} else {
			l.client = pb.NewHostServiceClient(conn)
		}
		l.mu.Unlock()
		close(ready)
	}()
}

func (l *hostLink) get(ctx context.Context) (pb.HostServiceClient, error) {
	l.mu.Lock()
	ready := l.ready
	l.mu.Unlock()
	if ready == nil {
		return nil, ErrNoHost
	}
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		return nil, errors.New("pluginsdk: host services did not connect")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.client, l.err
}

type callKey struct{}

// Host is where a tool's Confirm, Progress, Log and Logger go. Serve gives each call the
// host that runs the plugin (over go-plugin's broker); a host that runs the same tools
// another way (gem's Go SDK in its own process, an MCP server) gives its own with WithHost,
// so a tool is written once.
type Host interface {
	Confirm(ctx context.Context, title, details string) (bool, error)
	Progress(ctx context.Context, message string, fraction float64)
	Log(ctx context.Context, level, message string)
}

// WithHost returns ctx whose Confirm, Progress, Log and Logger go to h.
func WithHost(ctx context.Context, h Host) context.Context {
	return context.WithValue(ctx, callKey{}, h)
}

// WithOutput returns ctx whose Output calls send (a streaming tool's updates).
func WithOutput(ctx context.Context, send func(text string)) context.Context {
	return context.WithValue(ctx, outputKey{}, send)
}

// callInfo is the host of a call Serve runs: the plugin's link to the host's services.
type callInfo struct {
	id   uint64
	link *hostLink
}

func (ci callInfo) Confirm(ctx context.Context, title, details string) (bool, error) {
	hc, err := ci.link.get(ctx)
	if err != nil {
		return false, err
	}
	resp, err := hc.Confirm(ctx, &pb.ConfirmRequest{Title: title, Details: details, CallId: ci.id})
	if err != nil {
		return false, err
	}
	return resp.Approved, nil
}

func (ci callInfo) Progress(ctx context.Context, message string, fraction float64) {
	if hc, err := ci.link.get(ctx); err == nil {
		hc.Progress(ctx, &pb.ProgressRequest{Message: message, Fraction: fraction, CallId: ci.id})
	}
}

func (ci callInfo) Log(ctx context.Context, level, message string) {
	if hc, err := ci.link.get(ctx); err == nil {
		if _, err := hc.Log(ctx, &pb.LogRequest{Level: level, Message: message, CallId: ci.id}); err == nil {
			return
		}
	}
	fmt.Fprintf(os.Stderr, "[%s] %s\n", level, message)
}

// Confirm asks the host to have the user (or its policy) confirm an action: title is one line
// ("Delete 3 files?"), details what exactly happens. It returns false when the user declines
// and ErrNoHost when there is nobody to ask; a tool should then not act.
func Confirm(ctx context.Context, title, details string) (bool, error) {
	h, ok := ctx.Value(callKey{}).(Host)
	if !ok {
		return false, ErrNoHost
	}
	return h.Confirm(ctx, title, details)
}

// Progress reports progress of a long tool call to the host: fraction in 0..1, or negative
// when unknown. Best effort: without a host it does nothing.
func Progress(ctx context.Context, message string, fraction float64) {
	if h, ok := ctx.Value(callKey{}).(Host); ok {
		h.Progress(ctx, message, fraction)
	}
}

// Log sends a log line (level trace, debug, info, warn or error) to the host's log file,
// tagged with the call; without a host it goes to stderr, never to stdout.
func Log(ctx context.Context, level, message string) {
	if h, ok := ctx.Value(callKey{}).(Host); ok {
		h.Log(ctx, level, message)
		return
	}
	fmt.Fprintf(os.Stderr, "[%s] %s\n", level, message)
}
