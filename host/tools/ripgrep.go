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

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/pathx"
)

// ripgrepPath is rg on the user's PATH, resolved, "" when there is none — or when it lies
// in the workspace (a relative PATH entry, or a project bin folder on PATH): a cloned
// project's own "rg" must not run because the model searched. grep_search then
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

// searchRipgrep runs grep_search with ripgrep, sandboxed: it reads the workspace and its
// own binary, writes nothing, has no network. It respects .gitignore (in a git repository or
// not) and .geminiignore unless no_ignore. ok is false when rg could not answer (a pattern
// it reads differently, a failure): the Go search runs then. Hits come sorted by path and
// line (rg's own order is not stable); formatHits applies exclude_pattern and the caps.
func (c *coreBackend) searchRipgrep(ctx context.Context, a searchArgs, base string) (hits []searchHit, ok bool) {
	args := []string{"--line-number", "--no-heading", "--color", "never", "--no-require-git", "--max-columns", "1000", "--max-filesize", fmt.Sprint(coreMaxFile), "-g", "!.git/"}
	if a.NoIgnore {
		args = append(args, "--no-ignore")
	} else {
		args = append(args, "-g", "!node_modules/")
		if _, err := c.root.Stat(".geminiignore"); err == nil {
			args = append(args, "--ignore-file", ".geminiignore")
		}
	}
	if !a.CaseSensitive {
		args = append(args, "-i")
	}
	if a.FixedStrings {
		args = append(args, "-F")
	}
	if a.IncludePattern != "" {
		args = append(args, "-g", a.IncludePattern)
	}
	args = append(args, "-e", a.Pattern, "--", filepath.ToSlash(base))
	pol := sandbox.Policy{Read: append(append([]string{}, sandbox.SystemRead...), c.dir, filepath.Dir(c.rg)), Write: sandbox.SystemWrite, Limits: sandbox.DefaultLimits}
	out := &bytes.Buffer{}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	code, err := c.launcher.Run(ctx, launch.Tool, sandbox.Program{Path: c.rg, Args: args, Env: []string{"PATH=/usr/bin:/bin"}, Dir: c.dir, Name: "ripgrep", Policy: &pol},
		sandbox.Streams{Stdin: strings.NewReader(""), Stdout: out, Stderr: &bytes.Buffer{}})
	switch {
	case err != nil || ctx.Err() != nil:
		return nil, false
	case code == 1:
		return nil, true
	case code != 0:
		return nil, false
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		path, rest, ok1 := strings.Cut(sc.Text(), ":")
		line, match, ok2 := strings.Cut(rest, ":")
		n, err := strconv.Atoi(line)
		if !ok1 || !ok2 || err != nil {
			continue
		}
		hits = append(hits, searchHit{path: strings.TrimPrefix(path, "./"), line: n, text: match})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].path != hits[j].path {
			return hits[i].path < hits[j].path
		}
		return hits[i].line < hits[j].line
	})
	return hits, true
}
