package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
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
// fetches public pages only; google_web_search is the agent's (it asks the model: package
// agent), offered with them (CoreOffers). Their extension is "gem". Gemini CLI's shell tool
// is left to extensions (shell-tools).

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
	run               func(ctx context.Context, c *coreBackend, raw json.RawMessage) (Result, error)
	aliases           map[string]string // older parameter name → current one
}

func (cs coreSpec) alias(aliases map[string]string) coreSpec { cs.aliases = aliases; return cs }

func core[A any](name, description string, kind Kind, run func(*coreBackend, A) (string, error)) coreSpec {
	return coreCtx(name, description, kind, func(c *coreBackend, _ context.Context, a A) (string, error) { return run(c, a) })
}

// coreCtx is core for a tool that waits on the outside world (and so takes the call's
// context).
func coreCtx[A any](name, description string, kind Kind, run func(*coreBackend, context.Context, A) (string, error)) coreSpec {
	return coreSpec{name: name, description: description, kind: kind, args: jsonschema.For[A], run: func(ctx context.Context, c *coreBackend, raw json.RawMessage) (Result, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return Result{}, err
		}
		text, err := run(c, ctx, a)
		return Result{Text: text}, err
	}}
}

// coreMedia is core for a tool that reads files the model takes as they are (images, PDFs:
// media.go): its result carries them as Media.
func coreMedia[A any](name, description string, kind Kind, run func(*coreBackend, A) (string, []Media, error)) coreSpec {
	return coreSpec{name: name, description: description, kind: kind, args: jsonschema.For[A], run: func(_ context.Context, c *coreBackend, raw json.RawMessage) (Result, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return Result{}, err
		}
		text, media, err := run(c, a)
		return Result{Text: text, Media: media}, err
	}}
}

// coreEdit is core for a tool that changes a file: its result carries the change as
// structured output (editStat: the unified diff and its line counts).
func coreEdit[A any](name, description string, kind Kind, run func(*coreBackend, A) (string, *editStat, error)) coreSpec {
	return coreSpec{name: name, description: description, kind: kind, args: jsonschema.For[A], run: func(_ context.Context, c *coreBackend, raw json.RawMessage) (Result, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return Result{}, err
		}
		text, stat, err := run(c, a)
		if err != nil || stat == nil {
			return Result{Text: text}, err
		}
		data, _ := json.Marshal(stat)
		return Result{Text: text, Structured: data}, nil
	}}
}

// LegacyToolNames are Gemini CLI's older names of core tools, still answered.
var LegacyToolNames = map[string]string{"search_file_content": "grep_search"}

// coreSpecs are the core tools.
var coreSpecs = []coreSpec{
	coreMedia("read_file", "Reads a file of the workspace (text: lines start_line..end_line, the first 2000 by default; images, audio, video and PDFs up to 20 MB are returned as they are for you to see; another binary file is described).", KindRead, (*coreBackend).readFile).
		alias(map[string]string{"absolute_path": "file_path", "path": "file_path"}),
	coreMedia("read_many_files", "Reads several files of the workspace, named or by glob, each under a '--- path ---' header (images, audio, video and PDFs are returned as they are, up to 20 MB in all).", KindRead, (*coreBackend).readMany).
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
	launcher   *launch.Launcher                 // the session's: starts ripgrep
	buffers    func(path string) (string, bool) // an editor's unsaved text of a file (Options.Buffers)
	enabled    []string                         // settings' tools.core: the core tools offered (nil: all)
}

// CoreOffers reports whether the session offers the core tool name (one the catalog lists,
// or one the agent runs, google_web_search): the core tools are on, settings' tools.core
// names it (or is unset) and no excludeTools hides it.
func (r *Catalog) CoreOffers(name string) bool {
	if r == nil || r.core == nil {
		return false
	}
	if _, hidden := r.excluded[name]; hidden {
		return false
	}
	return r.core.enabled == nil || slices.Contains(r.core.enabled, name)
}

// coreTools makes the core tools named in enabled (every one when enabled is nil) for the
// workspace dir.
func coreTools(dir, memoryFile string, enabled []string, web *webFetcher, rg string) ([]*Tool, *coreBackend, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("core tools: the workspace %s: %w", dir, err)
	}
	c := &coreBackend{dir: dir, root: root, memoryFile: memoryFile, web: web, ignore: NewIgnorer(root.FS()), rg: rg, enabled: enabled}
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
		res, err := cs.run(ctx, c, args)
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
		return &res, nil
	}
	return nil, &UnknownToolError{Name: declared}
}

func (c *coreBackend) close() { c.root.Close() }
