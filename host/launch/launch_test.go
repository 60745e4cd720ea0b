//go:build unix

package launch

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/sandbox"
)

// TestLaunchers: each purpose's launcher runs a real program to its exit code, and a
// program that ignores SIGTERM, its context ended, is killed no sooner than the purpose's
// grace (and well within a few seconds).
func TestLaunchers(t *testing.T) {
	tests := []struct {
		l     Launcher
		name  string
		grace time.Duration
	}{
		{Extension, "extension", 500 * time.Millisecond},
		{User, "user", 500 * time.Millisecond},
		{Tool, "tool", 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.Purpose(); got != tt.name {
				t.Errorf("Purpose() = %q, want %q", got, tt.name)
			}
			out := &bytes.Buffer{}
			code, err := tt.l.Run(context.Background(), sh("echo hi; exit 3"), sandbox.Streams{Stdout: out})
			if err != nil || code != 3 || strings.TrimSpace(out.String()) != "hi" {
				t.Fatalf("Run = %d, %v, output %q; want 3, nil, \"hi\"", code, err, out.String())
			}
			ctx, cancel := context.WithCancel(context.Background())
			ready := &signalWriter{ch: make(chan struct{}, 1)}
			cancelled := make(chan time.Time, 1)
			go func() { <-ready.ch; cancelled <- time.Now(); cancel() }()
			_, err = tt.l.Run(ctx, sh("trap '' TERM; echo up; while :; do sleep 0.05; done"), sandbox.Streams{Stdout: ready})
			took := time.Since(<-cancelled)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run after cancel: %v, want context.Canceled", err)
			}
			if took < tt.grace || took > tt.grace+5*time.Second {
				t.Errorf("a program ignoring SIGTERM ended %v after its context; want the grace %v (and not much more)", took, tt.grace)
			}
		})
	}
}

// TestStartAndWait: Start supervises a program until it exits.
func TestStartAndWait(t *testing.T) {
	p, err := Extension.Start(sh("exit 5"), sandbox.Streams{})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	if got := p.ExitCode(); got != 5 {
		t.Errorf("ExitCode() = %d, want 5", got)
	}
}

func sh(script string) sandbox.Program {
	return sandbox.Program{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Name: "test"}
}

// signalWriter says once that the program wrote something (it is up).
type signalWriter struct{ ch chan struct{} }

func (w *signalWriter) Write(p []byte) (int, error) {
	select {
	case w.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}
