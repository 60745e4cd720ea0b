//go:build unix

package launch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestPurposes: the launcher runs a real program of each purpose to its exit code, and a
// program that ignores SIGTERM, its context ended, is killed no sooner than the purpose's
// grace (and well within a few seconds).
func TestPurposes(t *testing.T) {
	l := &Launcher{}
	tests := []struct {
		p     Purpose
		name  string
		grace time.Duration
	}{
		{Extension, "extension", 500 * time.Millisecond},
		{User, "user", 500 * time.Millisecond},
		{Tool, "tool", 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			out := &bytes.Buffer{}
			code, err := l.Run(context.Background(), tt.p, sh("echo hi; exit 3"), sandbox.Streams{Stdout: out})
			if err != nil || code != 3 || strings.TrimSpace(out.String()) != "hi" {
				t.Fatalf("Run = %d, %v, output %q; want 3, nil, \"hi\"", code, err, out.String())
			}
			ctx, cancel := context.WithCancel(context.Background())
			ready := &signalWriter{ch: make(chan struct{}, 1)}
			cancelled := make(chan time.Time, 1)
			go func() { <-ready.ch; cancelled <- time.Now(); cancel() }()
			_, err = l.Run(ctx, tt.p, sh("trap '' TERM; echo up; while :; do sleep 0.05; done"), sandbox.Streams{Stdout: ready})
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
	p, err := (&Launcher{}).Start(sh("exit 5"), sandbox.Streams{})
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

// TestSessionWorkspace: a session's Launcher works the workspace out once, when it is made
// (the git top level of the current folder, its real path), and every program it prepares
// gets that one — an extension's (whatever root its caller names), the user's own (not the
// current folder below it) — even when the variables it was worked out from change later.
func TestSessionWorkspace(t *testing.T) {
	vars := map[string]string{}
	env := registrytest.Env(t, func(k string) string { return vars[k] })
	top := env.Cwd
	sub := filepath.Join(top, "sub")
	for _, d := range []string{filepath.Join(top, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env.Cwd = sub
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	if x == nil {
		t.Fatal("tool not discovered")
	}
	if err := registry.RecordConsent(env, x, registry.Grant{}); err != nil {
		t.Fatal(err)
	}
	l := New(Options{Env: env, Environ: []string{"PATH=/usr/bin:/bin"}})
	want := pathx.Real(top)
	vars["GEM_WORKSPACE"] = t.TempDir() // changed after the session began: not its workspace
	if got := l.Workspace(); got != want {
		t.Fatalf("Workspace() = %q, want the git top level %q", got, want)
	}
	childEnv, pol, err := l.Program(x, commands.ProgramSpec{Root: "/somewhere/else"})
	if err != nil {
		t.Fatal(err)
	}
	if pol.Workspace != want || !slices.Contains(childEnv, "GEM_WORKSPACE="+want) {
		t.Errorf("an extension's program: workspace %q, GEM_WORKSPACE in %v; want %q", pol.Workspace, childEnv, want)
	}
	_, pol, err = l.UserProgram("_test", "true")
	if err != nil {
		t.Fatal(err)
	}
	if pol.Workspace != want || !slices.Contains(pol.Write, want) {
		t.Errorf("the user's program: workspace %q, writes %v; want %q", pol.Workspace, pol.Write, want)
	}
}
