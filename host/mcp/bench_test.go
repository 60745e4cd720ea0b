package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/manifest"
)

// notesBinary builds the notes-mcp sample (the Go sample MCP server) once per run.
var notesBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gem-notes-bench")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "notes-mcp")
	out, err := exec.Command("go", "build", "-o", bin, "../../sample-extensions/notes-mcp/cmd/notes-mcp").CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

func notesServer(b *testing.B) (bin string, env []string) {
	bin, err := notesBinary()
	if err != nil {
		b.Fatal(err)
	}
	return bin, []string{"NOTES_MCP_FILE=" + filepath.Join(b.TempDir(), "notes.json")}
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkMCPColdStart: the notes sample started through gem (process in the launcher,
// initialize, the whole tool list, stop) against the same done with the SDK directly,
// interleaved; medians and their ratio.
func BenchmarkMCPColdStart(b *testing.B) {
	bin, env := notesServer(b)
	ctx := context.Background()
	var viaGem, direct []time.Duration
	for b.Loop() {
		t0 := time.Now()
		s, err := New(Config{Name: "notes", Extension: "notes-mcp", Server: manifest.MCPServer{Command: bin}, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Start(ctx); err != nil || len(s.Tools()) != 5 {
			b.Fatal(err, len(s.Tools()))
		}
		s.Close()
		viaGem = append(viaGem, time.Since(t0))

		t0 = time.Now()
		cmd := exec.Command(bin)
		cmd.Env = env
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, err := range cs.Tools(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		cs.Close()
		direct = append(direct, time.Since(t0))
	}
	g, d := median(viaGem), median(direct)
	b.ReportMetric(float64(g.Microseconds())/1e3, "gem-ms")
	b.ReportMetric(float64(d.Microseconds())/1e3, "sdk-ms")
	b.ReportMetric(float64(g)/float64(d), "ratio")
}

// BenchmarkMCPWarmCall: a warm tools/call of the notes sample through gem's Server against
// the SDK's client session directly, interleaved; p50 of each and p99 through gem.
func BenchmarkMCPWarmCall(b *testing.B) {
	bin, env := notesServer(b)
	ctx := context.Background()
	s, err := New(Config{Name: "notes", Extension: "notes-mcp", Server: manifest.MCPServer{Command: bin}, Env: env})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cmd := exec.Command(bin)
	cmd.Env = env
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := json.RawMessage(`{"tag":"none"}`)
	if _, err := s.Call(ctx, "list_notes", args, CallOptions{}); err != nil {
		b.Fatal(err)
	}
	var viaGem, direct []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.Call(ctx, "list_notes", args, CallOptions{}); err != nil {
			b.Fatal(err)
		}
		viaGem = append(viaGem, time.Since(t0))
		t0 = time.Now()
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_notes", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(t0))
	}
	g, d := median(viaGem), median(direct)
	b.ReportMetric(float64(g.Microseconds()), "gem-p50-µs")
	b.ReportMetric(float64(viaGem[len(viaGem)*99/100].Microseconds()), "gem-p99-µs")
	b.ReportMetric(float64(d.Microseconds()), "sdk-p50-µs")
}
