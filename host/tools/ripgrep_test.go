package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/registry/registrytest"
)

// searchTree makes a workspace of n Go files (every tenth with a TODO), an ignored build
// folder and log file, and returns core backends searching it with ripgrep and in Go.
func searchTree(t testing.TB, n int) (rg, inGo *coreBackend) {
	env := registrytest.Env(t, nil)
	ws := env.Cwd
	for i := 0; i < n; i++ {
		dir := filepath.Join(ws, "pkg", fmt.Sprintf("p%02d", i%40))
		os.MkdirAll(dir, 0o755)
		body := fmt.Sprintf("package p\n\nfunc F%d() int {\n\treturn %d\n}\n", i, i)
		if i%10 == 0 {
			body += "// TODO: tidy\n"
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body), 0o644)
	}
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	os.WriteFile(filepath.Join(ws, "build", "gen.go"), []byte("// TODO: generated\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "debug.log"), []byte("TODO in a log\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("build/\n*.log\n"), 0o644)
	path := ripgrepPath([]string{"PATH=/usr/bin:/bin:/usr/local/bin"}, ws)
	if path == "" {
		t.Skip("ripgrep is not installed (make tools installs it)")
	}
	_, rg, err := coreTools(ws, filepath.Join(env.Home, "GEMINI.md"), nil, nil, path)
	if err != nil {
		t.Fatal(err)
	}
	_, inGo, _ = coreTools(ws, filepath.Join(env.Home, "GEMINI.md"), nil, nil, "")
	t.Cleanup(func() { rg.close(); inGo.close() })
	return rg, inGo
}

// TestRipgrepMatchesGo: both engines give the same answer, ignored files left out.
func TestRipgrepMatchesGo(t *testing.T) {
	rg, inGo := searchTree(t, 120)
	for _, a := range []searchArgs{
		{Pattern: "TODO"}, {Pattern: `return 1\d$`}, {Pattern: "F7", IncludePattern: "*.go"}, {Pattern: "nothing-here"},
		{Pattern: "TODO", DirPath: "pkg/p00"}, {Pattern: "todo"}, {Pattern: "todo", CaseSensitive: true},
		{Pattern: "return 1(", FixedStrings: true}, {Pattern: "TODO", NamesOnly: true}, {Pattern: "return", MaxMatchesPerFile: 1, TotalMaxMatches: 7},
		{Pattern: "return", ExcludePattern: "return 1"},
	} {
		fromRg, err1 := rg.search(context.Background(), a)
		fromGo, err2 := inGo.search(context.Background(), a)
		if err1 != nil || err2 != nil || fromRg != fromGo {
			t.Errorf("%+v: ripgrep (%v):\n%s\nGo (%v):\n%s", a, err1, fromRg, err2, fromGo)
		}
	}
}

// BenchmarkSearch compares grep_search's engines on a 3,000-file workspace.
func BenchmarkSearch(b *testing.B) {
	rg, inGo := searchTree(b, 3000)
	for _, c := range []struct {
		name string
		be   *coreBackend
	}{{"go", inGo}, {"ripgrep", rg}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.be.search(context.Background(), searchArgs{Pattern: `TODO|return 29\d\d`}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRipgrepFromTheWorkspaceIsNotRun: an rg the project brings (a bin folder of it on PATH,
// or a relative PATH entry) is never chosen; the Go search answers.
func TestRipgrepFromTheWorkspaceIsNotRun(t *testing.T) {
	env := registrytest.Env(t, nil)
	bin := filepath.Join(env.Cwd, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "rg"), []byte("#!/bin/sh\necho PWNED:1:x\n"), 0o755)
	for _, path := range []string{bin + ":/usr/bin:/bin", "bin:/usr/bin:/bin"} {
		t.Chdir(env.Cwd)
		if got := ripgrepPath([]string{"PATH=" + path}, env.Cwd); got != "" {
			t.Errorf("PATH=%s: chose %s", path, got)
		}
	}
	if got := ripgrepPath([]string{"PATH=/usr/bin:/bin"}, env.Cwd); got != "" && pathx.Within(env.Cwd, got) {
		t.Errorf("chose %s", got)
	}
}
