package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
	"github.com/gemhost/gem/sdk"
)

// BenchmarkFirstRequest: from starting `gem -p` to its first request reaching the Gemini API
// (a local fake), with no extensions and with five MCP servers that each take 300 ms to boot
// (as node and uvx servers do), in one run. With their tool lists cached, the first request
// does not wait for them. The SDK's agent (sdk.NewAgent, Session, Send, in the benchmark's
// process) is measured in the same loop: sdk/gem-p is its ratio. Needs make build (bin/gem, bin/gem-engine); GEM_BENCH_BIN names
// another build's folder to compare with.
//
//	go test -run '^$' -bench FirstRequest -benchtime 20x ./cmd/gem/
func BenchmarkFirstRequest(b *testing.B) {
	gem := filepath.Join(repoRoot(), "bin", "gem")
	if dir := os.Getenv("GEM_BENCH_BIN"); dir != "" {
		gem = filepath.Join(dir, "gem") // another build's binaries, to compare
	}
	if _, err := os.Stat(gem); err != nil {
		b.Skip("make build first:", err)
	}
	server := filepath.Join(b.TempDir(), "testserver")
	if out, err := exec.Command("go", "build", "-o", server, filepath.Join(repoRoot(), "host", "mcp", "testdata", "testserver")).CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	arrived := make(chan time.Time, 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- time.Now():
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`+"\n\n")
	}))
	defer api.Close()
	for _, servers := range []int{0, 5} {
		b.Run(fmt.Sprintf("mcp-servers=%d", servers), func(b *testing.B) {
			home := testhome.Dir(b, "first-")
			proj := filepath.Join(home, "proj")
			os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
			bin, err := os.ReadFile(server)
			if err != nil {
				b.Fatal(err)
			}
			for i := range servers {
				m := fmt.Sprintf(`{"name":"srv%d","version":"1.0.0","mcpServers":{"s%d":{"command":"${extensionPath}/bin/server","args":["-delay","300ms"]}}}`, i, i)
				registrytest.Extension(b, registry.NewEnv(home, proj, os.Getenv), fmt.Sprintf("srv%d", i), m, map[string][]byte{"bin/server": bin})
			}
			run := func() time.Duration {
				cmd := exec.Command(gem, "-p", "hi")
				cmd.Dir = proj
				cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GEMINI_API_KEY=bench", "GEM_GEMINI_BASE_URL=" + api.URL}
				t0 := time.Now()
				out, err := cmd.CombinedOutput()
				if err != nil || len(out) > 0 && servers > 0 && !slices.Contains([]string{"ok\n"}, string(out)) {
					b.Fatalf("gem -p: %v\n%s", err, out) // a warning: a server did not start
				}
				return (<-arrived).Sub(t0)
			}
			// The SDK's agent, in this process, with what gem -p loads (LoadSettings).
			vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "GEMINI_API_KEY": "bench", "GEM_GEMINI_BASE_URL": api.URL}
			runSDK := func() time.Duration {
				ctx := context.Background()
				t0 := time.Now()
				a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: proj, Getenv: func(k string) string { return vars[k] }})
				if err != nil {
					b.Fatal(err)
				}
				defer a.Close()
				s, err := a.Session(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Send(ctx, "hi"); err != nil {
					b.Fatal(err)
				}
				return (<-arrived).Sub(t0)
			}
			run() // the first session starts every server and caches its tools
			var lat, sdkLat []time.Duration
			for b.Loop() {
				lat = append(lat, run())
				sdkLat = append(sdkLat, runSDK())
			}
			slices.Sort(lat)
			slices.Sort(sdkLat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "first-request-ms")
			b.ReportMetric(float64(sdkLat[len(sdkLat)/2].Microseconds())/1000, "sdk-first-request-ms")
			b.ReportMetric(float64(sdkLat[len(sdkLat)/2])/float64(lat[len(lat)/2]), "sdk/gem-p")
		})
	}
}
