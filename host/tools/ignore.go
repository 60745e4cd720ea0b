package tools

import (
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignorer tells which paths of a workspace its .gitignore and .geminiignore files ignore,
// as git and Gemini CLI read them (a file's patterns apply below its folder; later and
// deeper patterns win, ! re-includes). .git is always ignored. The files are read when a
// path below their folder is first asked about, through fsys (the workspace's os.Root, so a
// link out of it is not followed). The glob, grep_search and read_many_files core
// tools and @folder in prompts leave ignored files out.
type Ignorer struct {
	fsys     fs.FS
	mu       sync.Mutex
	loaded   map[string]bool
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
}

// NewIgnorer reads the ignore files of the workspace fsys.
func NewIgnorer(fsys fs.FS) *Ignorer {
	return &Ignorer{fsys: fsys, loaded: map[string]bool{}, matcher: gitignore.NewMatcher(nil)}
}

// ignoreFiles are read in each folder, in this order.
var ignoreFiles = []string{".gitignore", ".geminiignore"}

// Ignored reports whether rel (a slash-separated path relative to the workspace) is ignored.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	if rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	if parts[0] == ".git" {
		return true
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	for i := 0; i < len(parts); i++ {
		ig.load(parts[:i])
	}
	return ig.matcher.Match(parts, isDir)
}

// load reads the ignore files of the folder dir (path parts) once.
func (ig *Ignorer) load(dir []string) {
	dir = append([]string(nil), dir...) // a copy: the caller's slice is not appended to
	key := strings.Join(dir, "/")
	if ig.loaded[key] {
		return
	}
	ig.loaded[key] = true
	added := false
	for _, name := range ignoreFiles {
		data, err := fs.ReadFile(ig.fsys, path.Join(".", strings.Join(dir, "/"), name))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, append([]string{}, dir...)))
			added = true
		}
	}
	if added {
		ig.matcher = gitignore.NewMatcher(ig.patterns)
	}
}
