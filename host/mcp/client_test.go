package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/manifest"

	"github.com/gemhost/gem/internal/testbins"
)

var testServer string // the testserver binary, built once

func TestMain(m *testing.M) {
	testbins.Main(m, map[*string]string{&testServer: "./testdata/testserver"})
}

func stdioServer(t *testing.T, mode string, edit func(*manifest.MCPServer)) *Client {
	t.Helper()
	ms := manifest.MCPServer{Name: "test", Command: testServer, Args: []string{"-mode", mode}}
	if edit != nil {
		edit(&ms)
	}
	s, err := New(Config{Name: "test", Extension: "ext", Server: ms, Env: []string{"PATH=" + os.Getenv("PATH")}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func toolNames(s *Client) []string {
	var names []string
	for _, t := range s.Tools() {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

func resultText(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

func TestStdioServer(t *testing.T) {
	s := stdioServer(t, "ok", nil)
	if st, _ := s.State(); st != Stopped {
		t.Fatalf("state before use: %s", st)
	}
	ctx := context.Background()
	res, err := s.Call(ctx, "echo", json.RawMessage(`{"text":"hi"}`), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "echo: hi" || res.IsError {
		t.Errorf("echo: %q (error %v)", got, res.IsError)
	}
	if got := strings.Join(toolNames(s), ","); got != "crash,echo,grow,pid,progress,slow" {
		t.Errorf("tools: %s", got)
	}
	// A tool's own failure is a result, not a call error.
	res, err = s.Call(ctx, "echo", json.RawMessage(`{"text":"fail"}`), CallOptions{})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "asked to fail") {
		t.Errorf("tool failure: %v %+v", err, res)
	}
	// Progress notifications reach the call that asked for them.
	var mu sync.Mutex
	var steps []string
	res, err = s.Call(ctx, "progress", json.RawMessage(`{"steps":3}`), CallOptions{OnProgress: func(m string, f float64) {
		mu.Lock()
		steps = append(steps, fmt.Sprintf("%s@%.2f", m, f))
		mu.Unlock()
	}})
	if err != nil || resultText(res) != "done" {
		t.Fatalf("progress: %v", err)
	}
	// Notifications may trail the response a little.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(steps)
		mu.Unlock()
		if n == 3 {
			break
		}
	}
	mu.Lock()
	if got := strings.Join(steps, " "); got != "step 1@0.33 step 2@0.67 step 3@1.00" {
		t.Errorf("progress: %q", got)
	}
	mu.Unlock()
	pid := s.Pid()
	if !alive(pid) {
		t.Fatalf("server pid %d not running", pid)
	}
	s.Close()
	if alive(pid) {
		t.Errorf("server %d still running after Close", pid)
	}
}

func TestToolFilters(t *testing.T) {
	cases := []struct {
		name             string
		include, exclude []string
		want             string
	}{
		{"none", nil, nil, "crash,echo,grow,pid,progress,slow"},
		{"exclude", nil, []string{"crash", "grow"}, "echo,pid,progress,slow"},
		{"include", []string{"echo", "slow(millis)"}, nil, "echo,slow"},
		{"exclude wins", []string{"echo", "slow"}, []string{"slow"}, "echo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := stdioServer(t, "ok", func(m *manifest.MCPServer) { m.IncludeTools, m.ExcludeTools = c.include, c.exclude })
			if err := s.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(toolNames(s), ","); got != c.want {
				t.Errorf("tools %s, want %s", got, c.want)
			}
		})
	}
}

func TestListChangedRefreshesTools(t *testing.T) {
	changed := make(chan []string, 4)
	s := stdioServer(t, "ok", nil)
	s.OnToolsChanged = func(s *Client) { changed <- toolNames(s) }
	if _, err := s.Call(context.Background(), "grow", json.RawMessage(`{"text":"sprout"}`), CallOptions{}); err != nil {
		t.Fatal(err)
	}
	// the first call is after the start's own notice (the first list); wait for the refresh
	for timeout := time.After(5 * time.Second); ; {
		select {
		case names := <-changed:
			if slices.Contains(names, "sprout") {
				return
			}
		case <-timeout:
			t.Fatal("no refresh after the server's list-changed notification")
		}
	}
}

func TestCrashIsReportedAndRestarted(t *testing.T) {
	s := stdioServer(t, "ok", nil)
	ctx := context.Background()
	res, err := s.Call(ctx, "pid", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := resultText(res)
	_, err = s.Call(ctx, "crash", nil, CallOptions{})
	if err == nil {
		t.Fatal("a crashed server's call succeeded")
	}
	for _, want := range []string{"mcp server test of ext", "exit status 3", "boom: the disk is on fire"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("crash error lacks %q: %v", want, err)
		}
	}
	// Within the backoff the failure is reported; after it the server starts again.
	if st, _ := s.State(); st != Failed {
		t.Errorf("state after crash: %s", st)
	}
	time.Sleep(600 * time.Millisecond)
	res, err = s.Call(ctx, "pid", nil, CallOptions{})
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if second := resultText(res); second == first {
		t.Errorf("same pid %s after a crash", second)
	}
}

func TestStartFailures(t *testing.T) {
	cases := []struct {
		mode    string
		timeout float64
		want    []string
	}{
		{"die", 0, []string{"did not start", "exit status 2", "cannot open the database: permission denied"}},
		{"hang", 300, []string{"did not start", "no answer within 300ms", "warming up forever"}},
		{"garbage", 2000, []string{"did not start", "oops, printed to stdout"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			s := stdioServer(t, c.mode, func(m *manifest.MCPServer) { m.Timeout = c.timeout })
			err := s.Start(context.Background())
			if err == nil {
				t.Fatal("started")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if st, why := s.State(); st != Failed || why == nil {
				t.Errorf("state %s %v", st, why)
			}
			if pid := s.Pid(); pid != 0 {
				t.Errorf("a failed server left pid %d", pid)
			}
		})
	}
}

func TestMissingCommand(t *testing.T) {
	s := stdioServer(t, "ok", func(m *manifest.MCPServer) { m.Command = "no-such-mcp-server-anywhere" })
	err := s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), `command "no-such-mcp-server-anywhere" is not on PATH`) {
		t.Errorf("missing command: %v", err)
	}
}

func TestCallTimeoutAndCancel(t *testing.T) {
	s := stdioServer(t, "ok", func(m *manifest.MCPServer) { m.Timeout = 400 })
	ctx := context.Background()
	_, err := s.Call(ctx, "slow", json.RawMessage(`{"millis":5000}`), CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "no answer within 400ms") {
		t.Fatalf("timeout: %v", err)
	}
	// The server survives a timed-out request.
	if res, err := s.Call(ctx, "echo", json.RawMessage(`{"text":"still here"}`), CallOptions{}); err != nil || resultText(res) != "echo: still here" {
		t.Fatalf("after timeout: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = s.Call(cctx, "slow", json.RawMessage(`{"millis":5000}`), CallOptions{})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("cancel: %v after %s", err, time.Since(start))
	}
}

// startHTTP runs the test server over HTTP (flag "-http" or "-sse") and returns its URL.
func startHTTP(t *testing.T, flag string) string {
	t.Helper()
	cmd := exec.Command(testServer, flag, "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

func TestHTTPAndSSE(t *testing.T) {
	httpURL := startHTTP(t, "-http")
	sseURL := startHTTP(t, "-sse")
	cases := []struct {
		name string
		ms   manifest.MCPServer
		want Transport
	}{
		{"httpUrl with headers", manifest.MCPServer{HTTPURL: httpURL, Headers: []manifest.KV{{Key: "X-Test-Token", Value: "sesame"}}}, HTTP},
		{"url type http", manifest.MCPServer{URL: httpURL, Type: "http", Headers: []manifest.KV{{Key: "X-Test-Token", Value: "sesame"}}}, HTTP},
		{"url is SSE", manifest.MCPServer{URL: sseURL}, SSE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(Config{Name: "remote", Extension: "ext", Server: c.ms, LocalAllowed: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Transport != c.want {
				t.Errorf("transport %s, want %s", s.Transport, c.want)
			}
			res, err := s.Call(context.Background(), "echo", json.RawMessage(`{"text":"over the wire"}`), CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(res); got != "echo: over the wire" {
				t.Errorf("echo: %q", got)
			}
		})
	}
	// An extension without the network capability cannot make gem call a local service (its
	// headers included), over HTTP or SSE, by address or by a name that resolves to one.
	for _, u := range []string{httpURL, sseURL, strings.Replace(httpURL, "127.0.0.1", "localhost", 1)} {
		t.Run("local without the network "+u, func(t *testing.T) {
			ms := manifest.MCPServer{HTTPURL: u, Headers: []manifest.KV{{Key: "X-Test-Token", Value: "sesame"}}}
			if strings.Contains(u, "sse") {
				ms = manifest.MCPServer{URL: u}
			}
			s, err := New(Config{Name: "remote", Extension: "ext", Server: ms})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.Call(context.Background(), "echo", json.RawMessage(`{"text":"x"}`), CallOptions{})
			var local *LocalEndpointError
			if !errors.As(err, &local) || !strings.Contains(err.Error(), "needs the network capability") {
				t.Errorf("reached: %v", err)
			}
		})
	}
	t.Run("missing header", func(t *testing.T) {
		s, err := New(Config{Name: "remote", Extension: "ext", Server: manifest.MCPServer{HTTPURL: httpURL, Timeout: 3000}, LocalAllowed: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "mcp server remote of ext did not start") {
			t.Errorf("without the header: %v", err)
		}
	})
}

func TestTransportOf(t *testing.T) {
	cases := []struct {
		ms      manifest.MCPServer
		want    Transport
		wantErr string
	}{
		{manifest.MCPServer{Command: "x"}, Stdio, ""},
		{manifest.MCPServer{HTTPURL: "http://h/mcp", URL: "http://h/sse", Command: "x"}, HTTP, ""},
		{manifest.MCPServer{URL: "http://h/sse", Command: "x"}, SSE, ""},
		{manifest.MCPServer{URL: "http://h/mcp", Type: "http"}, HTTP, ""},
		{manifest.MCPServer{TCP: "h:1"}, "", `"tcp" transport is not supported`},
		{manifest.MCPServer{}, "", "declares no way to reach it"},
	}
	for _, c := range cases {
		got, err := TransportOf(c.ms)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%+v: error %v, want %q", c.ms, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %s %v, want %s", c.ms, got, err, c.want)
		}
	}
}

func TestToolName(t *testing.T) {
	cases := []struct{ server, tool, want string }{
		{"notes", "add_note", "mcp_notes_add_note"},
		{"my server", "do/it", "mcp_my_server_do_it"},
		{"gh", "issue.list:v2-beta", "mcp_gh_issue.list:v2-beta"},
		{"é", "ü", "mcp____"},
		{"a-very-long-server-name-for-testing", "and_an_even_longer_tool_name_that_goes_on", "mcp_a-very-long-server-name-fo..._longer_tool_name_that_goes_on"},
	}
	for _, c := range cases {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	if got := SanitizeName("1abc"); got != "_1abc" {
		t.Errorf("leading digit: %q", got)
	}
}

// TestStartTimeout: a server that never answers initialize is given up after the start
// limit, not after its (long) call timeout.
func TestStartTimeout(t *testing.T) {
	s := stdioServer(t, "hang", func(m *manifest.MCPServer) { m.Timeout = 600000 })
	s.Config.StartTimeout = 300 * time.Millisecond
	start := time.Now()
	err := s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms while starting") {
		t.Fatalf("start: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("gave up after %s", took)
	}
}

// TestStartWhileDownloading: past the start limit, a server whose launcher says it is
// downloading (its progress lines on stderr, its cache growing) is waited for; one that
// works, floods stderr with other lines, or does nothing is ended at the limit, a first
// start included. Before, any CPU, read or write (a flood of stderr) moved the limit on, and
// a first start had 10 minutes.
func TestStartWhileDownloading(t *testing.T) {
	startSayAfter = 500 * time.Millisecond
	t.Cleanup(func() { startSayAfter = 5 * time.Second })
	cache := t.TempDir()
	for _, tt := range []struct {
		name    string
		args    []string
		started bool
	}{
		{"progress lines", []string{"-progress", "2500ms"}, true},
		{"cache grows", []string{"-grow", cache, "-growfor", "3500ms"}, true},
		{"floods stderr", []string{"-flood", "4s"}, false},
		{"works", []string{"-work", "4s"}, false},
		{"idle", []string{"-delay", "4s"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := stdioServer(t, "ok", func(m *manifest.MCPServer) { m.Args = append(m.Args, tt.args...) })
			s.Config.StartTimeout = time.Second
			s.Config.Progress = []string{"Downloading "}
			s.Config.Caches = []string{cache}
			var said []string
			var mu sync.Mutex
			s.Config.Waiting = func(m string) { mu.Lock(); said = append(said, m); mu.Unlock() }
			t0 := time.Now()
			err := s.Start(context.Background())
			if (err == nil) != tt.started {
				t.Fatalf("start: %v", err)
			}
			if !tt.started && (!strings.Contains(err.Error(), "no answer within 1s while starting") || time.Since(t0) > 3*time.Second) {
				t.Errorf("start ended after %s: %v", time.Since(t0), err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(said) == 0 || !strings.Contains(said[0], "mcp server test of ext is still starting ("+testServer) {
				t.Errorf("said while starting: %q", said)
			}
			if tt.started && !strings.HasSuffix(said[len(said)-1], "downloading") {
				t.Errorf("said while downloading: %q", said)
			}
		})
	}
}

// TestStartLimit: a start, a first one too, takes DefaultStartTimeout unless a limit was
// set, and never more than the server's own timeout.
func TestStartLimit(t *testing.T) {
	for _, tt := range []struct {
		limit   time.Duration
		timeout float64 // ms
		want    time.Duration
	}{
		{0, 0, DefaultStartTimeout},
		{2 * time.Second, 0, 2 * time.Second},
		{0, 20000, 20 * time.Second},
	} {
		s := &Client{Config: Config{StartTimeout: tt.limit, Server: manifest.MCPServer{Timeout: tt.timeout}}}
		if got := s.StartTimeout(); got != tt.want {
			t.Errorf("limit %s, timeout %vms: %s, want %s", tt.limit, tt.timeout, got, tt.want)
		}
	}
}

// TestRestart: a server started again with another environment (a grant made once its list
// was known) runs as a new process with it; the old one has ended.
func TestRestart(t *testing.T) {
	s := stdioServer(t, "ok", nil)
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	old := s.Pid()
	env := append(slices.Clone(s.Env), "GEM_TEST_RESTARTED=1")
	if err := s.Restart(ctx, nil, env); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(); st != Ready || s.Pid() == old || !alive(s.Pid()) {
		t.Fatalf("after Restart: %s, pid %d (was %d)", st, s.Pid(), old)
	}
	for deadline := time.Now().Add(3 * time.Second); alive(old) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if alive(old) {
		t.Errorf("the first process %d still runs", old)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.Pid()))
	if err == nil && !strings.Contains(string(data), "GEM_TEST_RESTARTED=1") {
		t.Errorf("the new process lacks the new environment")
	}
	if res, err := s.Call(ctx, "echo", json.RawMessage(`{"text":"again"}`), CallOptions{}); err != nil || resultText(res) != "echo: again" {
		t.Errorf("a call after Restart: %v", err)
	}
}
