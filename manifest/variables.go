package manifest

import (
	"encoding/json"
	"strings"
)

// Vars are the values of the first variable pass.
type Vars struct {
	ExtensionPath string // the extension folder (for a link, its source folder)
	WorkspacePath string // the current directory
	// ExtensionData is the extension's own data folder, which its sandboxed programs may
	// write ($GEM_HOME/data/<name>): ${extensionData}, gem's (Claude Code's
	// ${CLAUDE_PLUGIN_DATA}); Gemini CLI has none.
	ExtensionData string
	PathSeparator string // "/" or `\`
	Platform      Platform
}

// Lookup finds a variable's value for the second pass (settings, then the environment).
type Lookup func(name string) (string, bool)

// ExpandPathVars runs the first pass: ${extensionPath}, ${workspacePath}, ${extensionData}, ${/},
// ${pathSeparator}, ${platform} and ${arch}. Any other ${X} is left as it is.
func (v Vars) ExpandPathVars(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		name := s[i+2 : i+2+j]
		val, ok := v.pathVar(name)
		b.WriteString(s[:i])
		if ok {
			b.WriteString(val)
		} else {
			b.WriteString(s[i : i+3+j])
		}
		s = s[i+3+j:]
	}
}

func (v Vars) pathVar(name string) (string, bool) {
	switch name {
	case "extensionPath":
		return v.ExtensionPath, true
	case "workspacePath":
		return v.WorkspacePath, true
	case "extensionData":
		return v.ExtensionData, v.ExtensionData != ""
	case "/", "pathSeparator":
		sep := v.PathSeparator
		if sep == "" {
			sep = "/"
		}
		return sep, true
	case "platform":
		return v.Platform.OS, v.Platform.OS != ""
	case "arch":
		return v.Platform.Arch, v.Platform.Arch != ""
	}
	return "", false
}

// ExpandEnvVars runs the second pass: $VAR, ${VAR} and ${VAR:-default}. Each name is looked
// up in order in lookups; a ${VAR:-default} with no value takes the default; anything else
// not found is left as it is.
func ExpandEnvVars(s string, lookups ...Lookup) string {
	if !strings.Contains(s, "$") {
		return s
	}
	find := func(name string) (string, bool) {
		for _, l := range lookups {
			if l == nil {
				continue
			}
			if v, ok := l(name); ok {
				return v, true
			}
		}
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		if s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				break
			}
			body := s[i+2 : i+2+end]
			name, def, hasDef := strings.Cut(body, ":-")
			if !isVarName(name) {
				b.WriteString(s[i : i+3+end])
			} else if v, ok := find(name); ok {
				b.WriteString(v)
			} else if hasDef {
				b.WriteString(def)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 3 + end
			continue
		}
		n := varNameLen(s[i+1:])
		if n == 0 {
			b.WriteByte(c)
			i++
			continue
		}
		name := s[i+1 : i+1+n]
		if v, ok := find(name); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+1+n])
		}
		i += 1 + n
	}
	return b.String()
}

func varNameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return i
	}
	return len(s)
}

func isVarName(s string) bool { return s != "" && varNameLen(s) == len(s) }

// IsEnvVarName reports whether s is a valid environment variable name.
func IsEnvVarName(s string) bool { return isVarName(s) }

// Expander applies both passes.
type Expander struct {
	Vars    Vars
	Lookups []Lookup
}

// Expand applies the first then the second pass to s.
func (e Expander) Expand(s string) string {
	return ExpandEnvVars(e.Vars.ExpandPathVars(s), e.Lookups...)
}

// Resolved returns a copy of m with both variable passes applied to every string a program
// uses (binaries, args, env, cwd, URLs, headers, a server's oauth fields, context files,
// sandbox paths).
func (m *Manifest) Resolved(e Expander) *Manifest {
	r := *m
	r.Name = e.Expand(m.Name)
	r.ContextFileName = expandAll(e, m.ContextFileName)
	r.MCPServers = make([]MCPServer, len(m.MCPServers))
	for i, s := range m.MCPServers {
		s.Command = e.Expand(s.Command)
		s.Args = expandAll(e, s.Args)
		s.Env = expandKVs(e, s.Env)
		s.Cwd = e.Expand(s.Cwd)
		s.URL = e.Expand(s.URL)
		s.HTTPURL = e.Expand(s.HTTPURL)
		s.Headers = expandKVs(e, s.Headers)
		s.TCP = e.Expand(s.TCP)
		s.OAuth = expandJSON(e.Expand, s.OAuth)
		r.MCPServers[i] = s
	}
	r.Commands = make([]Command, len(m.Commands))
	for i, c := range m.Commands {
		c.Binary = e.Expand(c.Binary)
		c.Env = expandKVs(e, c.Env)
		r.Commands[i] = c
	}
	r.Plugins = make([]Plugin, len(m.Plugins))
	for i, p := range m.Plugins {
		p.Binary = e.Expand(p.Binary)
		p.Env = expandKVs(e, p.Env)
		p.Sandbox = p.Sandbox.resolved(e)
		r.Plugins[i] = p
	}
	r.Sandbox = m.Sandbox.resolved(e)
	return &r
}

// expandJSON expands every string of a JSON document (an oauth field: its clientSecret may
// be "${SECRET}", as Gemini CLI hydrates it); a document it cannot read is left as is.
func expandJSON(expand func(string) string, raw json.RawMessage) json.RawMessage {
	var doc any
	if len(raw) == 0 || json.Unmarshal(raw, &doc) != nil {
		return raw
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			return expand(v)
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = walk(v[k])
			}
		}
		return v
	}
	out, err := json.Marshal(walk(doc))
	if err != nil {
		return raw
	}
	return out
}

// ExpandEnvJSON expands the environment variables in every string of a JSON document (an
// oauth field, checked before it is used).
func ExpandEnvJSON(raw json.RawMessage, lookups ...Lookup) json.RawMessage {
	return expandJSON(func(s string) string { return ExpandEnvVars(s, lookups...) }, raw)
}

func (s *Sandbox) resolved(e Expander) *Sandbox {
	if s == nil {
		return nil
	}
	c := *s
	c.Read = expandAll(e, s.Read)
	c.Write = expandAll(e, s.Write)
	return &c
}

func expandAll(e Expander, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = e.Expand(s)
	}
	return out
}

func expandKVs(e Expander, in []KV) []KV {
	if in == nil {
		return nil
	}
	out := make([]KV, len(in))
	for i, kv := range in {
		out[i] = KV{Key: kv.Key, Value: e.Expand(kv.Value)}
	}
	return out
}

// NamesWorkspace reports whether a sandbox path (before expansion) is the workspace itself
// or a folder in it: "${workspacePath}" or "${workspacePath}/…". Writing it is the
// workspace capability ("change files in your project").
func NamesWorkspace(p string) bool {
	return p == "${workspacePath}" || strings.HasPrefix(p, "${workspacePath}/") || strings.HasPrefix(p, "${workspacePath}${/}")
}
