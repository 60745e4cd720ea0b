package settings

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// modelKey is the model key: Gemini CLI's {"name": …, …} or, as older files and the issue's
// users write it, a plain string naming the model.
type modelKey struct {
	Name                 *string  `json:"name"`
	CompressionThreshold *float64 `json:"compressionThreshold"`
	ChatCompression      struct {
		ContextPercentageThreshold *float64 `json:"contextPercentageThreshold"`
	} `json:"chatCompression"`
}

func (m *modelKey) UnmarshalJSON(data []byte) error {
	var name string
	if json.Unmarshal(data, &name) == nil {
		*m = modelKey{Name: &name}
		return nil
	}
	type plain modelKey
	return json.Unmarshal(data, (*plain)(m))
}

// approvalModes are the values general.defaultApprovalMode takes (Gemini CLI 0.61's schema
// offers default, auto_edit and plan; gem also takes yolo, which the policy engine still
// confines to trusted folders and security.disableYoloMode refuses).
var approvalModes = []string{"default", "auto_edit", "yolo", "plan"}

// mergeGeneral applies the approval mode, MCP and checkpointing keys of one file.
func (s *Settings) mergeGeneral(path string, f file) {
	for _, v := range []struct {
		key  string
		from *string
	}{{"approvalMode", f.ApprovalMode}, {"tools.approvalMode", f.Tools.ApprovalMode}, {"general.defaultApprovalMode", f.General.DefaultApprovalMode}} {
		if v.from == nil {
			continue
		}
		if !slices.Contains(approvalModes, *v.from) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s %q: use default, auto_edit, yolo or plan", path, v.key, *v.from))
			continue
		}
		s.ApprovalMode = *v.from
		s.setOne(v.key, path, "approvalMode", "tools.approvalMode", "general.defaultApprovalMode")
	}
	for _, v := range []struct {
		key  string
		from *bool
	}{{"mcpEnabled", f.MCPEnabled}, {"mcp.enabled", f.MCP.Enabled}, {"admin.mcp.enabled", f.Admin.MCP.Enabled}} {
		if v.from != nil {
			s.MCPOff = !*v.from
			s.setOne(v.key, path, "mcpEnabled", "mcp.enabled", "admin.mcp.enabled")
		}
	}
}

// setOne records that key, one of the names of one setting, was set by path: the other
// names' origins are dropped, so Origin names the key whose value is in effect.
func (s *Settings) setOne(key, path string, names ...string) {
	for _, n := range names {
		delete(s.Origin, n)
	}
	s.Origin[key] = path
}

// envOverrides are the environment variables that override a settings key, as Gemini CLI
// layers them (the variable wins over every file; a command-line flag wins over both).
var envOverrides = []struct {
	Var, Key string
	set      func(s *Settings, v string)
}{
	{"GEMINI_MODEL", "model.name", func(s *Settings, v string) { s.Model = v }},
}

// applyEnv applies envOverrides; Origin names the variable as "$VAR".
func (s *Settings) applyEnv(getenv func(string) string) {
	if getenv == nil {
		return
	}
	for _, o := range envOverrides {
		if v := getenv(o.Var); v != "" {
			o.set(s, v)
			s.Origin[o.Key] = "$" + o.Var
		}
	}
	s.applyTelemetryEnv(getenv)
}

// envRef is Gemini CLI's reference to an environment variable in a settings string: $VAR,
// ${VAR} or ${VAR:-default}.
var envRef = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// ExpandEnv replaces the references in s as Gemini CLI's resolveEnvVarsInString does: a
// variable that is set (even empty) gives its value, else the default, else the reference
// stays as written.
func ExpandEnv(s string, lookup func(string) (string, bool)) string {
	return envRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if v, ok := lookup(name); ok {
			return v
		}
		if strings.Contains(ref, ":-") {
			return m[3]
		}
		return ref
	})
}

// expandValues replaces the references in every string of a settings document, except
// inside mcpServers and hooks (their env and commands are expanded when they run, by the
// program's own environment) — what Gemini CLI's resolveEnvVarsInObject does for the keys
// gem reads.
func expandValues(v any, lookup func(string) (string, bool), top bool) any {
	switch v := v.(type) {
	case string:
		return ExpandEnv(v, lookup)
	case []any:
		for i := range v {
			v[i] = expandValues(v[i], lookup, false)
		}
	case map[string]any:
		for k := range v {
			if top && (k == "mcpServers" || k == "hooks") {
				continue
			}
			v[k] = expandValues(v[k], lookup, false)
		}
	}
	return v
}

// expandDocument expands the environment references in the string values of a standard
// JSON settings document (expandValues); a document that is not an object is left as is.
func expandDocument(std []byte, getenv func(string) string) []byte {
	if getenv == nil {
		return std
	}
	var doc map[string]any
	if json.Unmarshal(std, &doc) != nil {
		return std
	}
	lookup := func(name string) (string, bool) {
		v := getenv(name)
		return v, v != ""
	}
	out, err := json.Marshal(expandValues(doc, lookup, true))
	if err != nil {
		return std
	}
	return out
}
