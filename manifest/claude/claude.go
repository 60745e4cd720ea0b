// Package claude reads Claude Code plugins as gem's extension model: .claude-plugin/plugin.json
// (only name required) with .mcp.json become the equivalent gemini-extension.json,
// hooks/hooks.json (or plugin.json's inline hooks) becomes a hooks file of gem's, and a
// commands/*.md becomes a prompt command. What has no equivalent in gem is said in Notes,
// never dropped silently.
//
// As in Claude Code, only name is required. A plugin.json without a version has the version
// Claude Code gives it (Version): its marketplace entry's, else its git commit's first 12 hex
// digits; with neither (a local folder that is no checkout, a link) gem says "unversioned"
// (registry.Unversioned; Claude Code says "unknown"). The install records it, and never
// refuses the plugin for it.
//
// Like package manifest it does no I/O: the caller hands it bytes, and a function that reads
// a file of the plugin by its path relative to the plugin's folder (the caller keeps that
// read inside the folder).
//
// Conversions, as Gemini CLI's own Claude migration does them — except the timeouts, which
// that migration forgets to convert:
//   - variables: ${CLAUDE_PLUGIN_ROOT} is ${extensionPath}, ${CLAUDE_PROJECT_DIR} is
//     ${workspacePath}, ${CLAUDE_PLUGIN_DATA} is ${extensionData} (the folder the sandbox
//     lets the extension write); ${VAR:-default} is gem's syntax as well; ${user_config.KEY}
//     is ${CLAUDE_PLUGIN_OPTION_KEY}: each userConfig option is a setting of the extension
//     (gem ext config; a sensitive one sealed) with that variable, as Claude Code exports it.
//   - MCP servers: command/args/env as they are; type "http" with url is an httpUrl server,
//     type "sse" (or a url alone) an SSE server; headers kept. A remote server whose url is
//     empty or missing is a placeholder the user fills in: its url becomes the setting
//     MCP_<SERVER>_URL (manifest.URLSetting), and the server waits for it (listed as needing
//     configuration, never started) instead of the plugin being refused.
//   - hook events PreToolUse→BeforeTool, PostToolUse→AfterTool, UserPromptSubmit→
//     BeforeAgent, Stop→AfterAgent, PreCompact→PreCompress; SessionStart, SessionEnd and
//     Notification keep their names; the other events are dropped (said). Tool names in a
//     matcher (a regular expression) are gem's: Bash→run_shell_command, Read→read_file,
//     Write→write_file, Edit and MultiEdit→replace, Glob→glob, Grep→grep_search,
//     LS→list_directory, WebFetch→web_fetch. Timeouts are seconds in Claude Code and
//     milliseconds in gem: multiplied by 1000. Only command hooks run; prompt, agent, http
//     and mcp_tool hooks are dropped (said).
//   - commands/*.md: front matter description (argument-hint, allowed-tools and model are
//     noted, not applied); the body is the prompt, $ARGUMENTS becomes {{args}}; positional
//     $1…$9 have no equivalent (said, left as written).
package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gemhost/gem/manifest"
)

// Version is the version of a plugin whose plugin.json names none, as Claude Code resolves
// it: its marketplace entry's (entry), else its git commit's first 12 hex digits (commit),
// else "" (gem then says registry.Unversioned).
func Version(entry, commit string) string {
	switch {
	case entry != "":
		return entry
	case len(commit) > 12:
		return commit[:12]
	}
	return commit
}

// ManifestFile is where a Claude Code plugin's manifest sits in its folder.
const ManifestFile = ".claude-plugin/plugin.json"

// Note is what became of one component of a plugin (manifest.Note).
type Note = manifest.Note

// Reader reads a file of the plugin by its slash-separated path relative to the plugin's
// folder; a missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
type Reader func(rel string) ([]byte, error)

// plugin is what gem reads of plugin.json.
type plugin struct {
	Name        any             `json:"name"`
	Version     any             `json:"version"`
	Description any             `json:"description"`
	MCPServers  json.RawMessage `json:"mcpServers"`
	Hooks       json.RawMessage `json:"hooks"`
	UserConfig  map[string]struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Sensitive   bool   `json:"sensitive"`
	} `json:"userConfig"`
}

// OptionVar is the environment variable of a plugin option (userConfig key), as Claude
// Code exports it to the plugin's programs: CLAUDE_PLUGIN_OPTION_<KEY>.
func OptionVar(key string) string { return "CLAUDE_PLUGIN_OPTION_" + manifest.EnvVarPart(key) }

// unsupported are plugin.json's fields gem does not run, and why.
var unsupported = map[string]string{
	"lspServers":   "gem runs no language servers",
	"monitors":     "gem runs no background monitors",
	"outputStyles": "gem has no output styles",
}

// Convert makes the gemini-extension.json equivalent of the plugin whose plugin.json is
// data, reading .mcp.json (or the file plugin.json's mcpServers names) with read. A
// plugin.json that is not a JSON object is an error.
func Convert(data []byte, read Reader) ([]byte, []Note, error) {
	var p plugin
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	var all map[string]json.RawMessage
	json.Unmarshal(data, &all)
	var notes []Note
	for _, k := range sortedKeys(all) {
		if why, ok := unsupported[k]; ok {
			notes = append(notes, Note{Component: k, Became: why, Dropped: true})
		}
	}
	doc := map[string]any{}
	for k, v := range map[string]any{"name": p.Name, "version": p.Version, "description": p.Description} {
		if v != nil {
			doc[k] = v
		}
	}
	// userConfig: each option is a setting of gem's (asked with gem ext config; a sensitive
	// one sealed), given to the plugin's programs as CLAUDE_PLUGIN_OPTION_<KEY>.
	var settings []map[string]any
	for _, k := range sortedKeys(p.UserConfig) {
		o := p.UserConfig[k]
		name := o.Title
		if name == "" {
			name = k
		}
		settings = append(settings, map[string]any{"name": name, "description": o.Description, "envVar": OptionVar(k), "sensitive": o.Sensitive})
		notes = append(notes, Note{Component: "userConfig." + k, Became: "setting " + OptionVar(k) + map[bool]string{true: " (sensitive: sealed)", false: ""}[o.Sensitive]})
	}
	servers, placeholders, snotes := mcpServers(p.MCPServers, read)
	notes = append(notes, snotes...)
	if len(servers) > 0 {
		doc["mcpServers"] = servers
	}
	for _, st := range placeholders {
		settings = append(settings, map[string]any{"name": st.Name, "description": st.Description, "envVar": st.EnvVar, "sensitive": false})
	}
	if len(settings) > 0 {
		doc["settings"] = settings
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	return out, notes, err
}

// mcpServers are the plugin's servers as gemini-extension.json's: plugin.json's inline
// object, or the file it names, else .mcp.json. A remote server whose url is empty (or
// missing) is a placeholder the user fills in: its url becomes a setting
// (manifest.URLSetting), returned in placeholders.
func mcpServers(field json.RawMessage, read Reader) (out map[string]any, placeholders []manifest.Setting, notes []Note) {
	raw := bytes.TrimSpace(field)
	var file string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		file = ".mcp.json"
	case raw[0] == '"':
		json.Unmarshal(raw, &file)
		file = strings.TrimPrefix(file, "./")
	}
	if file != "" {
		data, err := read(file)
		if err != nil {
			if file != ".mcp.json" || !errors.Is(err, fs.ErrNotExist) { // named, or there but unreadable (a link out)
				notes = append(notes, Note{Component: "mcpServers", Became: fmt.Sprintf("%s cannot be read: %v", file, err), Dropped: true})
			}
			return nil, nil, notes
		}
		raw = data
	}
	var wrapped struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	var bare map[string]map[string]any
	servers := map[string]map[string]any{}
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.MCPServers != nil {
		servers = wrapped.MCPServers
	} else if json.Unmarshal(raw, &bare) == nil {
		servers = bare
	} else {
		return nil, nil, []Note{{Component: "mcpServers", Became: "not an object of servers", Dropped: true}}
	}
	out = map[string]any{}
	for _, name := range sortedKeys(servers) {
		s := servers[name]
		conv := map[string]any{}
		typ, _ := s["type"].(string)
		if url, _ := s["url"].(string); (typ == "http" || typ == "sse" || s["url"] != nil) && strings.TrimSpace(url) == "" {
			st := manifest.URLSetting(name)
			s["url"] = "${" + st.EnvVar + "}"
			placeholders = append(placeholders, st)
			notes = append(notes, Note{Component: "mcpServers." + name + ".url", Became: "empty in the plugin: the setting " + st.EnvVar + "; the server starts once it is set"})
		}
		for k, v := range s {
			switch k {
			case "type":
			case "url":
				if typ == "http" {
					conv["httpUrl"] = v
				} else {
					conv["url"] = v
				}
			case "command", "args", "env", "cwd", "headers", "timeout":
				conv[k] = v
			default:
				notes = append(notes, Note{Component: "mcpServers." + name + "." + k, Became: "not a field gem reads", Dropped: true})
			}
		}
		var vnotes []string
		out[name] = mapStrings(conv, func(s string) string {
			t, n := Variables(s)
			vnotes = append(vnotes, n...)
			return t
		})
		became := "MCP server " + name
		if len(vnotes) > 0 {
			became += " (" + strings.Join(dedupe(vnotes), "; ") + ")"
		}
		notes = append(notes, Note{Component: "mcpServers." + name, Became: became})
	}
	return out, placeholders, notes
}

// varRef is compiled on first use: discovery in the light front links this package.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_.]*)(:-[^}]*)?\}`) })

// Variables rewrites Claude Code's variables in s as gem's, and says what it could not.
func Variables(s string) (string, []string) {
	var notes []string
	out := varRef().ReplaceAllStringFunc(s, func(m string) string {
		sub := varRef().FindStringSubmatch(m)
		name, def := sub[1], sub[2]
		switch {
		case name == "CLAUDE_PLUGIN_ROOT":
			return "${extensionPath}"
		case name == "CLAUDE_PROJECT_DIR":
			return "${workspacePath}"
		case name == "CLAUDE_PLUGIN_DATA":
			return "${extensionData}"
		case strings.HasPrefix(name, "user_config."):
			return "${" + OptionVar(strings.TrimPrefix(name, "user_config.")) + "}"
		}
		_ = def // ${VAR:-default} is gem's syntax too
		return m
	})
	return out, notes
}

// mapStrings applies f to every string in v (maps and lists walked).
func mapStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = mapStrings(e, f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = mapStrings(e, f)
		}
		return out
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range s {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}
