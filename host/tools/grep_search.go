package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

func (c *coreBackend) search(ctx context.Context, a searchArgs) (string, error) {
	expr := a.Pattern
	if a.FixedStrings {
		expr = regexp.QuoteMeta(expr)
	}
	if !a.CaseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("pattern %q is not a regular expression: %v", a.Pattern, err)
	}
	var exclude *regexp.Regexp
	if a.ExcludePattern != "" {
		if exclude, err = regexp.Compile(a.ExcludePattern); err != nil {
			return "", fmt.Errorf("exclude_pattern %q is not a regular expression: %v", a.ExcludePattern, err)
		}
	}
	base, err := c.rel(a.DirPath)
	if err != nil {
		return "", err
	}
	before, after := max(a.Before, a.Context), max(a.After, a.Context)
	var hits []searchHit
	found := false
	if c.rg != "" && before == 0 && after == 0 {
		hits, found = c.searchRipgrep(ctx, a, base)
	}
	if !found {
		if hits, err = c.searchGo(re, exclude, a, base, before, after); err != nil {
			return "", err
		}
	}
	return c.formatHits(hits, a, exclude), nil
}

// searchHit is a line grep_search answers with: a match, or a line of context around one.
type searchHit struct {
	path    string // slash-separated, relative to the workspace
	line    int
	text    string
	context bool
}

// searchLimit is how many matches grep_search answers with: total_max_matches, 100 by
// default (Gemini CLI's), never more than coreMaxMatches*10.
func searchLimit(a searchArgs) int {
	if a.TotalMaxMatches > 0 {
		return min(a.TotalMaxMatches, coreMaxMatches*10)
	}
	return 100
}

// searchGo searches in Go (no ripgrep, or context lines asked for).
func (c *coreBackend) searchGo(re, exclude *regexp.Regexp, a searchArgs, base string, before, after int) ([]searchHit, error) {
	var hits []searchHit
	limit, found := searchLimit(a)+1, 0 // one more: formatHits says there were more
	root := filepath.ToSlash(base)
	err := fs.WalkDir(c.root.FS(), root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found >= limit {
			return nil
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == ".git" || (!a.NoIgnore && (name == "node_modules" || c.ignore.Ignored(p, true)))) {
				return fs.SkipDir
			}
			return nil
		}
		if !a.NoIgnore && c.ignore.Ignored(p, false) {
			return nil
		}
		if a.IncludePattern != "" {
			if ok, _ := doublestar.Match(a.IncludePattern, p); !ok {
				if ok, _ := doublestar.Match(a.IncludePattern, d.Name()); !ok {
					return nil
				}
			}
		}
		data, err := c.read(filepath.FromSlash(p))
		if err != nil || isBinary(data) {
			return nil
		}
		lines := strings.Split(string(data), "\n")
		inFile, shownTo := 0, -1 // matches in this file; the last line index added
		for i, line := range lines {
			if !re.MatchString(line) || (exclude != nil && exclude.MatchString(line)) {
				continue
			}
			for k := max(i-before, shownTo+1); k < i; k++ {
				hits = append(hits, searchHit{p, k + 1, lines[k], true})
			}
			hits = append(hits, searchHit{p, i + 1, line, false})
			shownTo = i
			for k := i + 1; k <= min(i+after, len(lines)-1); k++ {
				if re.MatchString(lines[k]) && (exclude == nil || !exclude.MatchString(lines[k])) {
					break // the next match shows itself
				}
				hits = append(hits, searchHit{p, k + 1, lines[k], true})
				shownTo = k
			}
			found++
			inFile++
			if found >= limit || (a.MaxMatchesPerFile > 0 && inFile >= a.MaxMatchesPerFile) {
				break
			}
		}
		return nil
	})
	return hits, err
}

// formatHits is grep_search's answer: "path:line: text" per match ("path-line- text" for
// context, "--" between groups), or the paths alone with names_only; the caps applied.
func (c *coreBackend) formatHits(hits []searchHit, a searchArgs, exclude *regexp.Regexp) string {
	limit := searchLimit(a)
	var b strings.Builder
	matches, inFile, lastPath, lastLine := 0, 0, "", 0
	var names []string
	for _, h := range hits {
		if !h.context && exclude != nil && exclude.MatchString(h.text) {
			continue
		}
		if h.path != lastPath {
			inFile = 0
		}
		if !h.context {
			if a.MaxMatchesPerFile > 0 && inFile >= a.MaxMatchesPerFile {
				continue
			}
			if matches == limit {
				fmt.Fprintf(&b, "[stopped at %d matches: total_max_matches gives more]\n", limit)
				break
			}
			matches++
			inFile++
			if len(names) == 0 || names[len(names)-1] != h.path {
				names = append(names, h.path)
			}
		}
		if lastPath != "" && (h.path != lastPath || h.line > lastLine+1) && (a.Context+a.After+a.Before) > 0 {
			b.WriteString("--\n")
		}
		sep := ":"
		if h.context {
			sep = "-"
		}
		fmt.Fprintf(&b, "%s%s%d%s %s\n", c.abs(filepath.FromSlash(h.path)), sep, h.line, sep, h.text)
		lastPath, lastLine = h.path, h.line
	}
	if matches == 0 {
		return fmt.Sprintf("no match for %q", a.Pattern)
	}
	if a.NamesOnly {
		var nb strings.Builder
		for _, n := range names {
			nb.WriteString(c.abs(filepath.FromSlash(n)) + "\n")
		}
		return nb.String()
	}
	return b.String()
}
