// Package antigravity reads Antigravity (agy) plugins as gem's extension model: plugin.json
// (at the plugin's root or in .antigravity-plugin/; name, description, disabled, logo) with
// mcp_config.json and rules/*.md becomes the equivalent gemini-extension.json, and the root
// hooks.json becomes a hooks file of gem's. skills/<n>/SKILL.md and agents/*.md (also
// *.agent.md) are read where gem reads them for every extension. What has no equivalent in
// gem is said in Notes, never dropped silently.
//
// Like package manifest it does no I/O: the caller hands it bytes, a function that reads a
// file of the plugin by its path relative to the plugin's folder, and one that lists a
// folder of it (the caller keeps both inside the folder).
//
// Conversions (Antigravity documents its formats loosely; what gem chose is written here):
//   - plugin.json: name, description and version as they are (Antigravity discards a
//     version; gem shows it, as for every extension, and one without gets what a Claude Code
//     plugin without gets: see package claude); other keys are discarded, as
//     Antigravity does. disabled true is said, not applied (gem ext disable turns a plugin
//     off); logo is said and ignored.
//   - mcp_config.json {"mcpServers": {…}}: command/args/env/cwd/headers/timeout as they
//     are; serverUrl (and url) is a streamable-HTTP server (httpUrl; an empty one is the
//     setting MCP_<SERVER>_URL the user gives, manifest.URLSetting); disabledTools is
//     excludeTools; a server with disabled true is dropped (said).
//   - rules/*.md: a rule whose front matter says trigger: always_on (or has no trigger) is a
//     context file; model_decision, glob and manual rules have no equivalent in gem (said:
//     write a skill for a rule the model picks).
//   - hooks.json: the top level is keyed by hook-group name, each group an object with
//     "enabled" (false drops the group, said) and event keys; a document keyed by events
//     directly, or wrapped in {"hooks": …} as Claude Code's, is read too. An event's list
//     holds matcher groups ({"matcher", "hooks": [{"type": "command", "command",
//     "timeout"}]}) or hooks directly ({"matcher", "command", "timeout"}). Events:
//     PreToolUse→BeforeTool, PostToolUse→AfterTool, PreInvocation→BeforeAgent,
//     PostInvocation and Stop→AfterAgent, SessionStart as it is. Tool names in a matcher
//     are gem's: run_command→run_shell_command, view_file→read_file, write_to_file→
//     write_file, replace_file_content and multi_replace_file_content→replace,
//     list_dir→list_directory, find_by_name→glob, grep_search as it is,
//     read_url_content→web_fetch. Timeouts are seconds in Antigravity, milliseconds in gem.
//     Antigravity runs a hook in the plugin's folder and has no plugin-root variable, so
//     each command becomes cd "${extensionPath}" && (command). The hook speaks gem's (Gemini
//     CLI's) protocol: exit 2 denies in both; Antigravity's force_ask decision is gem's ask.
package antigravity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/frontmatter"
	"github.com/gemhost/gem/manifest"
)

// ManifestFile is where an Antigravity plugin's manifest sits at its root; AltManifestFile
// is the other place Antigravity reads it from.
const (
	ManifestFile    = "plugin.json"
	AltManifestFile = ".antigravity-plugin/plugin.json"
)

// Note is what became of one component of a plugin (manifest.Note).
type Note = manifest.Note

// Reader reads a file of the plugin by its slash-separated path relative to the plugin's
// folder; a missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
type Reader func(rel string) ([]byte, error)

// Lister names the files (not folders) of a folder of the plugin, by slash-separated path
// relative to the plugin's folder; a missing folder is no names.
type Lister func(dir string) ([]string, error)

type plugin struct {
	Name        any  `json:"name"`
	Version     any  `json:"version"`
	Description any  `json:"description"`
	Disabled    bool `json:"disabled"`
	Logo        any  `json:"logo"`
}

// Convert makes the gemini-extension.json equivalent of the plugin whose plugin.json is
// data, reading mcp_config.json and rules/ with read and list. A plugin.json that is not a
// JSON object is an error.
func Convert(data []byte, read Reader, list Lister) ([]byte, []Note, error) {
	var p plugin
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, nil, fmt.Errorf("plugin.json: %w", err)
	}
	var notes []Note
	doc := map[string]any{}
	for k, v := range map[string]any{"name": p.Name, "version": p.Version, "description": p.Description} {
		if v != nil {
			doc[k] = v
		}
	}
	if p.Disabled {
		notes = append(notes, Note{Component: "disabled", Became: "not applied: gem ext disable turns a plugin off", Dropped: true})
	}
	if p.Logo != nil {
		notes = append(notes, Note{Component: "logo", Became: "gem shows no logos", Dropped: true})
	}
	servers, placeholders, snotes := mcpServers(read)
	notes = append(notes, snotes...)
	if len(servers) > 0 {
		doc["mcpServers"] = servers
	}
	if len(placeholders) > 0 {
		doc["settings"] = placeholders
	}
	context, rnotes := rules(read, list)
	notes = append(notes, rnotes...)
	if len(context) > 0 {
		doc["contextFileName"] = context
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	return out, notes, err
}

// mcpServers are mcp_config.json's servers as gemini-extension.json's. A server whose
// serverUrl (or url) is empty is a placeholder the user fills in: its url becomes a setting
// (manifest.URLSetting), returned in placeholders.
func mcpServers(read Reader) (out map[string]any, placeholders []manifest.Setting, notes []Note) {
	raw, err := read("mcp_config.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, []Note{{Component: "mcp_config.json", Became: "cannot be read: " + err.Error(), Dropped: true}}
	}
	var file struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, nil, []Note{{Component: "mcp_config.json", Became: "not JSON of {\"mcpServers\": {…}}: " + err.Error(), Dropped: true}}
	}
	out = map[string]any{}
	for _, name := range sortedKeys(file.MCPServers) {
		s := file.MCPServers[name]
		what := "mcp_config.json mcpServers." + name
		if d, _ := s["disabled"].(bool); d {
			notes = append(notes, Note{Component: what, Became: "disabled in mcp_config.json", Dropped: true})
			continue
		}
		conv := map[string]any{}
		for _, k := range sortedKeys(s) {
			v := s[k]
			switch k {
			case "disabled":
			case "serverUrl", "url":
				if u, _ := v.(string); strings.TrimSpace(u) == "" {
					st := manifest.URLSetting(name)
					v = "${" + st.EnvVar + "}"
					placeholders = append(placeholders, st)
					notes = append(notes, Note{Component: what + "." + k, Became: "empty in the plugin: the setting " + st.EnvVar + "; the server starts once it is set"})
				}
				conv["httpUrl"] = v
			case "disabledTools":
				conv["excludeTools"] = v
			case "command", "args", "env", "cwd", "headers", "timeout":
				conv[k] = v
			default:
				notes = append(notes, Note{Component: what + "." + k, Became: "not a field gem reads", Dropped: true})
			}
		}
		out[name] = conv
		notes = append(notes, Note{Component: what, Became: "MCP server " + name})
	}
	return out, placeholders, notes
}

// rules are the context files among rules/*.md (always_on ones).
func rules(read Reader, list Lister) ([]string, []Note) {
	names, err := list("rules")
	if err != nil {
		return nil, []Note{{Component: "rules/", Became: "cannot be listed: " + err.Error(), Dropped: true}}
	}
	sort.Strings(names)
	var context []string
	var notes []Note
	for _, rel := range names {
		if path.Ext(rel) != ".md" {
			continue
		}
		data, err := read(rel)
		if err != nil {
			notes = append(notes, Note{Component: rel, Became: "cannot be read: " + err.Error(), Dropped: true})
			continue
		}
		trigger := "always_on"
		if head, _, ok := frontmatter.Split(string(data)); ok {
			if t := frontmatter.Fields(head)["trigger"]; t != "" {
				trigger = t
			}
		}
		switch trigger {
		case "always_on":
			context = append(context, rel)
			notes = append(notes, Note{Component: rel, Became: "context file (always_on rule)"})
		case "model_decision":
			notes = append(notes, Note{Component: rel, Became: "gem has no rules the model picks: write it as a skill", Dropped: true})
		default:
			notes = append(notes, Note{Component: rel, Became: "gem has no " + trigger + " rules", Dropped: true})
		}
	}
	return context, notes
}

// Events are Antigravity's hook events as gem's.
var Events = map[string]string{
	"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "PreInvocation": "BeforeAgent",
	"PostInvocation": "AfterAgent", "Stop": "AfterAgent", "SessionStart": "SessionStart",
}

// Tools are Antigravity's tool names as gem's.
var Tools = map[string]string{
	"run_command": "run_shell_command", "view_file": "read_file", "write_to_file": "write_file",
	"replace_file_content": "replace", "multi_replace_file_content": "replace",
	"list_dir": "list_directory", "find_by_name": "glob", "grep_search": "grep_search",
	"read_url_content": "web_fetch",
}

var toolWord = sync.OnceValue(func() *regexp.Regexp {
	names := make([]string, 0, len(Tools))
	for k := range Tools {
		names = append(names, regexp.QuoteMeta(k))
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names))) // longer first where one is a prefix
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
})

// Matcher is a hook matcher (a regular expression over tool names) with gem's tool names.
func Matcher(m string) string {
	return toolWord().ReplaceAllStringFunc(m, func(w string) string { return Tools[w] })
}

// hook is one Antigravity hook, or a matcher group of them.
type hook struct {
	Matcher string   `json:"matcher"`
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"` // seconds
	Hooks   []hook   `json:"hooks"`
}

type (
	gemHook  = manifest.HookCommand
	gemGroup = manifest.HookGroup
)

// Hooks converts the plugin's root hooks.json into gem's hooks.json; nil when the plugin has
// none. A hooks.json that is not JSON of the shapes above is an error naming it.
func Hooks(read Reader) ([]byte, []Note, error) {
	data, err := read("hooks.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hooks.json: %w", err)
	}
	doc, notes, err := ConvertHooks(data)
	if err != nil {
		err = fmt.Errorf("hooks.json: %w", err)
	}
	return doc, notes, err
}

// ConvertHooks converts the text of a hooks.json (see the package doc for its shapes).
func ConvertHooks(data []byte) ([]byte, []Note, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, err
	}
	if inner, ok := top["hooks"]; ok && len(top) == 1 {
		top = nil
		if err := json.Unmarshal(inner, &top); err != nil {
			return nil, nil, fmt.Errorf("hooks: %w", err)
		}
	}
	type eventList struct {
		group, event string
		raw          json.RawMessage
	}
	var lists []eventList
	var notes []Note
	for _, key := range sortedKeys(top) {
		raw := bytes.TrimSpace(top[key])
		if len(raw) > 0 && raw[0] == '[' { // keyed by event, no group
			lists = append(lists, eventList{"", key, raw})
			continue
		}
		var group map[string]json.RawMessage
		if err := json.Unmarshal(raw, &group); err != nil {
			return nil, nil, fmt.Errorf("%s: a hook group is an object of events: %w", key, err)
		}
		if en, ok := group["enabled"]; ok {
			var enabled bool
			if err := json.Unmarshal(en, &enabled); err != nil {
				return nil, nil, fmt.Errorf("%s.enabled: use true or false", key)
			}
			if !enabled {
				notes = append(notes, Note{Component: "hooks.json " + key, Became: "enabled is false", Dropped: true})
				continue
			}
		}
		for _, event := range sortedKeys(group) {
			if event != "enabled" {
				lists = append(lists, eventList{key, event, group[event]})
			}
		}
	}
	out := map[string][]gemGroup{}
	for _, l := range lists {
		what := "hooks.json " + strings.TrimPrefix(l.group+"."+l.event, ".")
		var entries []hook
		if err := json.Unmarshal(l.raw, &entries); err != nil {
			return nil, nil, fmt.Errorf("%s: a list of hooks: %w", strings.TrimPrefix(what, "hooks.json "), err)
		}
		gemEvent := Events[l.event]
		if gemEvent == "" {
			notes = append(notes, Note{Component: what, Became: "gem has no " + l.event + " event", Dropped: true})
			continue
		}
		for i, e := range entries {
			hooks := e.Hooks
			if len(hooks) == 0 && e.Command != "" {
				hooks = []hook{e}
			}
			g := gemGroup{Matcher: Matcher(e.Matcher)}
			for j, h := range hooks {
				at := fmt.Sprintf("%s[%d].%d", what, i, j)
				if h.Type != "" && h.Type != "command" {
					notes = append(notes, Note{Component: at, Became: "a " + h.Type + " hook: gem runs command hooks only", Dropped: true})
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					notes = append(notes, Note{Component: at, Became: "no command", Dropped: true})
					continue
				}
				gh := gemHook{Type: "command", Command: `cd "${extensionPath}" && (` + h.Command + ")"}
				became := gemEvent + " command hook, run in the plugin's folder"
				if h.Timeout != nil && *h.Timeout > 0 {
					gh.Timeout = *h.Timeout * 1000
					became += fmt.Sprintf(", timeout %gs = %gms", *h.Timeout, gh.Timeout)
				}
				notes = append(notes, Note{Component: at, Became: became})
				g.Hooks = append(g.Hooks, gh)
			}
			if len(g.Hooks) > 0 {
				out[gemEvent] = append(out[gemEvent], g)
			}
		}
	}
	doc, err := json.MarshalIndent(map[string]any{"hooks": out}, "", "  ")
	return doc, notes, err
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
