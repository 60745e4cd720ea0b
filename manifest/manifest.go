// Package manifest owns gemini-extension.json: its types, a parser that reports syntax errors
// with line and column, a lenient loader that keeps every well-typed field and records every
// mistyped one with its JSON path, the two variable passes and the platform/arch names.
//
// It does no I/O: callers hand it bytes and an environment. Semantic validation (which needs
// semver) lives in manifest/validate so that the hot path (discovery in the `gem` front
// binary) does not pay Masterminds/semver's package initialisation (≈ 2 ms here).
//
// Choices where the specs are silent:
//   - The manifest is strict JSON, as Gemini CLI's JSON.parse reads it: comments, trailing
//     commas and a UTF-8 byte-order mark are syntax errors, reported with line:column and a hint.
//   - Duplicate keys: the last one wins, as in JSON.parse.
//   - A non-string `name` that is a number or boolean is used as its JSON text (as JavaScript
//     would); an object or array name falls back to the folder name. Both are validation errors.
//   - Maps (commands, plugins, mcpServers, env, headers) come out sorted by key, so output
//     is stable (encoding/json does not keep object order).
//   - A command or plugin may name its own context file (`context`, a path inside the
//     extension folder): gem adds it to its model's context after contextFileName's; Gemini
//     CLI, which ignores commands and plugins, never reads it, so what only gem runs is not
//     advertised to Gemini CLI's model.
package manifest

import (
	"encoding/json"
	"slices"
	"strings"
)

// FileName is the manifest's file name inside an extension folder.
const FileName = "gemini-extension.json"

// Manifest is a parsed gemini-extension.json. Fields with the wrong JSON type are left at
// their zero value and reported by Load as problems.
type Manifest struct {
	Name        string
	NameSet     bool // a usable name was present (string, number or boolean)
	Version     string
	Description string

	MCPServers      []MCPServer
	ContextFileName []string // as declared; empty means the default GEMINI.md
	ContextFileSet  bool
	ExcludeTools    []string
	Settings        []Setting
	Themes          json.RawMessage
	Plan            json.RawMessage
	MigratedTo      string

	// gem's own fields.
	Commands []Command
	Plugins  []Plugin
	Sandbox  *Sandbox
	Engines  Engines

	// Raw is the whole document as decoded (map[string]any for a valid manifest).
	Raw any
}

// MCPServer is one entry of mcpServers.
type MCPServer struct {
	Name                 string
	Command              string          `manifest:"command"`
	Args                 []string        `manifest:"args"`
	Env                  []KV            `manifest:"env"`
	Cwd                  string          `manifest:"cwd"`
	URL                  string          `manifest:"url"`
	HTTPURL              string          `manifest:"httpUrl"`
	Headers              []KV            `manifest:"headers"`
	TCP                  string          `manifest:"tcp"`
	Type                 string          `manifest:"type"`
	Timeout              float64         `manifest:"timeout"` // milliseconds; 0 means the default (600000)
	Trust                bool            `manifest:"trust"`
	Description          string          `manifest:"description"`
	IncludeTools         []string        `manifest:"includeTools"`
	ExcludeTools         []string        `manifest:"excludeTools"`
	OAuth                json.RawMessage `manifest:"oauth"`
	AuthProviderType     string          `manifest:"authProviderType"`
	TargetAudience       string          `manifest:"targetAudience"`
	TargetServiceAccount string          `manifest:"targetServiceAccount"`
}

// DefaultMCPTimeoutMillis is Gemini CLI's default MCP request timeout.
const DefaultMCPTimeoutMillis = 600000

// KV is one key/value pair of an ordered string map (env, headers).
type KV struct {
	Key, Value string
}

// Setting is a value the user supplies at install (`gem ext config`).
type Setting struct {
	Name        string `json:"name" manifest:"name"`
	Description string `json:"description" manifest:"description"`
	EnvVar      string `json:"envVar" manifest:"envVar"`
	Sensitive   bool   `json:"sensitive" manifest:"sensitive"`
}

// URLSetting is the setting that holds the address of MCP server server when the extension
// leaves it empty (a Claude Code plugin's placeholder the user fills in): its remote server's
// url is then ${<EnvVar>}, and it starts once the setting is set.
func URLSetting(server string) Setting {
	return Setting{Name: server + " URL", Description: "the address of MCP server " + server + ": the extension leaves it for you to give",
		EnvVar: "MCP_" + EnvVarPart(server) + "_URL"}
}

// EnvVarPart is s as a part of an environment variable's name: upper case, each character
// that is not a letter or digit an underscore.
func EnvVarPart(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Command is an executable slash command (gem's `commands` field).
type Command struct {
	Name           string
	Type           string   `manifest:"type"`
	Binary         string   `manifest:"binary"`
	Description    string   `manifest:"description"`
	Subcommands    []string `manifest:"subcommands"`
	RequireConfirm bool     `manifest:"requireConfirm"`
	Env            []KV     `manifest:"env"`
	SHA256         []KV     `manifest:"sha256"` // "platform/arch" -> hex digest
	// Context is a file in the extension folder that tells gem's model about this command
	// (GemContextFiles); Gemini CLI, which does not run it, never reads it.
	Context string `manifest:"context"`
}

// Plugin is a go-plugin tool plugin (gem's `plugins` field).
type Plugin struct {
	ID          string
	Binary      string   `manifest:"binary"`
	Description string   `manifest:"description"`
	SHA256      []KV     `manifest:"sha256"`
	Env         []KV     `manifest:"env"`
	Sandbox     *Sandbox `manifest:"sandbox"`
	// Context is a file in the extension folder about the plugin's tools, for gem's model
	// only (GemContextFiles).
	Context string `manifest:"context"`
}

// Sandbox is what an extension's subprocesses may reach beyond the defaults.
type Sandbox struct {
	Network bool     `json:"network"`
	Read    []string `json:"read,omitempty"`
	Write   []string `json:"write,omitempty"`
	Env     []string `json:"env,omitempty"`
	// Toolchains are the programs (python3, node…) that the extension's programs run from
	// the user's PATH, as a shell does: gem lets them read those toolchains (launcher
	// profiles, host/toolchain), wherever the user keeps them.
	Toolchains []string `json:"toolchains,omitempty"`
}

// Engines holds version constraints on the host.
type Engines struct {
	Gem string `json:"gem,omitempty"`
}

// ContextFiles returns the context file names with the default applied.
func (m *Manifest) ContextFiles() []string {
	if !m.ContextFileSet || len(m.ContextFileName) == 0 {
		return []string{"GEMINI.md"}
	}
	return m.ContextFileName
}

// GemContextFiles are the context files of the parts only gem runs (commands.<name>.context,
// plugins.<id>.context), in manifest order, without those contextFileName names already:
// a gem-made extension keeps what Gemini CLI cannot run out of the context Gemini CLI gives
// its model, and gem still tells its own.
func (m *Manifest) GemContextFiles() []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) && !slices.Contains(m.ContextFiles(), name) {
			out = append(out, name)
		}
	}
	for _, c := range m.Commands {
		add(c.Context)
	}
	for _, p := range m.Plugins {
		add(p.Context)
	}
	return out
}

// Command returns the command with the given name, or nil.
func (m *Manifest) Command(name string) *Command {
	for i := range m.Commands {
		if m.Commands[i].Name == name {
			return &m.Commands[i]
		}
	}
	return nil
}

// LookupKV returns the value of key in an ordered map.
func LookupKV(kvs []KV, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}
