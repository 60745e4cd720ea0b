package archtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestREADMEIsShort: the README is a README — at most 200 lines, opening with the two
// commands a newcomer runs (make demo, make test); the manual is docs/.
func TestREADMEIsShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > 200 {
		t.Errorf("README.md has %d lines (at most 200): move the detail to docs/", n)
	}
	_, block, ok := strings.Cut(text, "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	lines := strings.SplitN(block, "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "make demo") || !strings.HasPrefix(lines[1], "make test") {
		t.Errorf("README.md's first commands are %q, want make demo then make test", lines[:min(2, len(lines))])
	}
}

// TestArchitectureListsEveryPackage: docs/architecture.md's package table names every
// package `go list ./...` prints (gem's module and pluginsdk's), once, and nothing else.
func TestArchitectureListsEveryPackage(t *testing.T) {
	want := map[string]bool{}
	for _, dir := range []string{root, filepath.Join(root, "pluginsdk")} {
		cmd := exec.Command("go", "list", "./...")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", dir, err)
		}
		for _, p := range strings.Fields(string(out)) {
			want[strings.TrimPrefix(p, module+"/")] = true
		}
	}
	if len(want) < 60 {
		t.Fatalf("go list printed only %d packages", len(want))
	}
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Packages\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Packages section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]int{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			listed[m[1]]++
		}
	}
	for p := range want {
		if listed[p] == 0 {
			t.Errorf("docs/architecture.md's package table does not list %s: add a row (or add it to a row)", p)
		}
	}
	for p, n := range listed {
		switch {
		case !want[p]:
			t.Errorf("docs/architecture.md's package table lists %s, which go list does not print", p)
		case n > 1:
			t.Errorf("docs/architecture.md's package table lists %s %d times", p, n)
		}
	}
}

// TestDocsLinksResolve: every relative link in README.md and docs/ (the generated reference
// too) leads to a file that exists, and to a heading of it when it names one.
func TestDocsLinksResolve(t *testing.T) {
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("only %d Markdown files found", len(files))
	}
	links := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for _, target := range markdownLinks(t, file) {
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue // http(s), mailto: not checked here
			}
			links++
			path, fragment, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, target)
				continue
			}
			if fragment != "" && !headingAnchors(t, dest)[fragment] {
				t.Errorf("%s links to %s: %s has no heading #%s", rel, target, path, fragment)
			}
		}
	}
	if links < 30 {
		t.Fatalf("only %d relative links found: the check is broken", links)
	}
}

var (
	linkPattern = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// markdownLinks lists the targets of a Markdown file's links outside code.
func markdownLinks(t *testing.T, path string) []string {
	var targets []string
	inFence := false
	for _, line := range readLines(t, path) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range linkPattern.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			targets = append(targets, m[1])
		}
	}
	return targets
}

// headingAnchors gives the fragments GitHub makes of a file's headings: lower case, spaces
// as dashes, punctuation but dashes and underscores dropped, -1, -2 … on repeats.
func headingAnchors(t *testing.T, path string) map[string]bool {
	anchors := map[string]bool{}
	inFence := false
	for _, line := range readLines(t, path) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if inFence || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n := 1; anchors[a]; n++ {
			a = b.String() + "-" + string(rune('0'+n))
		}
		anchors[a] = true
	}
	return anchors
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	return lines
}
