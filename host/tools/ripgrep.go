package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/pathx"
)

// ripgrepPath is rg on the user's PATH, resolved, "" when there is none — or when it lies
// in the workspace (a relative PATH entry, or a project bin folder on PATH): a cloned
// project's own "rg" must not run because the model searched. search_file_content then
// searches in Go.
func ripgrepPath(environ []string, workspace string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		v, ok := strings.CutPrefix(environ[i], "PATH=")
		if !ok {
			continue
		}
		rg := toolchain.LookPath("rg", v)
		if rg == "" {
			return ""
		}
		abs, err := filepath.Abs(rg)
		if err != nil {
			return ""
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || pathx.Within(workspace, real) {
			return ""
		}
		return real
	}
	return ""
}

// searchRipgrep runs search_file_content with ripgrep, sandboxed: it reads the workspace
// and its own binary, writes nothing, has no network. It respects .gitignore (in a git
// repository or not) and .geminiignore. ok is false when rg could not answer (a pattern it
// reads differently, a failure): the Go search runs then.
func (c *coreBackend) searchRipgrep(ctx context.Context, a searchArgs, base string) (text string, ok bool) {
	args := []string{"--line-number", "--no-heading", "--color", "never", "--no-require-git", "--max-columns", "1000", "--max-filesize", fmt.Sprint(coreMaxFile), "-g", "!node_modules/"}
	if _, err := c.root.Stat(".geminiignore"); err == nil {
		args = append(args, "--ignore-file", ".geminiignore")
	}
	if a.Include != "" {
		args = append(args, "-g", a.Include)
	}
	args = append(args, "-e", a.Pattern, "--", filepath.ToSlash(base))
	pol := sandbox.Policy{Read: append(append([]string{}, sandbox.SystemRead...), c.dir, filepath.Dir(c.rg)), Write: sandbox.SystemWrite, Limits: sandbox.DefaultLimits}
	out := &bytes.Buffer{}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	code, err := sandbox.RunContext(ctx, sandbox.Program{Path: c.rg, Args: args, Env: []string{"PATH=/usr/bin:/bin"}, Dir: c.dir, Name: "ripgrep", Policy: &pol},
		sandbox.Streams{Stdin: strings.NewReader(""), Stdout: out, Stderr: &bytes.Buffer{}}, 200*time.Millisecond)
	switch {
	case err != nil || ctx.Err() != nil:
		return "", false
	case code == 1:
		return fmt.Sprintf("no match for %q", a.Pattern), true
	case code != 0:
		return "", false
	}
	type hit struct {
		path string
		line int
		text string
	}
	var hits []hit
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		path, rest, ok1 := strings.Cut(sc.Text(), ":")
		line, match, ok2 := strings.Cut(rest, ":")
		n, err := strconv.Atoi(line)
		if !ok1 || !ok2 || err != nil {
			continue
		}
		hits = append(hits, hit{strings.TrimPrefix(path, "./"), n, match})
	}
	// rg searches files in parallel: its order is not stable; the model gets them by path.
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].path != hits[j].path {
			return hits[i].path < hits[j].path
		}
		return hits[i].line < hits[j].line
	})
	var b strings.Builder
	for i, h := range hits {
		if i == coreMaxMatches {
			fmt.Fprintf(&b, "[stopped at %d matches]\n", coreMaxMatches)
			break
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", c.abs(filepath.FromSlash(h.path)), h.line, h.text)
	}
	return b.String(), true
}
