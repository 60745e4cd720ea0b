package plugins

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemhost/gem/pluginsdk/pluginhost"
	"github.com/gemhost/gem/pluginsdk/plugintest"
)

// TestSessionLazyCrashRestart: a Plugin starts on its first call, keeps its state while warm,
// reports a crash with the panic from its stderr, and restarts on the next call after the
// backoff, with fresh state.
func TestSessionLazyCrashRestart(t *testing.T) {
	ctx := context.Background()
	p := &Plugin{Config: Config{Name: "echo", Path: echoBin}}
	defer p.Close()
	if p.Running() {
		t.Fatal("a Plugin must not start before its first call")
	}
	count := func() string {
		t.Helper()
		res, err := p.Call(ctx, "count", `{}`, pluginhost.CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	if a, b := count(), count(); a != "1" || b != "2" {
		t.Fatalf("warm state: %s %s", a, b)
	}
	_, err := p.Call(ctx, "crash", `{}`, pluginhost.CallOptions{})
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("want a CrashError, got %v", err)
	}
	for _, want := range []string{"plugin echo exited unexpectedly during tool crash", "restarted on the next call", "| panic: crashing on purpose"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("crash error lacks %q:\n%v", want, err)
		}
	}
	if p.Running() {
		t.Fatal("still running after a crash")
	}
	t0 := time.Now()
	if got := count(); got != "1" {
		t.Fatalf("after restart the count is %s, want 1 (a fresh process)", got)
	}
	if waited := time.Since(t0); waited < backoffFirst/2 {
		t.Errorf("restarted after %v, before the backoff of %v", waited, backoffFirst)
	}
	if p.Starts() != 2 {
		t.Errorf("starts = %d, want 2", p.Starts())
	}
}

// TestSessionKilledBetweenCalls: a plugin killed while idle is noticed at the next call,
// which restarts it.
func TestSessionKilledBetweenCalls(t *testing.T) {
	p := &Plugin{Config: Config{Name: "echo", Path: echoBin}}
	defer p.Close()
	c, err := p.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(c.Pid(), syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for !c.Exited() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res, err := p.Call(context.Background(), "echo", `{"text":"back"}`, pluginhost.CallOptions{})
	if err != nil || res.Text != "back" {
		t.Fatalf("after a kill: %v %v", res, err)
	}
}

// TestSessionTimeout: the call timeout cancels the tool, names the limit, and the plugin
// stays warm.
func TestSessionTimeout(t *testing.T) {
	p := &Plugin{Config: Config{Name: "echo", Path: echoBin}, CallTimeout: 100 * time.Millisecond}
	defer p.Close()
	_, err := p.Call(context.Background(), "slow", `{"steps":1000}`, pluginhost.CallOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 100ms") {
		t.Fatalf("want a timeout, got %v", err)
	}
	res, err := p.Call(context.Background(), "echo", `{"text":"warm"}`, pluginhost.CallOptions{})
	if err != nil || res.Text != "warm" || p.Starts() != 1 {
		t.Fatalf("after a timeout: %v %v starts=%d", res, err, p.Starts())
	}
}

// TestHostServices: a tool's Confirm, Progress and Log reach the host services of its call
// over go-plugin's broker; a call without them is refused confirmation.
func TestHostServices(t *testing.T) {
	p := &Plugin{Config: Config{Name: "echo", Path: echoBin}}
	defer p.Close()
	tests := []struct {
		host *plugintest.Host
		want string
	}{
		{&plugintest.Host{Approve: true}, "approved=true"},
		{&plugintest.Host{Approve: false}, "approved=false"},
		{nil, "approved=false"},
	}
	for _, tt := range tests {
		opts := pluginhost.CallOptions{}
		if tt.host != nil {
			opts.Host = tt.host
		}
		res, err := p.Call(context.Background(), "ask", `{"what":"the thing"}`, opts)
		if err != nil || res.Text != tt.want {
			t.Fatalf("ask: %v %v, want %s", res, err, tt.want)
		}
		if h := tt.host; h != nil {
			if strings.Join(h.Asked, ",") != "Do the thing?: it is only a test" || strings.Join(h.Reported, ",") != "asking" || strings.Join(h.Logs, ",") != "info: asking about the thing" {
				t.Errorf("host saw asked=%q progress=%q logs=%q", h.Asked, h.Reported, h.Logs)
			}
		}
	}
}
