package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
	"github.com/google/jsonschema-go/jsonschema"
)

// Core tools are the tools Gemini CLI ships, under its names and parameters so prompts and
// policies carry over: read_file, read_many_files, list_directory, glob,
// search_file_content, write_file and replace work on files, confined to the workspace by an
// os.Root (no path, .. or symbolic link leads out of it; the kernel's openat2 where there is
// one); save_memory appends a fact to the user's GEMINI.md (the one file outside the
// workspace they write); write_todos keeps a plan. They run in gem's process and go through
// the same policy, confirmation, hooks and audit as extension tools: reading and searching
// are kinds read and search, writing, replacing and remembering kind edit (asked in the
// default mode). They never write what sandboxed programs may not change either
// (sandbox.ProtectedNames: .gem, .gemini, .git/hooks, GEMINI.md …) nor through a symbolic
// link, so an approved edit cannot widen what the next session may do (a policy, a setting,
// a hook). glob, search_file_content and read_many_files's patterns leave out what the
// workspace's .gitignore and .geminiignore files ignore (Ignorer). web_fetch (webfetch.go)
// fetches public pages only. Their extension is "gem". Gemini CLI's shell tool is left to
// extensions (shell-tools), and google_web_search is not offered.

// Caps on what a core tool reads or returns.
const (
	coreMaxFile    = 4 << 20 // a file read whole
	coreMaxLines   = 2000    // read_file's default line limit, as Gemini CLI's
	coreMaxMatches = 200     // search_file_content
	coreMaxPaths   = 500     // glob, read_many_files
)

type (
	readFileArgs struct {
		AbsolutePath string `json:"absolute_path" jsonschema:"the file's absolute path, inside the workspace"`
		Offset       int    `json:"offset,omitempty" jsonschema:"the first line to return, from 0"`
		Limit        int    `json:"limit,omitempty" jsonschema:"how many lines to return (default 2000)"`
	}
	readManyArgs struct {
		Paths []string `json:"paths" jsonschema:"files or glob patterns (** for any depth), relative to the workspace or absolute inside it"`
	}
	listDirArgs struct {
		Path   string   `json:"path" jsonschema:"the folder's absolute path, inside the workspace"`
		Ignore []string `json:"ignore,omitempty" jsonschema:"glob patterns of names to leave out"`
	}
	globArgs struct {
		Pattern string `json:"pattern" jsonschema:"a glob pattern, ** for any depth (src/**/*.go)"`
		Path    string `json:"path,omitempty" jsonschema:"the folder to search in (default: the workspace)"`
	}
	searchArgs struct {
		Pattern string `json:"pattern" jsonschema:"a regular expression (Go syntax) to find in file lines"`
		Path    string `json:"path,omitempty" jsonschema:"the folder to search in (default: the workspace)"`
		Include string `json:"include,omitempty" jsonschema:"a glob of the files to search (*.go, src/**)"`
	}
	writeFileArgs struct {
		FilePath string `json:"file_path" jsonschema:"the file's absolute path, inside the workspace"`
		Content  string `json:"content" jsonschema:"the whole new content"`
	}
	saveMemoryArgs struct {
		Fact string `json:"fact" jsonschema:"a short fact to remember in every later session"`
	}
	todo struct {
		Description string `json:"description" jsonschema:"what to do"`
		Status      string `json:"status" jsonschema:"pending, in_progress, completed or cancelled"`
	}
	writeTodosArgs struct {
		Todos []todo `json:"todos" jsonschema:"the whole list, replacing the last one"`
	}
	replaceArgs struct {
		FilePath             string `json:"file_path" jsonschema:"the file's absolute path, inside the workspace"`
		OldString            string `json:"old_string" jsonschema:"the exact text to replace (empty: create the file)"`
		NewString            string `json:"new_string" jsonschema:"the text to put in its place"`
		ExpectedReplacements int    `json:"expected_replacements,omitempty" jsonschema:"how many occurrences to replace (default 1)"`
	}
)

// coreSpec is one core tool: its description, and a run function taking its arguments
// decoded (their JSON Schema is derived from the same type).
type coreSpec struct {
	name, description string
	kind              Kind
	args              func(*jsonschema.ForOptions) (*jsonschema.Schema, error)
	run               func(ctx context.Context, c *coreBackend, raw json.RawMessage) (string, error)
}

func core[A any](name, description string, kind Kind, run func(*coreBackend, A) (string, error)) coreSpec {
	return coreCtx(name, description, kind, func(c *coreBackend, _ context.Context, a A) (string, error) { return run(c, a) })
}

// coreCtx is core for a tool that waits on the outside world (and so takes the call's
// context).
func coreCtx[A any](name, description string, kind Kind, run func(*coreBackend, context.Context, A) (string, error)) coreSpec {
	return coreSpec{name, description, kind, jsonschema.For[A], func(ctx context.Context, c *coreBackend, raw json.RawMessage) (string, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return "", err
		}
		return run(c, ctx, a)
	}}
}

// coreSpecs are the core tools.
var coreSpecs = []coreSpec{
	core("read_file", "Reads a file of the workspace (text: lines offset..offset+limit; a binary file is described).", KindRead, (*coreBackend).readFile),
	core("read_many_files", "Reads several files of the workspace, named or by glob, each under a '--- path ---' header.", KindRead, (*coreBackend).readMany),
	core("list_directory", "Lists a folder of the workspace: subfolders first ([DIR]), then files.", KindRead, (*coreBackend).listDirectory),
	core("glob", "Finds files of the workspace whose path matches a glob pattern (** for any depth).", KindSearch, (*coreBackend).glob),
	coreCtx("search_file_content", "Searches the workspace's files for a regular expression; answers path:line: text.", KindSearch, (*coreBackend).search),
	core("write_file", "Writes a file of the workspace (created, or replaced whole).", KindEdit, (*coreBackend).writeFile),
	core("replace", "Replaces exact text in a file of the workspace (expected_replacements occurrences, default 1).", KindEdit, (*coreBackend).replace),
	core("save_memory", "Remembers a fact for every later session: it is added to the user's GEMINI.md under \"## Gemini Added Memories\".", KindEdit, (*coreBackend).saveMemory),
	core("write_todos", "Keeps the plan of a longer task as a todo list (the whole list each time); shown to the user.", KindThink, (*coreBackend).writeTodos),
	coreCtx("web_fetch", "Fetches the http(s) URLs named in prompt (up to 20; public addresses only) and returns their text, for the request the prompt makes.", KindFetch, (*coreBackend).webFetch),
}

// coreBackend runs the core tools in one workspace.
type coreBackend struct {
	dir        string // the workspace, absolute
	root       *os.Root
	memoryFile string // the user's context file save_memory appends to
	mu         sync.Mutex
	todos      []todo
	web        *webFetcher
	ignore     *Ignorer
	beforeOpen func(rel string) // tests: runs between a folder's check and its opening
	rg         string           // ripgrep, when the user has it
}

// coreTools makes the core tools named in enabled (every one when enabled is nil) for the
// workspace dir.
func coreTools(dir, memoryFile string, enabled []string, web *webFetcher, rg string) ([]*Tool, *coreBackend, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("core tools: the workspace %s: %w", dir, err)
	}
	c := &coreBackend{dir: dir, root: root, memoryFile: memoryFile, web: web, ignore: NewIgnorer(root.FS()), rg: rg}
	var out []*Tool
	for _, cs := range coreSpecs {
		if enabled != nil && !slices.Contains(enabled, cs.name) {
			continue
		}
		schema, err := cs.args(nil)
		if err != nil {
			return nil, nil, err
		}
		raw, _ := json.Marshal(schema)
		resolved, err := schema.Resolve(nil)
		if err != nil {
			return nil, nil, err
		}
		spec := Spec{Name: cs.name, Description: cs.description, Kind: cs.kind, InputSchema: raw}
		out = append(out, &Tool{Name: cs.name, Declared: cs.name, base: cs.name, Extension: "gem", Spec: spec, schema: schema, resolved: resolved, backend: c})
	}
	return out, c, nil
}

func (c *coreBackend) call(ctx context.Context, declared string, args json.RawMessage, _ CallOptions) (*Result, error) {
	for _, cs := range coreSpecs {
		if cs.name != declared {
			continue
		}
		text, err := cs.run(ctx, c, args)
		if err != nil {
			typ := ErrorExecution
			var pe *pathError
			switch {
			case errors.As(err, &pe):
				typ = ErrorPermissionDenied
			case errors.Is(err, fs.ErrNotExist):
				typ = ErrorNotFound
			}
			return &Result{Text: err.Error(), Error: &ResultError{Type: typ, Message: err.Error()}}, nil
		}
		return &Result{Text: text}, nil
	}
	return nil, &UnknownToolError{Name: declared}
}

func (c *coreBackend) close() { c.root.Close() }

// pathError: a path outside the workspace, or one the core tools may not write.
type pathError struct{ path, why string }

func (e *pathError) Error() string {
	if e.why != "" {
		return e.path + " " + e.why
	}
	return fmt.Sprintf("%s is outside the workspace: core tools read and write inside it only", e.path)
}

// writable refuses a write that could widen what programs may do next: a path with a
// protected component at any depth (sandbox.IsProtected: any .git, gem's and Gemini CLI's
// configuration, agents' and editors' settings, context files, .env*, shell rc files — what
// sandboxed programs cannot change either), and a path
// through a symbolic link (which could lead to one of them).
func (c *coreBackend) writable(rel string) error {
	if name, ok := sandbox.ProtectedComponent(rel); ok {
		return &pathError{c.abs(rel), "is protected (" + name + " configures gem, git or another tool): core tools do not write it; change it yourself"}
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if st, err := c.root.Lstat(prefix); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return &pathError{c.abs(rel), "is reached through the symbolic link " + c.abs(prefix) + ": core tools do not write through links"}
		}
	}
	return nil
}

// rel is p relative to the workspace (p absolute inside it, or relative to it); "" is the
// workspace itself.
func (c *coreBackend) rel(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(c.dir, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", &pathError{path: p}
		}
		return r, nil
	}
	r := filepath.Clean(p)
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", &pathError{path: p}
	}
	return r, nil
}

// abs is the absolute path of rel in the workspace, as the tools answer with.
func (c *coreBackend) abs(rel string) string { return filepath.Join(c.dir, rel) }

func (c *coreBackend) read(rel string) ([]byte, error) {
	f, err := c.root.Open(rel)
	if err != nil {
		return nil, c.fsError(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: list_directory lists it", c.abs(rel))
	}
	if st.Size() > coreMaxFile {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", c.abs(rel), st.Size(), coreMaxFile)
	}
	data := make([]byte, st.Size())
	_, err = f.ReadAt(data, 0)
	if err != nil && st.Size() > 0 {
		return nil, err
	}
	return data, nil
}

// fsError says what an os.Root refusal means: a path (or link) that leaves the workspace.
func (c *coreBackend) fsError(rel string, err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return &pathError{path: c.abs(rel)}
	}
	return err
}

func (c *coreBackend) readFile(a readFileArgs) (string, error) {
	rel, err := c.rel(a.AbsolutePath)
	if err != nil {
		return "", err
	}
	data, err := c.read(rel)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return fmt.Sprintf("[binary file %s, %d bytes]", c.abs(rel), len(data)), nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	limit := a.Limit
	if limit <= 0 {
		limit = coreMaxLines
	}
	from := min(max(a.Offset, 0), len(lines))
	to := min(from+limit, len(lines))
	text := strings.Join(lines[from:to], "")
	if from > 0 || to < len(lines) {
		text = fmt.Sprintf("[lines %d-%d of %d; read more with offset and limit]\n", from, to, len(lines)) + text
	}
	return text, nil
}

func (c *coreBackend) readMany(a readManyArgs) (string, error) {
	var files []string
	for _, p := range a.Paths {
		rel, err := c.rel(p)
		if err != nil {
			return "", err
		}
		if !strings.ContainsAny(rel, "*?[{") {
			files = append(files, rel)
			continue
		}
		matches, err := c.globRel(rel)
		if err != nil {
			return "", err
		}
		files = append(files, matches...)
	}
	var b strings.Builder
	for i, rel := range files {
		if i == coreMaxPaths {
			fmt.Fprintf(&b, "[%d more files left out]\n", len(files)-i)
			break
		}
		data, err := c.read(rel)
		fmt.Fprintf(&b, "--- %s ---\n", c.abs(rel))
		switch {
		case err != nil:
			fmt.Fprintf(&b, "[not read: %v]\n", err)
		case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0:
			fmt.Fprintf(&b, "[binary file, %d bytes]\n", len(data))
		default:
			b.Write(data)
			if len(data) > 0 && data[len(data)-1] != '\n' {
				b.WriteByte('\n')
			}
		}
	}
	return b.String(), nil
}

func (c *coreBackend) listDirectory(a listDirArgs) (string, error) {
	rel, err := c.rel(a.Path)
	if err != nil {
		return "", err
	}
	entries, err := fs.ReadDir(c.root.FS(), filepath.ToSlash(rel))
	if err != nil {
		return "", c.fsError(rel, err)
	}
	var dirs, files []string
	for _, e := range entries {
		if slices.ContainsFunc(a.Ignore, func(p string) bool { ok, _ := doublestar.Match(p, e.Name()); return ok }) {
			continue
		}
		if e.IsDir() {
			dirs = append(dirs, "[DIR] "+e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	if len(dirs)+len(files) == 0 {
		return fmt.Sprintf("%s is empty", c.abs(rel)), nil
	}
	return fmt.Sprintf("%s:\n%s\n", c.abs(rel), strings.Join(append(dirs, files...), "\n")), nil
}

// globRel lists the files whose workspace-relative path matches pattern (.git and what
// .gitignore and .geminiignore ignore left out).
func (c *coreBackend) globRel(pattern string) ([]string, error) {
	var out []string
	err := doublestar.GlobWalk(c.root.FS(), filepath.ToSlash(pattern), func(p string, d fs.DirEntry) error {
		if d.IsDir() || c.ignore.Ignored(p, false) {
			return nil
		}
		out = append(out, filepath.FromSlash(p))
		return nil
	})
	slices.Sort(out)
	return out, err
}

func (c *coreBackend) glob(a globArgs) (string, error) {
	base, err := c.rel(a.Path)
	if err != nil {
		return "", err
	}
	pattern := a.Pattern
	if base != "." {
		pattern = filepath.Join(base, pattern)
	}
	matches, err := c.globRel(pattern)
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

func (c *coreBackend) search(ctx context.Context, a searchArgs) (string, error) {
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return "", fmt.Errorf("pattern %q is not a regular expression: %v", a.Pattern, err)
	}
	base, err := c.rel(a.Path)
	if err != nil {
		return "", err
	}
	if c.rg != "" {
		if text, ok := c.searchRipgrep(ctx, a, base); ok {
			return text, nil
		}
	}
	var b strings.Builder
	found := 0
	err = fs.WalkDir(c.root.FS(), filepath.ToSlash(base), func(p string, d fs.DirEntry, err error) error {
		if err != nil || found >= coreMaxMatches {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); p != filepath.ToSlash(base) && (name == "node_modules" || c.ignore.Ignored(p, true)) {
				return fs.SkipDir
			}
			return nil
		}
		if c.ignore.Ignored(p, false) {
			return nil
		}
		if a.Include != "" {
			if ok, _ := doublestar.Match(a.Include, p); !ok {
				if ok, _ := doublestar.Match(a.Include, d.Name()); !ok {
					return nil
				}
			}
		}
		data, err := c.read(filepath.FromSlash(p))
		if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			return nil
		}
		for i, line := range strings.Split(string(data), "\n") {
			if re.MatchString(line) {
				fmt.Fprintf(&b, "%s:%d: %s\n", c.abs(filepath.FromSlash(p)), i+1, line)
				if found++; found >= coreMaxMatches {
					fmt.Fprintf(&b, "[stopped at %d matches]\n", coreMaxMatches)
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found == 0 {
		return fmt.Sprintf("no match for %q", a.Pattern), nil
	}
	return b.String(), nil
}

func (c *coreBackend) writeFile(a writeFileArgs) (string, error) {
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", err
	}
	if err := c.writable(rel); err != nil {
		return "", err
	}
	if err := c.writeAtomic(rel, []byte(a.Content)); err != nil {
		return "", c.fsError(rel, err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", c.abs(rel), len(a.Content)), nil
}

func (c *coreBackend) replace(a replaceArgs) (string, error) {
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", err
	}
	data, err := c.read(rel)
	if errors.Is(err, fs.ErrNotExist) && a.OldString == "" {
		return c.writeFile(writeFileArgs{FilePath: a.FilePath, Content: a.NewString})
	}
	if err != nil {
		return "", err
	}
	want := a.ExpectedReplacements
	if want <= 0 {
		want = 1
	}
	if a.OldString == "" {
		return "", fmt.Errorf("old_string is empty but %s exists: give the text to replace", c.abs(rel))
	}
	if n := strings.Count(string(data), a.OldString); n != want {
		return "", fmt.Errorf("old_string occurs %d time(s) in %s, expected %d: give more context, or expected_replacements", n, c.abs(rel), want)
	}
	text := strings.ReplaceAll(string(data), a.OldString, a.NewString)
	if err := c.writeAtomic(rel, []byte(text)); err != nil {
		return "", c.fsError(rel, err)
	}
	return fmt.Sprintf("replaced %d occurrence(s) in %s", want, c.abs(rel)), nil
}

// writeAtomic replaces the workspace file rel with data: written beside it, then renamed
// into place, so a gem that dies half-way leaves the old content or the new, never a part.
// An existing file keeps its mode. What writable refuses is not written.
func (c *coreBackend) writeAtomic(rel string, data []byte) error {
	if err := c.writable(rel); err != nil {
		return err
	}
	dir, base, err := c.parentRoot(rel)
	if err != nil {
		return err
	}
	if dir != c.root {
		defer dir.Close()
	}
	mode := os.FileMode(0o644)
	if st, err := dir.Lstat(base); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: write_file and replace write files only", c.abs(rel))
		}
		mode = st.Mode().Perm()
	}
	tmp := fmt.Sprintf(".%s.gem-%d-%d", base, os.Getpid(), time.Now().UnixNano())
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return c.fsError(rel, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, base) // a link put at base meanwhile is replaced, not followed
	}
	if err != nil {
		dir.Remove(tmp)
		return c.fsError(rel, err)
	}
	return nil
}

// parentRoot opens the folder rel is written in, one component at a time, making missing
// ones: each must be a real folder (not a link) and stay the one checked while it is opened,
// so a sandboxed program that swaps a folder of the path for a link between gem's check and
// its write (to land it in .gemini, say) makes the write fail instead. The caller closes
// the root unless it is c.root.
func (c *coreBackend) parentRoot(rel string) (*os.Root, string, error) {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	cur := c.root
	for i, name := range parts[:len(parts)-1] {
		st, err := cur.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(name, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				st, err = cur.Lstat(name)
			}
		}
		if err == nil && !st.IsDir() {
			err = &pathError{c.abs(rel), c.abs(strings.Join(parts[:i+1], "/")) + " is not a folder (or is a symbolic link): core tools do not write through links"}
		}
		var sub *os.Root
		if err == nil {
			if c.beforeOpen != nil {
				c.beforeOpen(strings.Join(parts[:i+1], "/"))
			}
			sub, err = cur.OpenRoot(name)
		}
		if err == nil {
			if now, serr := sub.Stat("."); serr != nil || !os.SameFile(st, now) {
				sub.Close()
				err = &pathError{c.abs(rel), c.abs(strings.Join(parts[:i+1], "/")) + " changed while gem was writing (a program replaced it): not written; try again"}
			}
		}
		if cur != c.root {
			cur.Close()
		}
		if err != nil {
			return nil, "", c.fsError(rel, err)
		}
		cur = sub
	}
	return cur, parts[len(parts)-1], nil
}

// memoryHeader is Gemini CLI's section of remembered facts in the user's GEMINI.md.
const memoryHeader = "## Gemini Added Memories"

func (c *coreBackend) saveMemory(a saveMemoryArgs) (string, error) {
	return SaveMemory(c.memoryFile, a.Fact)
}

// MemoryFile is the user's context file facts are remembered in: ~/.gemini/GEMINI.md, or
// the first of the settings' context.fileName.
func MemoryFile(env registry.Env, st *settings.Settings) string {
	if st != nil && len(st.ContextFiles) > 0 {
		return filepath.Join(env.GeminiHome, ".gemini", st.ContextFiles[0])
	}
	return filepath.Join(env.GeminiHome, ".gemini", "GEMINI.md")
}

// memoryMu makes the read-modify-write of the memory file one at a time within gem.
var memoryMu sync.Mutex

// SaveMemory adds fact under "## Gemini Added Memories" of the context file (the user's
// GEMINI.md), as save_memory and /memory add do, and says what it did.
func SaveMemory(file, fact string) (string, error) {
	fact = strings.TrimSpace(strings.ReplaceAll(fact, "\n", " "))
	if fact == "" {
		return "", errors.New("fact is empty: give the fact to remember")
	}
	memoryMu.Lock()
	defer memoryMu.Unlock()
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	text := string(data)
	if !strings.Contains(text, memoryHeader) {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		text += memoryHeader + "\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "- " + fact + "\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	if err := registry.WriteFileAtomic(file, []byte(text), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("remembered in %s: %s", file, fact), nil
}

func (c *coreBackend) writeTodos(a writeTodosArgs) (string, error) {
	marks := map[string]string{"pending": "[ ]", "in_progress": "[>]", "completed": "[x]", "cancelled": "[-]"}
	var b strings.Builder
	for _, t := range a.Todos {
		mark, ok := marks[t.Status]
		if !ok {
			return "", fmt.Errorf("todo %q: status %q: use pending, in_progress, completed or cancelled", t.Description, t.Status)
		}
		fmt.Fprintf(&b, "%s %s\n", mark, t.Description)
	}
	c.mu.Lock()
	c.todos = a.Todos
	c.mu.Unlock()
	if b.Len() == 0 {
		return "the todo list is empty", nil
	}
	return b.String(), nil
}
