package tools

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globRel lists the files whose workspace-relative path matches pattern (.git left out,
// and what .gitignore and .geminiignore ignore when ignore is set).
func (c *coreBackend) globRel(pattern string, caseSensitive, ignore bool) ([]string, error) {
	var out []string
	opts := []doublestar.GlobOption{}
	if !caseSensitive {
		opts = append(opts, doublestar.WithCaseInsensitive())
	}
	err := doublestar.GlobWalk(c.root.FS(), filepath.ToSlash(pattern), func(p string, d fs.DirEntry) error {
		if d.IsDir() || (ignore && c.ignore.Ignored(p, false)) || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") {
			return nil
		}
		out = append(out, filepath.FromSlash(p))
		return nil
	}, opts...)
	slices.Sort(out)
	return out, err
}

func (c *coreBackend) glob(a globArgs) (string, error) {
	base, err := c.rel(a.DirPath)
	if err != nil {
		return "", err
	}
	pattern := a.Pattern
	if rel, err := c.rel(pattern); err == nil && filepath.IsAbs(pattern) {
		pattern, base = rel, "." // an absolute pattern inside the workspace
	}
	if base != "." {
		pattern = filepath.Join(base, pattern)
	}
	respect := (a.RespectGitIgnore == nil || *a.RespectGitIgnore) && (a.RespectGeminiIgnore == nil || *a.RespectGeminiIgnore)
	matches, err := c.globRel(pattern, a.CaseSensitive, respect)
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return fmt.Sprintf("no files match %s", a.Pattern), nil
	}
	var b strings.Builder
	for i, m := range matches {
		if i == coreMaxPaths {
			fmt.Fprintf(&b, "[%d more left out]\n", len(matches)-i)
			break
		}
		b.WriteString(c.abs(m) + "\n")
	}
	return b.String(), nil
}
