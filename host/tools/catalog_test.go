package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gemhost/gem/host/policy"

	"github.com/gemhost/gem/registry"
	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/internal/testbins"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry/registrytest"
)

var echoBin, mcpServerBin string

func TestMain(m *testing.M) {
	testbins.Main(m, map[*string]string{&echoBin: "../plugins/testdata/echoplugin", &mcpServerBin: "../mcp/testdata/testserver"})
}

// withExtensions makes a hermetic home with a user extension per name, each with the echo
// plugin, and returns its Env.
func withExtensions(t testing.TB, names ...string) registry.Env {
	t.Helper()
	env := registrytest.Env(t, nil)
	bin := testhome.Binary(t, echoBin)
	for _, name := range names {
		m := `{"name":"` + name + `","version":"1.0.0","plugins":{"echo":{"binary":"${extensionPath}/bin/echo"}}}`
		registrytest.Extension(t, env, name, m, map[string][]byte{"bin/echo": bin})
	}
	return env
}

func load(t testing.TB, env registry.Env, opts Options) *Catalog {
	t.Helper()
	opts.Environ = []string{"PATH=/usr/bin:/bin"}
	r, errs := Load(context.Background(), env, registry.Discover(env, registry.Providers), opts)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(r.Close)
	return r
}

func names(r *Catalog) string {
	var out []string
	for _, t := range r.List() {
		out = append(out, t.Name+"/"+string(t.Kind()))
	}
	return strings.Join(out, ",")
}

// TestRegistryCacheAndLazyStart: the first load starts the plugin and caches its tools; the
// next lists them without starting it and starts it on the first call; a changed binary
// invalidates the cache.
func TestRegistryCacheAndLazyStart(t *testing.T) {
	env := withExtensions(t, "one")
	first := load(t, env, Options{})
	if first.Running() != 1 {
		t.Fatalf("without a cache the plugin starts at load: running=%d", first.Running())
	}
	want := "ask/edit,count/read,crash/other,echo/read,fail/other,slow/other"
	if got := names(first); got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}
	first.Close()

	second := load(t, env, Options{})
	if got := names(second); got != want || second.Running() != 0 {
		t.Fatalf("from the cache: tools=%s running=%d", got, second.Running())
	}
	res, err := second.Call(context.Background(), "echo", json.RawMessage(`{"text":"lazy"}`), CallOptions{})
	if err != nil || res.Text != "lazy" || second.Running() != 1 {
		t.Fatalf("lazy call: %v %v running=%d", res, err, second.Running())
	}
	second.Close()

	bin := filepath.Join(env.GeminiExtensionsDir(), "one", "bin", "echo")
	later := time.Now().Add(time.Minute)
	os.Chtimes(bin, later, later)
	third := load(t, env, Options{})
	if third.Running() != 1 {
		t.Fatal("a changed binary must be started to refresh the cache")
	}
}

// TestRegistryConflictsAndValidation: a tool declared by two extensions is renamed on both
// sides; arguments are validated by the host with every violation named.
func TestRegistryConflictsAndValidation(t *testing.T) {
	env := withExtensions(t, "alpha", "beta")
	r := load(t, env, Options{})
	if _, ok := r.Lookup("echo"); ok {
		t.Fatal("a conflicting name must not stay bare")
	}
	tests := []struct {
		tool, args string
		text       string
		invalid    []string
	}{
		{"alpha_echo", `{"text":"a"}`, "a", nil},
		{"beta_echo", `{"text":"b","times":2}`, "bb", nil},
		{"alpha_echo", `{"times":"x","color":1}`, "", []string{`"text" is required`, `"color" is not a parameter`, `"times": type`}},
		{"alpha_echo", `[1]`, "", []string{"type"}},
		{"alpha_echo", `nope`, "", []string{"not JSON"}},
	}
	for _, tt := range tests {
		res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args), CallOptions{})
		if tt.invalid != nil {
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("%s %s: want invalid arguments, got %v", tt.tool, tt.args, err)
			}
			for _, w := range tt.invalid {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %s: %v lacks %q", tt.tool, tt.args, err, w)
				}
			}
			continue
		}
		if err != nil || res.Text != tt.text {
			t.Fatalf("%s %s: %v %v", tt.tool, tt.args, res, err)
		}
	}
	var unknown *UnknownToolError
	if _, err := r.Call(context.Background(), "alpha_ecoh", nil, CallOptions{}); !errors.As(err, &unknown) || unknown.Similar != "alpha_echo" {
		t.Errorf("a near name: %v", err)
	}
	if _, err := r.Call(context.Background(), "nosuch", nil, CallOptions{}); !errors.As(err, &unknown) || unknown.Name != "nosuch" || unknown.Similar != "" {
		t.Fatalf("unknown tool: %v", err)
	}
}

// TestResultConversion: structured output and typed errors come through.
func TestResultConversion(t *testing.T) {
	r := load(t, withExtensions(t, "one"), Options{})
	res, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"s","times":2}`), CallOptions{})
	if err != nil || string(res.Structured) != `{"times":2}` || res.DisplayText() != "ss" {
		t.Fatalf("structured: %+v %v", res, err)
	}
	res, err = r.Call(context.Background(), "fail", nil, CallOptions{})
	if err != nil || res.Error == nil || res.Error.Type != "execution" {
		t.Fatalf("typed error: %+v %v", res, err)
	}
}

// writeExtension writes a user extension with the given manifest.
func writeExtension(t testing.TB, env registry.Env, name, manifest string) {
	t.Helper()
	dir := filepath.Join(env.GeminiExtensionsDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockedBuilder is a strings.Builder safe for the progress callbacks' goroutines.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRegistryMCP: MCP servers join the catalog lazily under Gemini CLI's names, beside
// plugin tools; excludeTools hides tools; a second server of the same name is skipped with
// a warning naming both; MCP calls are validated, report progress and convert results.
func TestRegistryMCP(t *testing.T) {
	env := withExtensions(t, "alpha")
	writeExtension(t, env, "notes", `{"name":"notes","version":"1.0.0","excludeTools":["crash","run_shell_command(rm)"],
		"mcpServers":{"test":{"command":"`+mcpServerBin+`","args":["-mode","ok"]}}}`)
	writeExtension(t, env, "zeta", `{"name":"zeta","version":"1.0.0","mcpServers":{"test":{"command":"/nonexistent"}}}`)
	var progress lockedBuilder
	r, errs := Load(context.Background(), env, registry.Discover(env, registry.Providers), Options{Environ: []string{"PATH=/usr/bin:/bin"}, Services: &Services{Progress: &progress}})
	t.Cleanup(r.Close)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `mcp server "test" of zeta is skipped: notes declares a server of the same name first`) {
		t.Fatalf("load errors: %v", errs)
	}
	if got := names(r); strings.Contains(got, "mcp_") {
		t.Fatalf("MCP servers must start on demand, listed: %s", got)
	}
	// A call to an mcp_ name starts its server.
	res, err := r.Call(context.Background(), "mcp_test_echo", json.RawMessage(`{"text":"via mcp"}`), CallOptions{})
	if err != nil || res.Text != "echo: via mcp" {
		t.Fatalf("mcp call: %+v %v", res, err)
	}
	want := "ask/edit,count/read,crash/other,echo/read,fail/other,mcp_test_echo/read,mcp_test_grow/other,mcp_test_pid/other,mcp_test_progress/other,mcp_test_slow/other,slow/other"
	// The plugin's own "crash" is hidden by the notes extension's excludeTools, as in Gemini CLI.
	want = strings.Replace(want, "crash/other,", "", 1)
	if got := names(r); got != want {
		t.Errorf("tools:\n got %s\nwant %s", got, want)
	}
	if tl, _ := r.Lookup("mcp_test_echo"); tl.Source() != "mcp test" || tl.Extension != "notes" || tl.Declared != "echo" {
		t.Errorf("tool: %+v", tl)
	}
	if _, err := r.Call(context.Background(), "mcp_test_echo", json.RawMessage(`{"text":5}`), CallOptions{}); !errors.Is(err, ErrInvalidArguments) {
		t.Errorf("mcp arguments are validated by gem: %v", err)
	}
	res, err = r.Call(context.Background(), "mcp_test_echo", json.RawMessage(`{"text":"fail"}`), CallOptions{})
	if err != nil || res.Error == nil || res.Error.Type != "execution" || !strings.Contains(res.Error.Message, "asked to fail") {
		t.Errorf("mcp tool failure: %+v %v", res, err)
	}
	if _, err := r.Call(context.Background(), "mcp_test_progress", json.RawMessage(`{"steps":2}`), CallOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // progress notifications may trail the result
	if got := progress.String(); !strings.Contains(got, "[test] step 1 (50%)") {
		t.Errorf("progress: %q", got)
	}
	if servers := r.Servers(); len(servers) != 1 || servers[0].State != "ready" || servers[0].Tools != 6 || servers[0].Transport != "stdio" {
		t.Errorf("servers: %+v", servers)
	}
	// A list-changed notification refreshes the catalog.
	changed := make(chan struct{}, 1)
	r.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if _, err := r.Call(context.Background(), "mcp_test_grow", json.RawMessage(`{"text":"sprout"}`), CallOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no refresh")
	}
	if _, ok := r.Lookup("mcp_test_sprout"); !ok {
		t.Errorf("grown tool missing: %s", names(r))
	}
	pid := r.Servers()[0].Pid
	r.Close()
	if pid == 0 || syscall.Kill(pid, 0) == nil {
		t.Errorf("server %d still running after Close", pid)
	}
}

// BenchmarkHostCall: a warm call through the whole host path (catalog lookup, schema
// validation, session plugin, gRPC, result conversion), with p50 and p99.
func BenchmarkHostCall(b *testing.B) {
	r := load(b, withExtensions(b, "one"), Options{})
	args := json.RawMessage(`{"text":"x","times":1}`)
	if _, err := r.Call(context.Background(), "echo", args, CallOptions{}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		res, err := r.Call(context.Background(), "echo", args, CallOptions{})
		if err != nil || res.Text != "x" {
			b.Fatal(res, err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkMCPHostCall: a warm call of an MCP server's tool through the whole host path
// (catalog lookup, schema validation, MCP session over stdio, result conversion).
func BenchmarkMCPHostCall(b *testing.B) {
	env := withExtensions(b)
	writeExtension(b, env, "kit", `{"name":"kit","version":"1.0.0","mcpServers":{"test":{"command":"`+mcpServerBin+`"}}}`)
	r := load(b, env, Options{})
	args := json.RawMessage(`{"text":"x"}`)
	if _, err := r.Call(context.Background(), "mcp_test_echo", args, CallOptions{}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		res, err := r.Call(context.Background(), "mcp_test_echo", args, CallOptions{})
		if err != nil || res.Text != "echo: x" {
			b.Fatal(res, err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// TestIndexConcurrent: indexes built at once (MCP servers finishing their start together)
// publish one after the other, each complete, and every change callback runs.
func TestIndexConcurrent(t *testing.T) {
	r := &Catalog{byName: map[string]*Tool{}, excluded: map[string]string{"hidden": "x"}, logger: hclog.NewNullLogger()}
	for i := range 40 {
		r.pluginTools = append(r.pluginTools, &Tool{base: fmt.Sprintf("t%02d", i), Declared: fmt.Sprintf("t%02d", i), Extension: "x", Spec: Spec{}})
	}
	r.pluginTools = append(r.pluginTools, &Tool{base: "hidden", Declared: "hidden", Extension: "x", Spec: Spec{}})
	var calls atomic.Int32
	r.onChange = append(r.onChange, func() { calls.Add(1) })
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.index()
			if n := len(r.List()); n != 40 {
				t.Errorf("a reader saw %d tools, want 40", n)
			}
		}()
	}
	wg.Wait()
	if list := r.List(); len(list) != 40 || list[0].Name != "t00" || list[39].Name != "t39" || calls.Load() != 8 {
		t.Errorf("after 8 indexes: %d tools (%s…%s), %d callbacks", len(list), list[0].Name, list[len(list)-1].Name, calls.Load())
	}
}

// TestMCPToolCache: a server's tool list is cached after it started; the next session
// offers those tools before the server is up (Warm does not wait for a cached server), a
// call to one waits for that server alone; a changed command line is another cache entry.
func TestMCPToolCache(t *testing.T) {
	env := registrytest.Env(t, nil)
	manifest := func(delay string) string {
		return `{"name":"slowpoke","version":"1.0.0","mcpServers":{"test":{"command":"` + mcpServerBin + `","args":["-delay","` + delay + `"]}}}`
	}
	writeExtension(t, env, "slowpoke", manifest("1s"))
	load := func() *Catalog {
		r, errs := Load(context.Background(), env, registry.Discover(env, registry.Providers), Options{Environ: []string{"PATH=/usr/bin:/bin"}})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return r
	}
	// first session: nothing cached, so Warm waits for the server, then the list is cached
	r := load()
	if errs := r.Warm(context.Background(), nil); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, ok := r.Lookup("mcp_test_echo"); !ok {
		t.Fatalf("tools after the first start: %s", names(r))
	}
	for deadline := time.Now().Add(5 * time.Second); readMCPCache(r.servers[0].cacheFile) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no cache written")
		}
	}
	r.Close()

	// second session: the cached list is offered at once, while the server boots (1 s)
	r = load()
	defer r.Close()
	t0 := time.Now()
	if errs := r.Warm(context.Background(), nil); len(errs) > 0 {
		t.Fatal(errs)
	}
	if took := time.Since(t0); took > 500*time.Millisecond {
		t.Errorf("Warm waited %v for a server whose list is cached", took)
	}
	if _, ok := r.Lookup("mcp_test_echo"); !ok {
		t.Fatalf("cached tools not offered: %s", names(r))
	}
	res, err := r.Call(context.Background(), "mcp_test_echo", json.RawMessage(`{"text":"cached"}`), CallOptions{})
	if err != nil || res.Text != "echo: cached" {
		t.Fatalf("a call to a cached tool: %+v %v", res, err)
	}

	// another command line is another entry: nothing cached for it
	writeExtension(t, env, "slowpoke", manifest("0s"))
	r2 := load()
	defer r2.Close()
	if r2.servers[0].cached != nil {
		t.Error("a changed command line reused the old cache")
	}
}

// TestUnknownToolNamesTheUnloadedPlugin: a tool whose plugin did not load is not just "no
// tool": the error says which plugin did not load and why (by name when the tool cache knows
// its tools; else every plugin that did not load is listed).
func TestUnknownToolNamesTheUnloadedPlugin(t *testing.T) {
	env := withExtensions(t, "kit")
	r := load(t, env, Options{}) // the echo plugin starts: its tools are cached
	r.Close()
	// the plugin breaks (a new build that exits at once), its cache still names its tools
	dir := filepath.Join(env.GeminiExtensionsDir(), "kit", "bin")
	os.WriteFile(filepath.Join(dir, "echo.new"), []byte("#!/bin/sh\nexit 3\n"), 0o755)
	os.Rename(filepath.Join(dir, "echo.new"), filepath.Join(dir, "echo"))
	// and a plugin that never started: which tools it brings is not known
	registrytest.Extension(t, env, "broken", `{"name":"broken","version":"1.0.0","plugins":{"tools":{"binary":"${extensionPath}/bin/tools"}}}`,
		map[string][]byte{"bin/tools": []byte("#!/bin/sh\nexit 3\n")})
	os.Chmod(filepath.Join(env.GeminiExtensionsDir(), "broken", "bin", "tools"), 0o755)
	for _, c := range []struct {
		name string
		opts Options
		tool string
		want string
	}{
		{"cached names", Options{NoCache: false}, "echo", `no tool "echo": plugin echo of extension kit did not load: `},
		{"unknown tool", Options{}, "frobnicate", `no tool "frobnicate" (what did not start: plugin tools of extension broken did not load: `},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Environ = []string{"PATH=/usr/bin:/bin"}
			r, errs := Load(context.Background(), env, registry.Discover(env, registry.Providers), c.opts)
			defer r.Close()
			if len(errs) == 0 {
				t.Fatal("the broken plugin loaded")
			}
			_, err := r.Call(context.Background(), c.tool, nil, CallOptions{})
			var unknown *UnknownToolError
			if !errors.As(err, &unknown) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
}

// TestHookAskConfirms: a call a hook wants confirmed is asked even where the policy allows
// it, with the hook's reason in the question; the answer decides.
func TestHookAskConfirms(t *testing.T) {
	env := withExtensions(t, "kit")
	script := &prompt.Script{Answers: []string{"y", "n"}}
	svc := &Services{Prompt: script}
	r := load(t, env, Options{Services: svc, Policy: &policy.Engine{Mode: policy.ModeYolo, Trusted: true}})
	opts := CallOptions{Confirm: "BeforeTool hook of kit: it echoes to prod"}
	if res, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), opts); err != nil || res.Text != "hi" {
		t.Fatalf("approved: %v %+v", err, res)
	}
	if asked := script.Asked; len(asked) != 1 || !strings.HasPrefix(asked[0], "A hook asks you to confirm this (BeforeTool hook of kit: it echoes to prod).\necho (") {
		t.Errorf("question %q", asked)
	}
	if _, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), opts); !errors.Is(err, ErrDenied) {
		t.Errorf("declined: %v", err)
	}
	if _, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), CallOptions{}); err != nil || len(script.Asked) != 2 {
		t.Errorf("without the hook, yolo asks nothing: %v, asked %d", err, len(script.Asked))
	}
}
