package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/internal/acptest"
	"github.com/gemhost/gem/internal/fakegemini"
)

// firstChunk is an ACP client that tells when the first agent_message_chunk of a prompt
// arrives, and refuses the rest of what an agent may ask.
type firstChunk struct {
	acptest.Refuse // no terminals, no writes
	mu             sync.Mutex
	ch             chan struct{}
}

func (c *firstChunk) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if n.Update.AgentMessageChunk != nil {
		c.mu.Lock()
		if c.ch != nil {
			close(c.ch)
			c.ch = nil
		}
		c.mu.Unlock()
	}
	return nil
}
func (c *firstChunk) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
}

// acpAgent is a started ACP agent process with a session open.
type acpAgent struct {
	cmd     *exec.Cmd
	conn    *acp.ClientSideConnection
	client  *firstChunk
	session acp.SessionId
}

func startACP(b *testing.B, dir string, env []string, argv ...string) *acpAgent {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	a := &acpAgent{cmd: cmd, client: &firstChunk{}}
	a.conn = acp.NewClientSideConnection(a.client, in, out)
	ctx := context.Background()
	if _, err := a.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		b.Fatal(argv, err)
	}
	s, err := a.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	if err != nil {
		b.Fatal(argv, err)
	}
	a.session = s.SessionId
	return a
}

// untilFirstChunk sends a prompt and returns the time until its first agent_message_chunk
// (the turn is then let finish).
func (a *acpAgent) untilFirstChunk(b *testing.B) time.Duration {
	ch := make(chan struct{})
	a.client.mu.Lock()
	a.client.ch = ch
	a.client.mu.Unlock()
	t0 := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := a.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: a.session, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
		done <- err
	}()
	var d time.Duration
	select {
	case <-ch:
		d = time.Since(t0)
	case err := <-done:
		b.Fatalf("the turn ended without a chunk: %v", err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return d
}

// settle is the pause after each agent's turn: what it does after answering (Gemini CLI
// saves its chat and flushes telemetry, gem saves the session) must not land in the other's
// measured time on a machine of two cores.
const settle = 30 * time.Millisecond

// BenchmarkACPFirstChunk: the time from session/prompt to the first agent_message_chunk,
// with the fake model answering at once, gem acp against Gemini CLI's gemini --acp (from
// npm, pointed at the same fake), both started once, in one loop: acp-first-chunk-ratio is
// gem's over Gemini CLI's (target ≤ 0.1). The floor agent (internal/testbins/flooragent: a
// line in, one HTTP request, a line out) runs in the same loop: floor-ratio is the least
// any agent's ratio can be on this machine, and gem-over-floor-ms what gem adds to it.
// Needs make build and make test-deps.
func BenchmarkACPFirstChunk(b *testing.B) {
	gem := filepath.Join(repoRoot(), "bin", "gem")
	if _, err := os.Stat(gem); err != nil {
		b.Skip("make build first:", err)
	}
	gemini := geminiCLI()
	if gemini == "" {
		b.Skip("Gemini CLI is not installed: make test-deps")
	}
	srv, err := fakegemini.Start(nil, "")
	if err != nil {
		b.Fatal(err)
	}
	srv.SetDefault(fakegemini.Chunks(fakegemini.Text("Hello."))) // Gemini CLI may ask more than once a turn
	defer srv.Close()
	cache, _ := os.UserCacheDir()
	os.MkdirAll(filepath.Join(cache, "gem-testwork"), 0o755)
	home, err := os.MkdirTemp(filepath.Join(cache, "gem-testwork"), "acp-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(home)
	proj := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}}`), 0o644)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=test-key", "GEM_GEMINI_BASE_URL=" + srv.URL,
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true", "TMPDIR=" + os.TempDir()}
	floor := filepath.Join(home, "flooragent")
	build := exec.Command("go", "build", "-o", floor, "./internal/testbins/flooragent")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the floor agent: %v\n%s", err, out)
	}
	gemAgent := startACP(b, proj, env, gem, "acp", "--model", "gemini-2.5-flash")
	cliAgent := startACP(b, proj, env, gemini, "--acp", "-m", "gemini-2.5-flash")
	floorAgent := startACP(b, proj, env, floor)
	var gemTime, cliTime, floorTime time.Duration
	for b.Loop() {
		gemTime += gemAgent.untilFirstChunk(b)
		time.Sleep(settle)
		cliTime += cliAgent.untilFirstChunk(b)
		time.Sleep(settle)
		floorTime += floorAgent.untilFirstChunk(b)
		time.Sleep(settle)
	}
	n := float64(b.N)
	b.ReportMetric(float64(gemTime.Microseconds())/1000/n, "gem-first-chunk-ms")
	b.ReportMetric(float64(cliTime.Microseconds())/1000/n, "gemini-cli-first-chunk-ms")
	b.ReportMetric(float64(gemTime)/float64(cliTime), "acp-first-chunk-ratio")
	b.ReportMetric(float64(floorTime)/float64(cliTime), "floor-ratio")
	b.ReportMetric(float64((gemTime-floorTime).Microseconds())/1000/n, "gem-over-floor-ms")
}
