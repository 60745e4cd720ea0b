package plugins

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/pluginsdk/pluginhost"
	"github.com/gemhost/gem/registry/install"
)

var echoBin string

// TestMain builds the test plugin once for every test.
func TestMain(m *testing.M) {
	if bin := os.Getenv("GEM_PLUGINS_TEST_HOST"); bin != "" {
		hostProcess(bin) // never returns
	}
	dir, err := os.MkdirTemp("", "gem-plugins-test")
	if err != nil {
		panic(err)
	}
	echoBin = filepath.Join(dir, "echoplugin")
	if prebuilt := os.Getenv("GEM_TEST_ECHOPLUGIN"); prebuilt != "" {
		echoBin = prebuilt // built beforehand (scripts/bench.sh runs these benchmarks as another user)
	} else if out, err := exec.Command("go", "build", "-o", echoBin, "./testdata/echoplugin").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestPluginRoundTrip(t *testing.T) {
	ctx := context.Background()
	c, err := Start(ctx, Config{Name: "echo", Path: echoBin, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var names []string
	for _, tl := range c.Tools {
		names = append(names, tl.Name+":"+string(tl.Kind))
	}
	if got := strings.Join(names, ","); got != "echo:read,slow:other,ask:edit,count:read,crash:other,fail:other" {
		t.Fatalf("tools: %s", got)
	}
	if !strings.Contains(string(c.Tools[0].InputSchema), `"required":["text"]`) {
		t.Errorf("schema: %s", string(c.Tools[0].InputSchema))
	}
	tests := []struct {
		tool, args, text, errType string
	}{
		{"echo", `{"text":"ab","times":2}`, "abab", ""},
		{"echo", `{}`, "", "invalid_arguments"},
		{"echo", `{"text":5}`, "", "invalid_arguments"},
		{"fail", `{}`, "", "execution"},
		{"nosuch", `{}`, "", "not_found"},
	}
	for _, tt := range tests {
		res, err := c.Call(ctx, tt.tool, tt.args, pluginhost.CallOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.tool, err)
		}
		if res.Text != tt.text || (res.Error == nil) != (tt.errType == "") || (res.Error != nil && string(res.Error.Type) != tt.errType) {
			t.Errorf("%s %s: got %q %v", tt.tool, tt.args, res.Text, res.Error)
		}
	}
	var updates []string
	res, err := c.Call(ctx, "slow", `{"steps":3}`, pluginhost.CallOptions{OnUpdate: func(s string) { updates = append(updates, s) }})
	if err != nil || res.Text != "done" || strings.Join(updates, ",") != "step 1,step 2,step 3" {
		t.Fatalf("streaming: %v %v %v", res, err, updates)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.Call(cctx, "slow", `{"steps":1000}`, pluginhost.CallOptions{}); err == nil {
		t.Fatal("a cancelled call must fail")
	}
	if res, err := c.Call(ctx, "echo", `{"text":"still alive"}`, pluginhost.CallOptions{}); err != nil || res.Text != "still alive" {
		t.Fatalf("after cancel: %v %v", res, err)
	}
	c.Close()
	if !c.Exited() {
		t.Fatal("plugin still running after Close")
	}
}

// TestTemplatePlugin: `gem ext new <path> plugin` produces a plugin that builds on its own
// (its go.mod and go.sum alone, no -mod=mod) and serves its tool to the host.
func TestTemplatePlugin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tmplplug")
	if _, err := install.New(dir, "plugin"); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "tmplplug")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the template does not build: %v\n%s", err, out)
	}
	// Its own tests (pluginsdk/plugintest, in process and as a subprocess) pass.
	test := exec.Command("go", "test", "./...")
	test.Dir = dir
	test.Env = cmd.Env
	if out, err := test.CombinedOutput(); err != nil {
		t.Fatalf("the template's tests fail: %v\n%s", err, out)
	}
	c, err := Start(context.Background(), Config{Name: "tmplplug", Path: bin})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Call(context.Background(), "greet", `{"name":"gem"}`, pluginhost.CallOptions{})
	if err != nil || res.Text != "Hello, gem!" {
		t.Fatalf("greet: %v %v", res, err)
	}
}

// hostProcess is a host that starts a plugin, prints its pid and waits to be killed.
func hostProcess(bin string) {
	c, err := Start(context.Background(), Config{Name: "echo", Path: bin})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(c.Pid())
	select {}
}

// TestHostKilledLeavesNoPlugin: SIGKILL the host; the plugin dies with it (Pdeathsig).
func TestHostKilledLeavesNoPlugin(t *testing.T) {
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), "GEM_PLUGINS_TEST_HOST="+echoBin)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil || pid <= 0 {
		host.Process.Kill()
		t.Fatalf("no plugin pid from the host: %v", err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("plugin %d not running: %v", pid, err)
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("plugin %d outlived its killed host", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkColdStart: launch + handshake + ListTools, against a plain fork/exec of the same
// binary (which prints go-plugin's "not meant to be executed" and exits), interleaved in
// one loop so both see the same machine; reports the medians and their ratio. Stopping the
// plugin is outside the timed part: a session pays it at exit, not before its first call.
func BenchmarkColdStart(b *testing.B) { coldStart(b, Config{Name: "echo", Path: echoBin}, "plugin-ms") }

// BenchmarkColdStartSandboxed: BenchmarkColdStart with the plugin under the default
// extension sandbox, started through the helper named by GEM_SANDBOX_HELPER (gem's front,
// as scripts/bench.sh sets it); skipped without one.
func BenchmarkColdStartSandboxed(b *testing.B) {
	if os.Getenv("GEM_SANDBOX_HELPER") == "" {
		b.Skip("set GEM_SANDBOX_HELPER to gem's front (bin/gem)")
	}
	dir := b.TempDir()
	pol := sandbox.ForExtension(sandbox.Access{Extension: filepath.Dir(echoBin), Workspace: dir, Data: dir, Temp: dir})
	coldStart(b, Config{Name: "echo", Path: echoBin, Env: []string{"TMPDIR=" + dir}, Policy: &pol}, "sandboxed-plugin-ms")
}

// coldStart measures starting spec (launch, handshake, ListTools) against a plain fork/exec
// of the same binary, interleaved; medians and their ratio.
func coldStart(b *testing.B, spec Config, metric string) {
	var starts, forks []time.Duration
	for b.Loop() {
		t0 := time.Now()
		c, err := Start(context.Background(), spec)
		if err != nil {
			b.Fatal(err)
		}
		starts = append(starts, time.Since(t0))
		c.Close()
		t0 = time.Now()
		exec.Command(spec.Path).Run()
		forks = append(forks, time.Since(t0))
	}
	slices.Sort(starts)
	slices.Sort(forks)
	ps, fe := starts[len(starts)/2], forks[len(forks)/2]
	b.ReportMetric(float64(ps.Microseconds())/1e3, metric)
	b.ReportMetric(float64(fe.Microseconds())/1e3, "forkexec-ms")
	b.ReportMetric(float64(ps)/float64(fe), "ratio")
}

// BenchmarkWarmCall: a warm unary tool call round trip through a session Plugin, with p50
// and p99 (the host-path figures, with validation and the registry, are in host/tools).
func BenchmarkWarmCall(b *testing.B) {
	p := &Plugin{Config: Config{Name: "echo", Path: echoBin, Env: strings.Fields(os.Getenv("BENCH_PLUGIN_ENV"))}}
	defer p.Close()
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		res, err := p.Call(context.Background(), "echo", `{"text":"x"}`, pluginhost.CallOptions{})
		if err != nil || res.Text != "x" {
			b.Fatal(res, err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
