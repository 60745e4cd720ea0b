package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
	"github.com/google/jsonschema-go/jsonschema"
)

// Core tools are the tools Gemini CLI ships, under its names and parameters so prompts and
// policies carry over: read_file, read_many_files, list_directory, glob, grep_search (also
// answered as search_file_content, its older name), write_file and replace work on files, confined to the workspace by an
// os.Root (no path, .. or symbolic link leads out of it; the kernel's openat2 where there is
// one); list_mcp_resources and read_mcp_resource read MCP servers' resources
// (mcpresources.go); read_file and list_directory also read, never write, extensions' output folders
// (outputRoot: what shell-tools saves of a command's output, as its design says the model
// reads it later); save_memory appends a fact to the user's GEMINI.md (the one file outside the
// workspace they write); write_todos keeps a plan; ask_user puts the model's questions to the
// user (Services.Answer: the terminal, never --yes). They run in gem's process and go through
// the same policy, confirmation, hooks and audit as extension tools: reading and searching
// are kinds read and search, writing, replacing and remembering kind edit (asked in the
// default mode). They never write what sandboxed programs may not change either
// (sandbox.ProtectedNames: .gem, .gemini, .git/hooks, GEMINI.md …) nor through a symbolic
// link, so an approved edit cannot widen what the next session may do (a policy, a setting,
// a hook). glob, grep_search and read_many_files's patterns leave out what the
// workspace's .gitignore and .geminiignore files ignore (Ignorer). web_fetch (webfetch.go)
// fetches public pages only. Their extension is "gem". Gemini CLI's shell tool is left to
// extensions (shell-tools), and google_web_search is not offered.

// Caps on what a core tool reads or returns.
const (
	coreMaxFile    = 4 << 20 // a file read whole
	coreMaxLines   = 2000    // read_file's default line limit, as Gemini CLI's
	coreMaxMatches = 200     // grep_search: total_max_matches is capped at 10×
	coreMaxPaths   = 500     // glob, read_many_files
)

// The arguments are Gemini CLI's, as it declares them today (names, types, ranges), so
// calls shaped as Gemini models make them are accepted; its older names are accepted as
// aliases (coreSpec.aliases: absolute_path, path, include, paths …), and older parameters
// it dropped are kept (read_file's offset and limit, replace's expected_replacements).
type (
	readFileArgs struct {
		FilePath  string `json:"file_path" jsonschema:"the path to the file to read (absolute, or relative to the workspace)"`
		StartLine int    `json:"start_line,omitempty" jsonschema:"optional: the 1-based line number to start reading from"`
		EndLine   int    `json:"end_line,omitempty" jsonschema:"optional: the 1-based line number to end reading at (inclusive)"`
		Offset    int    `json:"offset,omitempty" jsonschema:"older form: the first line to return, from 0"`
		Limit     int    `json:"limit,omitempty" jsonschema:"older form: how many lines to return (default 2000)"`
	}
	fileFiltering struct {
		RespectGitIgnore    *bool `json:"respect_git_ignore,omitempty" jsonschema:"optional: leave out what .gitignore ignores (default true)"`
		RespectGeminiIgnore *bool `json:"respect_gemini_ignore,omitempty" jsonschema:"optional: leave out what .geminiignore ignores (default true)"`
	}
	readManyArgs struct {
		Include              []string       `json:"include" jsonschema:"files or glob patterns (** for any depth), relative to the workspace or absolute inside it"`
		Exclude              []string       `json:"exclude,omitempty" jsonschema:"optional: glob patterns of files to leave out"`
		Recursive            *bool          `json:"recursive,omitempty" jsonschema:"optional: search folders recursively (** in a pattern does; default true)"`
		UseDefaultExcludes   *bool          `json:"useDefaultExcludes,omitempty" jsonschema:"optional: leave out node_modules and .git (default true)"`
		FileFilteringOptions *fileFiltering `json:"file_filtering_options,omitempty" jsonschema:"optional: whether to respect .gitignore and .geminiignore"`
	}
	listDirArgs struct {
		DirPath              string         `json:"dir_path" jsonschema:"the path to the folder to list"`
		Ignore               []string       `json:"ignore,omitempty" jsonschema:"glob patterns of names to leave out"`
		FileFilteringOptions *fileFiltering `json:"file_filtering_options,omitempty" jsonschema:"optional: whether to respect .gitignore and .geminiignore"`
	}
	globArgs struct {
		Pattern             string `json:"pattern" jsonschema:"a glob pattern, ** for any depth (src/**/*.go)"`
		DirPath             string `json:"dir_path,omitempty" jsonschema:"optional: the folder to search in (default: the workspace)"`
		CaseSensitive       bool   `json:"case_sensitive,omitempty" jsonschema:"optional: whether the match is case-sensitive (default false)"`
		RespectGitIgnore    *bool  `json:"respect_git_ignore,omitempty" jsonschema:"optional: leave out what .gitignore ignores (default true)"`
		RespectGeminiIgnore *bool  `json:"respect_gemini_ignore,omitempty" jsonschema:"optional: leave out what .geminiignore ignores (default true)"`
	}
	searchArgs struct {
		Pattern           string `json:"pattern" jsonschema:"a regular expression (RE2 syntax) to find in file lines"`
		DirPath           string `json:"dir_path,omitempty" jsonschema:"optional: the folder (or file) to search in (default: the workspace)"`
		IncludePattern    string `json:"include_pattern,omitempty" jsonschema:"optional: a glob of the files to search (*.go, src/**)"`
		ExcludePattern    string `json:"exclude_pattern,omitempty" jsonschema:"optional: a regular expression; matching lines are left out"`
		NamesOnly         bool   `json:"names_only,omitempty" jsonschema:"optional: only the paths of the files that match"`
		CaseSensitive     bool   `json:"case_sensitive,omitempty" jsonschema:"optional: whether the search is case-sensitive (default false)"`
		FixedStrings      bool   `json:"fixed_strings,omitempty" jsonschema:"optional: the pattern is literal text, not a regular expression"`
		Context           int    `json:"context,omitempty" jsonschema:"optional: lines of context around each match (grep -C)"`
		After             int    `json:"after,omitempty" jsonschema:"optional: lines after each match (grep -A)"`
		Before            int    `json:"before,omitempty" jsonschema:"optional: lines before each match (grep -B)"`
		NoIgnore          bool   `json:"no_ignore,omitempty" jsonschema:"optional: search what .gitignore and .geminiignore ignore too"`
		MaxMatchesPerFile int    `json:"max_matches_per_file,omitempty" jsonschema:"optional: at most this many matches per file"`
		TotalMaxMatches   int    `json:"total_max_matches,omitempty" jsonschema:"optional: at most this many matches in all (default 100)"`
	}
	writeFileArgs struct {
		FilePath string `json:"file_path" jsonschema:"the path to the file (absolute, or relative to the workspace)"`
		Content  string `json:"content" jsonschema:"the whole new content"`
	}
	askUserArgs struct {
		Questions []UserQuestion `json:"questions" jsonschema:"one to four questions"`
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
		FilePath             string `json:"file_path" jsonschema:"the path to the file to change"`
		Instruction          string `json:"instruction,omitempty" jsonschema:"optional: what the change is for, in a sentence"`
		OldString            string `json:"old_string" jsonschema:"the exact text to replace (empty: create the file)"`
		NewString            string `json:"new_string" jsonschema:"the text to put in its place"`
		AllowMultiple        bool   `json:"allow_multiple,omitempty" jsonschema:"optional: replace every occurrence (default: exactly one must be found)"`
		ExpectedReplacements int    `json:"expected_replacements,omitempty" jsonschema:"older form: how many occurrences to replace"`
	}
)

// bounds are the numeric ranges Gemini CLI declares (minimum per parameter).
var bounds = map[string]float64{
	"start_line": 1, "end_line": 1, "offset": 0, "limit": 1,
	"context": 0, "after": 0, "before": 0, "max_matches_per_file": 1, "total_max_matches": 1,
	"expected_replacements": 1,
}

// coreSpec is one core tool: its description, and a run function taking its arguments
// decoded (their JSON Schema is derived from the same type).
type coreSpec struct {
	name, description string
	kind              Kind
	args              func(*jsonschema.ForOptions) (*jsonschema.Schema, error)
	run               func(ctx context.Context, c *coreBackend, raw json.RawMessage) (string, json.RawMessage, error)
	aliases           map[string]string // older parameter name → current one
}

func (cs coreSpec) alias(aliases map[string]string) coreSpec { cs.aliases = aliases; return cs }

func core[A any](name, description string, kind Kind, run func(*coreBackend, A) (string, error)) coreSpec {
	return coreCtx(name, description, kind, func(c *coreBackend, _ context.Context, a A) (string, error) { return run(c, a) })
}

// coreCtx is core for a tool that waits on the outside world (and so takes the call's
// context).
func coreCtx[A any](name, description string, kind Kind, run func(*coreBackend, context.Context, A) (string, error)) coreSpec {
	return coreSpec{name: name, description: description, kind: kind, args: jsonschema.For[A], run: func(ctx context.Context, c *coreBackend, raw json.RawMessage) (string, json.RawMessage, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return "", nil, err
		}
		text, err := run(c, ctx, a)
		return text, nil, err
	}}
}

// coreEdit is core for a tool that changes a file: its result carries the change as
// structured output (editStat: the unified diff and its line counts).
func coreEdit[A any](name, description string, kind Kind, run func(*coreBackend, A) (string, *editStat, error)) coreSpec {
	return coreSpec{name: name, description: description, kind: kind, args: jsonschema.For[A], run: func(_ context.Context, c *coreBackend, raw json.RawMessage) (string, json.RawMessage, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return "", nil, err
		}
		text, stat, err := run(c, a)
		if err != nil || stat == nil {
			return text, nil, err
		}
		data, _ := json.Marshal(stat)
		return text, data, nil
	}}
}

// previewEdit is the unified diff a core edit tool's call would make (write_file, replace),
// computed on the file as it is now, to show in its confirmation; ok is false for any other
// call, or one that would fail (its own error says why when it runs).
func (t *Tool) previewEdit(args json.RawMessage) (string, bool) {
	c, ok := t.backend.(*coreBackend)
	if !ok {
		return "", false
	}
	var a replaceArgs // write_file's fields are a subset: file_path; content is read apart
	var w writeFileArgs
	if json.Unmarshal(args, &a) != nil || json.Unmarshal(args, &w) != nil {
		return "", false
	}
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", false
	}
	before, _ := c.read(rel)
	var after string
	switch t.Declared {
	case "write_file":
		after = w.Content
	case "replace":
		if a.OldString == "" {
			after = a.NewString
			break
		}
		n := strings.Count(string(before), a.OldString)
		if n == 0 || (!a.AllowMultiple && n != max(a.ExpectedReplacements, 1)) {
			return "", false
		}
		after = strings.ReplaceAll(string(before), a.OldString, a.NewString)
	default:
		return "", false
	}
	return strings.TrimRight(diffStat(c.abs(rel), string(before), after).Diff, "\n"), true
}

// editStat is what an edit changed: the unified diff of the file and its line counts (what
// Gemini CLI's stats report as files.totalLinesAdded and totalLinesRemoved).
type editStat struct {
	File         string `json:"file"`
	Diff         string `json:"diff"`
	LinesAdded   int    `json:"lines_added"`
	LinesRemoved int    `json:"lines_removed"`
}

// diffStat compares a file's old and new text.
func diffStat(file, before, after string) *editStat {
	st := &editStat{File: file, Diff: udiff.Unified(file, file, before, after)}
	for _, line := range strings.Split(st.Diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			st.LinesAdded++
		case strings.HasPrefix(line, "-"):
			st.LinesRemoved++
		}
	}
	return st
}

// LegacyToolNames are Gemini CLI's older names of core tools, still answered.
var LegacyToolNames = map[string]string{"search_file_content": "grep_search"}

// coreSpecs are the core tools.
var coreSpecs = []coreSpec{
	core("read_file", "Reads a file of the workspace (text: lines start_line..end_line, the first 2000 by default; a binary file is described).", KindRead, (*coreBackend).readFile).
		alias(map[string]string{"absolute_path": "file_path", "path": "file_path"}),
	core("read_many_files", "Reads several files of the workspace, named or by glob, each under a '--- path ---' header.", KindRead, (*coreBackend).readMany).
		alias(map[string]string{"paths": "include"}),
	core("list_directory", "Lists a folder of the workspace: subfolders first ([DIR]), then files.", KindRead, (*coreBackend).listDirectory).
		alias(map[string]string{"path": "dir_path"}),
	core("glob", "Finds files of the workspace whose path matches a glob pattern (** for any depth).", KindSearch, (*coreBackend).glob).
		alias(map[string]string{"path": "dir_path"}),
	coreCtx("grep_search", "Searches the workspace's files for a regular expression (case-insensitive unless case_sensitive); answers path:line: text.", KindSearch, (*coreBackend).search).
		alias(map[string]string{"path": "dir_path", "include": "include_pattern"}),
	coreEdit("write_file", "Writes a file of the workspace (created, or replaced whole).", KindEdit, (*coreBackend).writeFile).
		alias(map[string]string{"absolute_path": "file_path", "path": "file_path"}),
	coreEdit("replace", "Replaces exact text in a file of the workspace: exactly one occurrence of old_string, or every one with allow_multiple.", KindEdit, (*coreBackend).replace).
		alias(map[string]string{"absolute_path": "file_path", "path": "file_path"}),
	core("save_memory", "Remembers a fact for every later session: it is added to the user's GEMINI.md under \"## Gemini Added Memories\".", KindEdit, (*coreBackend).saveMemory),
	coreCtx("ask_user", "Asks the user one to four questions (choice, text or yes/no) and returns their answers; when no one can be asked it fails: decide, or say what you need.", KindThink, (*coreBackend).askUser),
	core("write_todos", "Keeps the plan of a longer task as a todo list (the whole list each time); shown to the user.", KindThink, (*coreBackend).writeTodos),
	coreCtx("list_mcp_resources", "Lists the resources (and resource templates) the session's MCP servers offer, as server: uri — name: description.", KindRead, (*coreBackend).listResources),
	coreCtx("read_mcp_resource", "Reads the content of an MCP resource by its URI (one list_mcp_resources lists).", KindRead, (*coreBackend).readResource),
	coreCtx("web_fetch", "Fetches the http(s) URLs named in prompt (up to 20; public addresses only) and returns their text, for the request the prompt makes.", KindFetch, (*coreBackend).webFetch),
}

// coreBackend runs the core tools in one workspace.
type coreBackend struct {
	services   *Services // the session's: ask_user asks through it
	dir        string    // the workspace, absolute
	root       *os.Root
	memoryFile string   // the user's context file save_memory appends to
	dataDir    string   // <GEM_HOME>/data: extensions' output folders under it are readable
	catalog    *Catalog // its MCP servers' resources (list_mcp_resources, read_mcp_resource)
	mu         sync.Mutex
	todos      []todo
	web        *webFetcher
	ignore     *Ignorer
	beforeOpen func(rel string)                 // tests: runs between a folder's check and its opening
	rg         string                           // ripgrep, when the user has it
	buffers    func(path string) (string, bool) // an editor's unsaved text of a file (Options.Buffers)
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
		if enabled != nil && !slices.Contains(enabled, cs.name) && !slices.ContainsFunc(enabled, func(n string) bool { return LegacyToolNames[n] == cs.name }) {
			continue
		}
		schema, err := cs.args(nil)
		if err != nil {
			return nil, nil, err
		}
		for name, prop := range schema.Properties {
			if lo, ok := bounds[name]; ok && prop.Type == "integer" {
				prop.Minimum = jsonschema.Ptr(lo)
			}
		}
		raw, _ := json.Marshal(schema)
		resolved, err := schema.Resolve(nil)
		if err != nil {
			return nil, nil, err
		}
		spec := Spec{Name: cs.name, Description: cs.description, Kind: cs.kind, InputSchema: raw}
		out = append(out, &Tool{Name: cs.name, Declared: cs.name, base: cs.name, Extension: "gem", Spec: spec, schema: schema, resolved: resolved, backend: c, aliases: cs.aliases})
	}
	return out, c, nil
}

func (c *coreBackend) sandbox() (string, *sandbox.Policy) { return "", nil } // runs in gem

func (c *coreBackend) call(ctx context.Context, declared string, args json.RawMessage, _ CallOptions) (*Result, error) {
	for _, cs := range coreSpecs {
		if cs.name != declared {
			continue
		}
		text, structured, err := cs.run(ctx, c, args)
		if err != nil {
			typ := ErrorExecution
			var pe *PathError
			switch {
			case errors.As(err, &pe):
				typ = ErrorPermissionDenied
			case errors.Is(err, fs.ErrNotExist):
				typ = ErrorNotFound
			}
			return &Result{Text: err.Error(), Error: &ResultError{Type: typ, Message: err.Error()}}, nil
		}
		return &Result{Text: text, Structured: structured}, nil
	}
	return nil, &UnknownToolError{Name: declared}
}

func (c *coreBackend) close() { c.root.Close() }

// PathError is a path outside the workspace, or one the core tools may not write (protected,
// or reached through a link).
type PathError struct{ path, why string }

func (e *PathError) Error() string {
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
		return &PathError{c.abs(rel), "is protected (" + name + " configures gem, git or another tool): core tools do not write it; change it yourself"}
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if st, err := c.root.Lstat(prefix); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return &PathError{c.abs(rel), "is reached through the symbolic link " + c.abs(prefix) + ": core tools do not write through links"}
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
			return "", &PathError{path: p}
		}
		return r, nil
	}
	r := filepath.Clean(p)
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", &PathError{path: p}
	}
	return r, nil
}

// outputRoot: whether p (absolute) lies in an extension's output folder
// (<GEM_HOME>/data/<extension>/output, GEM_EXTENSION_OUTPUT), which read_file and
// list_directory read, never write, besides the workspace: what extensions' programs keep
// for the model to read later (shell-tools' saved output). It answers that folder as an
// os.Root and p relative to it, so no link or .. leads out of it.
func (c *coreBackend) outputRoot(p string) (root *os.Root, rel string, ok bool, err error) {
	if c.dataDir == "" || !filepath.IsAbs(p) {
		return nil, "", false, nil
	}
	r, err := filepath.Rel(c.dataDir, filepath.Clean(p))
	if err != nil {
		return nil, "", false, nil
	}
	parts := strings.SplitN(filepath.ToSlash(r), "/", 3)
	if len(parts) < 2 || parts[1] != paths.OutputFolder || parts[0] == ".." || parts[0] == "." {
		return nil, "", false, nil
	}
	rel = "."
	if len(parts) == 3 {
		rel = filepath.FromSlash(parts[2])
	}
	ext, err := os.OpenRoot(filepath.Join(c.dataDir, parts[0]))
	if err != nil {
		return nil, "", true, err
	}
	defer ext.Close()
	if st, err := ext.Lstat(paths.OutputFolder); err != nil || !st.IsDir() {
		return nil, "", true, &PathError{p, "is not in a folder gem made for an extension's output"}
	}
	root, err = ext.OpenRoot(paths.OutputFolder)
	return root, rel, true, err
}

// outputError says what an os.Root refusal in an output folder means.
func outputError(p string, err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return &PathError{p, "leads out of the extension's output folder (a link or ..): core tools read inside it only"}
	}
	return err
}

// abs is the absolute path of rel in the workspace, as the tools answer with.
func (c *coreBackend) abs(rel string) string { return filepath.Join(c.dir, rel) }

// read reads a workspace file through the workspace's rules; its text is the editor's when
// the editor has the file open (Options.Buffers).
func (c *coreBackend) read(rel string) ([]byte, error) {
	data, err := readIn(c.root, rel, c.abs(rel))
	if err != nil {
		return nil, c.fsError(rel, err)
	}
	if text, ok := c.editorText(rel); ok {
		return []byte(text), nil
	}
	return data, nil
}

// readIn reads rel under root whole (abs names it in errors).
func readIn(root *os.Root, rel, abs string) ([]byte, error) {
	// Without blocking: a FIFO planted under a file's name must not hold the call (and gem)
	// waiting for a writer.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: list_directory lists it", abs)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): gem reads only files", abs, st.Mode().Type())
	}
	if st.Size() > coreMaxFile {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", abs, st.Size(), coreMaxFile)
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
		return &PathError{path: c.abs(rel)}
	}
	return err
}

func (c *coreBackend) readFile(a readFileArgs) (string, error) {
	if a.EndLine > 0 && a.StartLine > a.EndLine {
		return "", fmt.Errorf("start_line %d is after end_line %d", a.StartLine, a.EndLine)
	}
	var data []byte
	abs := a.FilePath
	if out, rel, ok, err := c.outputRoot(a.FilePath); ok {
		if err != nil {
			return "", err
		}
		data, err = readIn(out, rel, abs)
		out.Close()
		if err != nil {
			return "", outputError(abs, err)
		}
	} else {
		rel, err := c.rel(a.FilePath)
		if err != nil {
			return "", err
		}
		if data, err = c.read(rel); err != nil {
			return "", err
		}
		abs = c.abs(rel)
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return fmt.Sprintf("[binary file %s, %d bytes]", abs, len(data)), nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var from, to int // lines[from:to]
	switch {
	case a.StartLine > 0 || a.EndLine > 0:
		from = max(a.StartLine, 1) - 1
		to = from + coreMaxLines
		if a.EndLine > 0 {
			to = a.EndLine
		}
	default:
		limit := a.Limit
		if limit <= 0 {
			limit = coreMaxLines
		}
		from, to = a.Offset, a.Offset+limit
	}
	from, to = min(from, len(lines)), min(to, len(lines))
	text := strings.Join(lines[from:to], "")
	if from > 0 || to < len(lines) {
		text = fmt.Sprintf("[lines %d-%d of %d; read more with start_line and end_line]\n", from+1, to, len(lines)) + text
	}
	return text, nil
}

func (c *coreBackend) readMany(a readManyArgs) (string, error) {
	excludes := a.Exclude
	if a.UseDefaultExcludes == nil || *a.UseDefaultExcludes {
		excludes = append(excludes, "**/node_modules/**", "node_modules/**")
	}
	ignore := a.FileFilteringOptions.respect()
	var files []string
	for _, p := range a.Include {
		rel, err := c.rel(p)
		if err != nil {
			return "", err
		}
		if !strings.ContainsAny(rel, "*?[{") {
			files = append(files, rel)
			continue
		}
		matches, err := c.globRel(rel, false, ignore)
		if err != nil {
			return "", err
		}
		files = append(files, matches...)
	}
	files = slices.DeleteFunc(files, func(rel string) bool {
		return slices.ContainsFunc(excludes, func(x string) bool {
			ok, _ := doublestar.Match(x, filepath.ToSlash(rel))
			return ok
		})
	})
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
	if len(files) == 0 {
		return "no files matched", nil
	}
	return b.String(), nil
}

// respect: whether the ignore files apply (Gemini CLI's file_filtering_options; both
// default to true, and gem reads .gitignore and .geminiignore together: either false turns
// the filter off).
func (f *fileFiltering) respect() bool {
	return f == nil || ((f.RespectGitIgnore == nil || *f.RespectGitIgnore) && (f.RespectGeminiIgnore == nil || *f.RespectGeminiIgnore))
}

func (c *coreBackend) listDirectory(a listDirArgs) (string, error) {
	if out, rel, ok, err := c.outputRoot(a.DirPath); ok {
		if err != nil {
			return "", err
		}
		defer out.Close()
		entries, err := fs.ReadDir(out.FS(), filepath.ToSlash(rel))
		if err != nil {
			return "", outputError(a.DirPath, err)
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, "[DIR] "+e.Name())
			} else {
				names = append(names, e.Name())
			}
		}
		return fmt.Sprintf("%s:\n%s\n", a.DirPath, strings.Join(names, "\n")), nil
	}
	rel, err := c.rel(a.DirPath)
	if err != nil {
		return "", err
	}
	entries, err := fs.ReadDir(c.root.FS(), filepath.ToSlash(rel))
	if err != nil {
		return "", c.fsError(rel, err)
	}
	ignore := a.FileFilteringOptions.respect()
	var dirs, files []string
	hidden := 0
	for _, e := range entries {
		if slices.ContainsFunc(a.Ignore, func(p string) bool { ok, _ := doublestar.Match(p, e.Name()); return ok }) {
			continue
		}
		if ignore && e.Name() != ".git" && c.ignore.Ignored(path.Join(filepath.ToSlash(rel), e.Name()), e.IsDir()) {
			hidden++
			continue
		}
		if e.IsDir() {
			dirs = append(dirs, "[DIR] "+e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	if len(dirs)+len(files) == 0 && hidden == 0 {
		return fmt.Sprintf("%s is empty", c.abs(rel)), nil
	}
	text := fmt.Sprintf("%s:\n%s\n", c.abs(rel), strings.Join(append(dirs, files...), "\n"))
	if hidden > 0 {
		text += fmt.Sprintf("(%d ignored by .gitignore or .geminiignore)\n", hidden)
	}
	return text, nil
}

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
		if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
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

func (c *coreBackend) writeFile(a writeFileArgs) (string, *editStat, error) {
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", nil, err
	}
	if err := c.writable(rel); err != nil {
		return "", nil, err
	}
	before, _ := c.read(rel) // nothing when it is new
	if err := c.writeAtomic(rel, []byte(a.Content)); err != nil {
		return "", nil, c.fsError(rel, err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", c.abs(rel), len(a.Content)), diffStat(c.abs(rel), string(before), a.Content), nil
}

func (c *coreBackend) replace(a replaceArgs) (string, *editStat, error) {
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", nil, err
	}
	data, err := c.read(rel)
	if errors.Is(err, fs.ErrNotExist) && a.OldString == "" {
		return c.writeFile(writeFileArgs{FilePath: a.FilePath, Content: a.NewString})
	}
	if err != nil {
		return "", nil, err
	}
	if a.OldString == "" {
		return "", nil, fmt.Errorf("old_string is empty but %s exists: give the text to replace", c.abs(rel))
	}
	n := strings.Count(string(data), a.OldString)
	switch {
	case n == 0:
		return "", nil, fmt.Errorf("old_string is not in %s: give the exact text, with its whitespace (read_file shows it)", c.abs(rel))
	case a.AllowMultiple:
	case a.ExpectedReplacements > 0 && n != a.ExpectedReplacements:
		return "", nil, fmt.Errorf("old_string occurs %s in %s, expected %d: give more context, or allow_multiple", plural.Count(n, "time"), c.abs(rel), a.ExpectedReplacements)
	case a.ExpectedReplacements == 0 && n != 1:
		return "", nil, fmt.Errorf("old_string occurs %s in %s, expected 1: give more context, or allow_multiple to replace every one", plural.Count(n, "time"), c.abs(rel))
	}
	text := strings.ReplaceAll(string(data), a.OldString, a.NewString)
	if err := c.writeAtomic(rel, []byte(text)); err != nil {
		return "", nil, c.fsError(rel, err)
	}
	return fmt.Sprintf("replaced %s in %s", plural.Count(n, "occurrence"), c.abs(rel)), diffStat(c.abs(rel), string(data), text), nil
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
			err = &PathError{c.abs(rel), c.abs(strings.Join(parts[:i+1], "/")) + " is not a folder (or is a symbolic link): core tools do not write through links"}
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
				err = &PathError{c.abs(rel), c.abs(strings.Join(parts[:i+1], "/")) + " changed while gem was writing (a program replaced it): not written; try again"}
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
		return filepath.Join(env.GeminiDir(), st.ContextFiles[0])
	}
	return env.GeminiMemoryFile()
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
	if err := fsx.WriteFileAtomic(file, []byte(text), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("remembered in %s: %s", file, fact), nil
}

// UserOption is one option of a choice the model asks the user to make.
type UserOption struct {
	Label       string `json:"label" jsonschema:"the option, in 1-5 words"`
	Description string `json:"description" jsonschema:"what choosing it means"`
}

// UserQuestion is one of the model's questions to the user (ask_user).
type UserQuestion struct {
	Question    string       `json:"question" jsonschema:"the whole question, ending with a question mark"`
	Header      string       `json:"header" jsonschema:"a very short label (Auth method, Library)"`
	Type        string       `json:"type" jsonschema:"choice (options), text (free form) or yesno"`
	Options     []UserOption `json:"options,omitempty" jsonschema:"for choice: 2-4 options (the user may also type their own answer)"`
	MultiSelect bool         `json:"multiSelect,omitempty" jsonschema:"for choice: several options may be chosen"`
	Placeholder string       `json:"placeholder,omitempty" jsonschema:"a hint for the typed answer"`
}

// UserAsker is a Prompter that takes the model's questions whole (a form of the client's,
// a program's callback) instead of as lines of text: ask_user gives each question to AskUser,
// which returns the answer as the model reads it (the labels chosen, the text typed, yes or
// no).
type UserAsker interface {
	AskUser(ctx context.Context, q UserQuestion) (string, error)
}

// askUser puts the model's questions to the user, one at a time, and returns
// "header: answer" lines. On a terminal a choice is answered by number (several, comma
// separated, with multiSelect) or in the user's own words; a UserAsker gets each question
// whole.
func (c *coreBackend) askUser(ctx context.Context, a askUserArgs) (string, error) {
	if len(a.Questions) == 0 || len(a.Questions) > 4 {
		return "", fmt.Errorf("questions: give one to four, not %d", len(a.Questions))
	}
	var asker UserAsker
	if c.services != nil {
		asker, _ = c.services.Prompt.(UserAsker)
	}
	if asker == nil && (c.services == nil || c.services.Prompt == nil || !c.services.Prompt.CanPrompt()) {
		return "", errors.New("there is no terminal to ask the user on: decide yourself, or end your answer with what you need to know")
	}
	var out strings.Builder
	for _, q := range a.Questions {
		var answer string
		var err error
		if asker != nil {
			answer, err = c.services.askWhole(ctx, asker, q)
		} else {
			answer, err = c.services.answer(ctx, terminalQuestion(q))
			answer = chosen(q, strings.TrimSpace(answer))
		}
		if err != nil {
			return "", fmt.Errorf("the user could not be asked: %w", err)
		}
		if answer == "" {
			answer = "(no answer)"
		}
		fmt.Fprintf(&out, "%s: %s\n", q.Header, answer)
	}
	return out.String(), nil
}

// terminalQuestion is q as lines of text: the question, its options numbered.
func terminalQuestion(q UserQuestion) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s", q.Header, q.Question)
	switch q.Type {
	case "yesno":
		b.WriteString(" (yes/no)")
	case "text":
		if q.Placeholder != "" {
			fmt.Fprintf(&b, " (%s)", q.Placeholder)
		}
	default:
		for i, o := range q.Options {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, o.Label)
			if o.Description != "" {
				b.WriteString(" — " + o.Description)
			}
		}
		if len(q.Options) > 0 {
			if q.MultiSelect {
				b.WriteString("\nAnswer with numbers (1,3), or in your own words:")
			} else {
				b.WriteString("\nAnswer with a number, or in your own words:")
			}
		}
	}
	return b.String()
}

// chosen turns option numbers into their labels ("2" → "OAuth"); anything else is the user's
// own answer.
func chosen(q UserQuestion, answer string) string {
	if len(q.Options) == 0 || answer == "" {
		if answer == "" {
			return "(no answer)"
		}
		return answer
	}
	var labels []string
	for _, part := range strings.Split(answer, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > len(q.Options) {
			return answer
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	return strings.Join(labels, ", ")
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
