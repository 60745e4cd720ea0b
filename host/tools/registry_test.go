package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/registry"
)

var echoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gem-tools-test")
	if err != nil {
		panic(err)
	}
	echoBin = filepath.Join(dir, "echoplugin")
	if out, err := exec.Command("go", "build", "-o", echoBin, "../plugins/testdata/echoplugin").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// withExtensions makes a hermetic home with a user extension per name, each with the echo
// plugin, and returns its Env.
func withExtensions(t testing.TB, names ...string) registry.Env {
	t.Helper()
	home := t.TempDir()
	env := registry.NewEnv(home, home, func(string) string { return "" })
	data, err := os.ReadFile(echoBin)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		dir := filepath.Join(env.GeminiExtensionsDir(), name)
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", "echo"), data, 0o755); err != nil {
			t.Fatal(err)
		}
		m := `{"name":"` + name + `","version":"1.0.0","plugins":{"echo":{"binary":"${extensionPath}/bin/echo"}}}`
		if err := os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func load(t testing.TB, env registry.Env, opts Options) *Registry {
	t.Helper()
	opts.Environ = []string{"PATH=/usr/bin:/bin"}
	r, errs := Load(context.Background(), env, registry.Discover(env, registry.Providers), opts)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(r.Close)
	return r
}

func names(r *Registry) string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name+"/"+t.Kind())
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
	res, err := second.Call(context.Background(), "echo", json.RawMessage(`{"text":"lazy"}`), pluginsdk.CallOptions{})
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
		res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args), pluginsdk.CallOptions{})
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
	if _, err := r.Call(context.Background(), "nosuch", nil, pluginsdk.CallOptions{}); err == nil || !strings.Contains(err.Error(), "gem tools list") {
		t.Fatalf("unknown tool: %v", err)
	}
}

// TestResultConversion: structured output and typed errors come through.
func TestResultConversion(t *testing.T) {
	r := load(t, withExtensions(t, "one"), Options{})
	res, err := r.Call(context.Background(), "echo", json.RawMessage(`{"text":"s","times":2}`), pluginsdk.CallOptions{})
	if err != nil || string(res.Structured) != `{"times":2}` || res.DisplayText() != "ss" {
		t.Fatalf("structured: %+v %v", res, err)
	}
	res, err = r.Call(context.Background(), "fail", nil, pluginsdk.CallOptions{})
	if err != nil || res.Error == nil || res.Error.Type != "execution" {
		t.Fatalf("typed error: %+v %v", res, err)
	}
}

// BenchmarkHostCall: a warm call through the whole host path (registry lookup, schema
// validation, session plugin, gRPC, result conversion), with p50 and p99.
func BenchmarkHostCall(b *testing.B) {
	r := load(b, withExtensions(b, "one"), Options{})
	args := json.RawMessage(`{"text":"x","times":1}`)
	if _, err := r.Call(context.Background(), "echo", args, pluginsdk.CallOptions{}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		res, err := r.Call(context.Background(), "echo", args, pluginsdk.CallOptions{})
		if err != nil || res.Text != "x" {
			b.Fatal(res, err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}
