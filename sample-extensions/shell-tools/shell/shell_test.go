package shell

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newTestManager(t *testing.T) *Manager {
	t.Helper()
	m, err := NewManager(t.TempDir(), []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Shutdown)
	return m
}

// TestWait: each way a call returns, on real commands.
func TestWait(t *testing.T) {
	tests := []struct {
		name, command string
		pattern       string
		timeout       time.Duration
		status        string
		code          int
		output        string
		matched       bool
		timedOut      bool
	}{
		{"exit code", "printf 'a\\r\\nb\\n'; exit 7", "", 5 * time.Second, "exited", 7, "a\nb\n", false, false},
		{"pattern", "echo ready; sleep 30", "^ready$", 5 * time.Second, "running", 0, "ready\n", false, false},
		{"pattern times out", "echo nope; sleep 30", "ready", 200 * time.Millisecond, "running", 0, "nope\n", false, true},
		{"delay", "echo partial; sleep 30", "", 200 * time.Millisecond, "running", 0, "partial\n", false, false},
		{"killed by a signal", "kill -TERM $$", "", 5 * time.Second, "killed", 0, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestManager(t)
			j, err := m.Start(tt.command, t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			var re *regexp.Regexp
			if tt.pattern != "" {
				re = regexp.MustCompile("(?m)" + tt.pattern)
			}
			s := j.Wait(0, re, tt.timeout, nil)
			if s.Status != tt.status || s.Output != tt.output || s.TimedOut != tt.timedOut {
				t.Fatalf("got status %s output %q timedOut %v", s.Status, s.Output, s.TimedOut)
			}
			if tt.status == "exited" && (s.ExitCode == nil || *s.ExitCode != tt.code) {
				t.Fatalf("exit code %v, want %d", s.ExitCode, tt.code)
			}
			if re != nil && !tt.timedOut && !s.Matched {
				t.Fatal("pattern_matched not set")
			}
		})
	}
}

// TestSendInputSinceOffset: send_input sees only what the input produced.
func TestSendInputSinceOffset(t *testing.T) {
	m := newTestManager(t)
	j, err := m.Start("while read l; do echo \"got $l\"; done", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	j.Wait(0, nil, 100*time.Millisecond, nil)
	for _, in := range []string{"one", "two"} {
		off := j.Offset()
		if err := j.Send(in + "\n"); err != nil {
			t.Fatal(err)
		}
		s := j.Wait(off, regexp.MustCompile("got "+in+"\n"), 5*time.Second, nil)
		if s.Output != in+"\ngot "+in+"\n" {
			t.Fatalf("after %s: %q", in, s.Output)
		}
	}
}

// TestMaxOutput: only the latest bytes are kept, and the drop is counted.
func TestMaxOutput(t *testing.T) {
	m := newTestManager(t)
	j, err := m.Start("seq 1000", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	s := j.Wait(0, nil, 5*time.Second, nil)
	if len(s.Output) != 100 || !strings.HasSuffix(s.Output, "999\n1000\n") || s.Dropped != int64(len(seqOutput(1000))-100) {
		t.Fatalf("output %d bytes %q, dropped %d", len(s.Output), s.Output[max(0, len(s.Output)-20):], s.Dropped)
	}
	data, err := os.ReadFile(filepath.Join(m.Dir, "1", "stdout.txt"))
	if err != nil || string(data) != s.Output {
		t.Fatalf("persisted output: %q %v", data, err)
	}
	var info Snapshot
	raw, _ := os.ReadFile(filepath.Join(m.Dir, "1", "info.json"))
	if json.Unmarshal(raw, &info) != nil || info.Handle != 1 || info.Command != "seq 1000" || info.Status != "exited" {
		t.Fatalf("info.json: %s", raw)
	}
}

func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintln(&b, i)
	}
	return b.String()
}

// TestKill: a job that ignores SIGTERM gets SIGKILL after the grace period; killing an ended
// job is not an error; the whole process group goes.
func TestKill(t *testing.T) {
	m := newTestManager(t)
	j, err := m.Start("trap '' TERM; sleep 300 & echo child $!; wait", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	s := j.Wait(0, regexp.MustCompile(`child \d+`), 5*time.Second, nil)
	var child int
	fmt.Sscanf(s.Output, "child %d", &child)
	t0 := time.Now()
	if !j.Kill(300 * time.Millisecond) {
		t.Fatal("Kill says the job was not running")
	}
	if waited := time.Since(t0); waited < 300*time.Millisecond {
		t.Errorf("a job ignoring SIGTERM ended after %v, before the grace period", waited)
	}
	if got := j.Snapshot(); got.Status != "killed" || got.Signal != "killed" {
		t.Fatalf("after kill: %+v", got)
	}
	if child > 0 {
		for end := time.Now().Add(2 * time.Second); syscall.Kill(child, 0) == nil && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		if syscall.Kill(child, 0) == nil {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the job's child %d survived", child)
		}
	}
	if j.Kill(time.Second) {
		t.Fatal("killing an ended job reports it running")
	}
	if err := j.Send("x"); err == nil || !strings.Contains(err.Error(), "has exited") {
		t.Fatalf("input to an ended job: %v", err)
	}
}

// TestHandlesAndErrors: handles count up per session; unknown handles and bad dirs are clear.
func TestHandlesAndErrors(t *testing.T) {
	m := newTestManager(t)
	for want := 1; want <= 3; want++ {
		j, err := m.Start("true", "", 0)
		if err != nil || j.Handle != want {
			t.Fatalf("handle %v, want %d (%v)", j, want, err)
		}
	}
	if len(m.Jobs()) != 3 {
		t.Fatalf("jobs: %d", len(m.Jobs()))
	}
	if _, err := m.Get(42); err == nil || !strings.Contains(err.Error(), "no such job with handle 42") {
		t.Fatalf("unknown handle: %v", err)
	}
	if _, err := m.Start("true", "/nonexistent/dir", 0); err == nil || !strings.Contains(err.Error(), `dir_path "/nonexistent/dir" is not a directory`) {
		t.Fatalf("bad dir: %v", err)
	}
}

// TestPrune: at start, sessions past the age limit go and only the newest are kept.
func TestPrune(t *testing.T) {
	io := t.TempDir()
	old := time.Now().Add(-8 * 24 * time.Hour)
	for i := range 25 {
		dir := filepath.Join(io, fmt.Sprintf("20260101T0000%02d.000-1", i))
		os.MkdirAll(dir, 0o700)
		if i == 24 {
			continue // the newest by name stays fresh
		}
		if i == 23 {
			os.Chtimes(dir, old, old) // newest but one, but too old
		}
	}
	m, err := NewManager(io, nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(io)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != keepSessions-2 || names[len(names)-1] != "20260101T000024.000-1" || strings.Contains(strings.Join(names, ","), "T000023.") {
		t.Fatalf("after pruning (%s is being made): %v", m.Session, names)
	}
}

func TestIODir(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	if got := IODir(env(map[string]string{"SHELL_TOOLS_IO": "/x", "GEM_HOME": "/g"})); got != "/x" {
		t.Fatal(got)
	}
	if got := IODir(env(map[string]string{"GEM_EXTENSION_DATA": "/g/data/shell-tools", "GEM_HOME": "/g"})); got != "/g/data/shell-tools/io" {
		t.Fatal(got)
	}
	if got := IODir(env(map[string]string{"GEM_HOME": "/g"})); got != "/g/io" {
		t.Fatal(got)
	}
	if got := IODir(env(nil)); !strings.HasSuffix(got, "/.gem/io") {
		t.Fatal(got)
	}
}

// TestBackgroundWorkKeepsTheJob: a command that leaves work in the background ("sleep &")
// is running while that work is; kill by its handle ends the work, and the job then exits.
func TestBackgroundWorkKeepsTheJob(t *testing.T) {
	m := newTestManager(t)
	j, err := m.Start("sleep 300 & echo started $!", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	s := j.Wait(0, regexp.MustCompile(`started \d+`), 5*time.Second, nil)
	var child int
	fmt.Sscanf(s.Output, "started %d", &child)
	time.Sleep(3 * groupPoll) // the shell itself has exited by now
	if got := j.Snapshot(); got.Status != "running" {
		t.Fatalf("with sleep in the background the job is %q, want running", got.Status)
	}
	if !j.Kill(time.Second) {
		t.Fatal("Kill says the job was not running")
	}
	if child <= 0 || running(child) {
		t.Fatalf("the background sleep %d survived its job's kill", child)
	}
	if got := j.Snapshot(); got.Status == "running" {
		t.Errorf("after kill: %+v", got)
	}
	// a command without background work still exits at once
	j2, _ := m.Start("echo quick", "", 0)
	if s := j2.Wait(0, nil, 5*time.Second, nil); s.Status != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Errorf("quick job: %+v", s)
	}
}

// running: pid is a process that has not ended (a zombie has; this machine's init may be
// slow to reap what it adopted).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z"
}
