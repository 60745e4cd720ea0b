package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/frontmatter"
	"github.com/gemhost/gem/manifest"
)

// Events are Claude Code's hook events as gem's ("" for one gem has no equivalent of).
var Events = map[string]string{
	"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "UserPromptSubmit": "BeforeAgent",
	"Stop": "AfterAgent", "PreCompact": "PreCompress", "SessionStart": "SessionStart",
	"SessionEnd": "SessionEnd", "Notification": "Notification",
}

// Tools are Claude Code's tool names as gem's.
var Tools = map[string]string{
	"Bash": "run_shell_command", "Read": "read_file", "Write": "write_file", "Edit": "replace",
	"MultiEdit": "replace", "Glob": "glob", "Grep": "grep_search", "LS": "list_directory",
	"WebFetch": "web_fetch", "TodoWrite": "write_todos",
}

var toolWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(Bash|Read|Write|Edit|MultiEdit|Glob|Grep|LS|WebFetch|TodoWrite)\b`)
})

// Matcher is a hook matcher (a regular expression over tool names) with gem's tool names.
func Matcher(m string) string {
	return toolWord().ReplaceAllStringFunc(m, func(w string) string { return Tools[w] })
}

// claudeHook is one hook of a matcher group.
type claudeHook struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"` // seconds
}

type claudeGroup struct {
	Matcher string       `json:"matcher"`
	Hooks   []claudeHook `json:"hooks"`
}

type (
	gemHook  = manifest.HookCommand
	gemGroup = manifest.HookGroup
)

// Hooks converts a Claude Code hooks document ({"hooks": {Event: [groups]}}, or the inline
// object of plugin.json's hooks field, with or without the "hooks" wrapper) into gem's
// hooks.json. A document that is not JSON of that shape is an error.
func Hooks(data []byte) ([]byte, []Note, error) {
	var wrapped struct {
		Hooks map[string][]claudeGroup `json:"hooks"`
	}
	events := map[string][]claudeGroup{}
	if err := json.Unmarshal(data, &wrapped); err == nil && wrapped.Hooks != nil {
		events = wrapped.Hooks
	} else if err := json.Unmarshal(data, &events); err != nil {
		return nil, nil, fmt.Errorf("hooks: %w", err)
	}
	var notes []Note
	out := map[string][]gemGroup{}
	for _, event := range sortedKeys(events) {
		gemEvent := Events[event]
		if gemEvent == "" {
			notes = append(notes, Note{Component: "hooks." + event, Became: "gem has no " + event + " event", Dropped: true})
			continue
		}
		for _, g := range events[event] {
			gg := gemGroup{Matcher: Matcher(g.Matcher)}
			for i, h := range g.Hooks {
				what := fmt.Sprintf("hooks.%s[%q].%d", event, g.Matcher, i)
				if h.Type != "command" {
					notes = append(notes, Note{Component: what, Became: "a " + h.Type + " hook: gem runs command hooks only", Dropped: true})
					continue
				}
				cmd, vnotes := Variables(h.Command)
				hk := gemHook{Type: "command", Command: cmd}
				became := gemEvent + " command hook"
				if h.Timeout != nil && *h.Timeout > 0 {
					hk.Timeout = *h.Timeout * 1000
					became += fmt.Sprintf(", timeout %gs = %gms", *h.Timeout, hk.Timeout)
				}
				if len(vnotes) > 0 {
					became += " (" + strings.Join(dedupe(vnotes), "; ") + ")"
				}
				notes = append(notes, Note{Component: what, Became: became})
				gg.Hooks = append(gg.Hooks, hk)
			}
			if len(gg.Hooks) > 0 {
				out[gemEvent] = append(out[gemEvent], gg)
			}
		}
	}
	doc, err := json.MarshalIndent(map[string]any{"hooks": out}, "", "  ")
	return doc, notes, err
}

// HooksOf is the plugin's hooks in gem's format: plugin.json's inline hooks, or the file
// its hooks field names, else hooks/hooks.json; nil when it has none.
func HooksOf(pluginJSON []byte, read Reader) ([]byte, []Note, error) {
	var p plugin
	json.Unmarshal(pluginJSON, &p)
	raw := bytes.TrimSpace(p.Hooks)
	file := "hooks/hooks.json"
	switch {
	case len(raw) > 0 && raw[0] == '{':
		doc, notes, err := Hooks(raw)
		if err != nil {
			err = fmt.Errorf("%s's hooks: %w", ManifestFile, err)
		}
		return doc, notes, err
	case len(raw) > 0 && raw[0] == '"':
		json.Unmarshal(raw, &file)
		file = strings.TrimPrefix(file, "./")
	}
	data, err := read(file)
	if err != nil {
		if file == "hooks/hooks.json" && errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil // no hooks
		}
		return nil, nil, fmt.Errorf("%s: %w", file, err) // named, or there but unreadable
	}
	doc, notes, err := Hooks(data)
	if err != nil {
		err = fmt.Errorf("%s: %w", file, err)
	}
	return doc, notes, err
}

var positional = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$[1-9]`) })

// Command is a commands/*.md prompt command: its description and its prompt in gem's
// template (with {{args}}).
func Command(md []byte) (description, prompt string, notes []string) {
	var front map[string]string
	head, body, ok := frontmatter.Split(string(md))
	if ok {
		front = frontmatter.Fields(head)
	} else {
		body = string(md)
	}
	description = front["description"]
	for _, k := range []string{"argument-hint", "allowed-tools", "model"} {
		if front[k] != "" {
			notes = append(notes, k+" is not applied")
		}
	}
	prompt = strings.ReplaceAll(strings.TrimSpace(body), "$ARGUMENTS", "{{args}}")
	if strings.Contains(prompt, "!`") {
		notes = append(notes, "!`command` (run by Claude Code before sending) is not run: left as text")
	}
	if positional().MatchString(prompt) {
		notes = append(notes, "positional arguments ($1…) have no equivalent: left as written")
	}
	return description, prompt, notes
}
