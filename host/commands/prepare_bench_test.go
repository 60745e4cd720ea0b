package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// runHome is a home with hello (an executable command) and n other extensions like
// scripts/gen-extensions.sh's, each agreed to in gem (a receipt, a tenth of them with a write
// root granted), and a PATH with a folder of the user's own (~/.local/bin): what makes gem
// run look for the folders programs may write.
func runHome(b *testing.B, n int) registry.Env {
	b.Helper()
	var env registry.Env
	env = registrytest.Env(b, func(k string) string {
		if k == "PATH" {
			return filepath.Join(env.Home, ".local/bin") + ":/usr/bin:/bin"
		}
		return ""
	})
	os.MkdirAll(filepath.Join(env.Home, ".local/bin"), 0o755)
	registrytest.Extension(b, env, "hello", `{"name": "hello", "version": "1.0.0", "commands": {"hello": {"type": "executable", "binary": "${extensionPath}/bin/hello"}}}`,
		map[string][]byte{"bin/hello": []byte("#!/bin/sh\necho hello\n")})
	for i := range n {
		registrytest.Extension(b, env, fmt.Sprintf("ext-%04d", i), fmt.Sprintf(`{
  "name": "ext-%04d",
  "version": "1.%d.0",
  "description": "Extension number %d, with an MCP server",
  "mcpServers": {"srv": {"command": "node", "args": ["${extensionPath}/dist/server.js"], "env": {"A": "b"}}},
  "contextFileName": "GEMINI.md"
}`, i, i, i), nil)
	}
	for i, x := range registry.Discover(env, registry.Providers).All {
		var g registry.Grant
		if i%10 == 0 && x.Name != "hello" {
			g.Write = []string{filepath.Join(env.Home, "notes", x.Name)}
		}
		if err := registry.RecordConsent(env, x, g); err != nil {
			b.Fatal(err)
		}
	}
	return env
}

// prepareRun is what gem run does before it starts the helper: discovery, the command
// table, and the command's environment and sandbox.
func prepareRun(b *testing.B, env registry.Env) {
	t := NewTable(registry.Discover(env, registry.Providers))
	if _, err := Prepare(env, env.Cwd, t, "hello", []string{"world"}, []string{"PATH=" + env.Getenv("PATH")}, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPrepareRun1000: preparing gem run with 1,000 extensions installed against 20,
// interleaved in one run (drift stays out of the ratio; target: about 1, its cost
// independent of how many extensions are installed).
func BenchmarkPrepareRun1000(b *testing.B) {
	small, large := runHome(b, 20), runHome(b, 1000)
	time.Sleep(2100 * time.Millisecond) // the discovery index trusts manifests older than 2 s
	prepareRun(b, small)                // the first run writes the indexes, as any earlier use of gem does
	prepareRun(b, large)
	var tSmall, tLarge time.Duration
	for b.Loop() {
		start := time.Now()
		prepareRun(b, small)
		mid := time.Now()
		prepareRun(b, large)
		tSmall, tLarge = tSmall+mid.Sub(start), tLarge+time.Since(mid)
	}
	b.ReportMetric(float64(tSmall.Microseconds())/float64(b.N)/1000, "ms/20")
	b.ReportMetric(float64(tLarge.Microseconds())/float64(b.N)/1000, "ms/1000")
	b.ReportMetric(float64(tLarge)/float64(tSmall), "ratio")
}
