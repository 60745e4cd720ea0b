package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestLayering: the model, approval mode, MCP and checkpointing keys across the user's, the
// workspace's and the system file, with environment overrides and $VAR references, as Gemini
// CLI layers them; each value's origin is the file or variable that set it.
func TestLayering(t *testing.T) {
	cases := []struct {
		name                    string
		user, workspace, system string
		env                     map[string]string
		key, origin             string // origin: "user", "workspace", "system", or "$VAR"
		check                   func(s *Settings) bool
	}{
		{"model as a plain string", `{"model": "gemini-2.5-flash"}`, "", "", nil, "model.name", "user",
			func(s *Settings) bool { return s.Model == "gemini-2.5-flash" }},
		{"model as an object", `{"model": {"name": "m1"}}`, "", "", nil, "model.name", "user",
			func(s *Settings) bool { return s.Model == "m1" }},
		{"the workspace's model wins over the user's", `{"model": "u"}`, `{"model": {"name": "w"}}`, "", nil, "model.name", "workspace",
			func(s *Settings) bool { return s.Model == "w" }},
		{"the system file wins over both", `{"model": "u"}`, `{"model": "w"}`, `{"model": "sys"}`, nil, "model.name", "system",
			func(s *Settings) bool { return s.Model == "sys" }},
		{"GEMINI_MODEL wins over every file", `{"model": "u"}`, "", `{"model": "sys"}`, map[string]string{"GEMINI_MODEL": "env-model"}, "model.name", "$GEMINI_MODEL",
			func(s *Settings) bool { return s.Model == "env-model" }},
		{"a $VAR reference in a value", `{"model": {"name": "$MY_MODEL"}}`, "", "", map[string]string{"MY_MODEL": "from-var"}, "model.name", "user",
			func(s *Settings) bool { return s.Model == "from-var" }},
		{"${VAR:-default} when unset", `{"model": "${NOPE:-fallback}"}`, "", "", nil, "model.name", "user",
			func(s *Settings) bool { return s.Model == "fallback" }},
		{"an unset reference stays as written", `{"model": "${NOPE}"}`, "", "", nil, "model.name", "user",
			func(s *Settings) bool { return s.Model == "${NOPE}" }},
		{"general.defaultApprovalMode", `{"general": {"defaultApprovalMode": "auto_edit"}}`, "", "", nil, "general.defaultApprovalMode", "user",
			func(s *Settings) bool { return s.ApprovalMode == "auto_edit" }},
		{"the older approvalMode", `{"approvalMode": "plan"}`, "", "", nil, "approvalMode", "user",
			func(s *Settings) bool { return s.ApprovalMode == "plan" }},
		{"the workspace's approval mode wins", `{"general": {"defaultApprovalMode": "plan"}}`, `{"general": {"defaultApprovalMode": "auto_edit"}}`, "", nil, "general.defaultApprovalMode", "workspace",
			func(s *Settings) bool { return s.ApprovalMode == "auto_edit" }},
		{"an unknown approval mode is a warning", `{"general": {"defaultApprovalMode": "always"}}`, "", "", nil, "general.defaultApprovalMode", "",
			func(s *Settings) bool { return s.ApprovalMode == "" && len(s.Warnings) == 1 }},
		{"mcp.enabled false", `{"mcp": {"enabled": false}}`, "", "", nil, "mcp.enabled", "user",
			func(s *Settings) bool { return s.MCPOff }},
		{"mcpEnabled false", `{"mcpEnabled": false}`, "", "", nil, "mcpEnabled", "user",
			func(s *Settings) bool { return s.MCPOff }},
		{"admin.mcp.enabled false in the system file", `{"mcp": {"enabled": true}}`, "", `{"admin": {"mcp": {"enabled": false}}}`, nil, "admin.mcp.enabled", "system",
			func(s *Settings) bool { return s.MCPOff }},
		{"a later file's mcp.enabled wins over an earlier admin.mcp.enabled", `{"admin": {"mcp": {"enabled": false}}}`, "", `{"mcp": {"enabled": true}}`, nil, "admin.mcp.enabled", "",
			func(s *Settings) bool { return !s.MCPOff && s.Origin["mcp.enabled"] != "" }},
		{"checkpointing", `{"general": {"checkpointing": {"enabled": true}}}`, "", "", nil, "general.checkpointing.enabled", "user",
			func(s *Settings) bool { return s.Checkpointing }},
		{"telemetry off by default", `{}`, "", "", nil, "telemetry.enabled", "",
			func(s *Settings) bool { return s.Telemetry == Telemetry{} }},
		{"telemetry.enabled", `{"telemetry": {"enabled": true, "otlpEndpoint": "http://127.0.0.1:4318", "otlpProtocol": "http"}}`, "", "", nil, "telemetry.enabled", "user",
			func(s *Settings) bool {
				return s.Telemetry == Telemetry{Enabled: true, Endpoint: "http://127.0.0.1:4318", Protocol: "http"}
			}},
		{"GEMINI_TELEMETRY_ENABLED=1 turns it on", `{"telemetry": {"enabled": false}}`, "", "", map[string]string{"GEMINI_TELEMETRY_ENABLED": "1"}, "telemetry.enabled", "$GEMINI_TELEMETRY_ENABLED",
			func(s *Settings) bool { return s.Telemetry.Enabled }},
		{"GEMINI_TELEMETRY_ENABLED=yes is false, as in Gemini CLI", `{"telemetry": {"enabled": true}}`, "", "", map[string]string{"GEMINI_TELEMETRY_ENABLED": "yes"}, "telemetry.enabled", "$GEMINI_TELEMETRY_ENABLED",
			func(s *Settings) bool { return !s.Telemetry.Enabled }},
		{"OTEL_EXPORTER_OTLP_ENDPOINT overrides the file", `{"telemetry": {"otlpEndpoint": "http://file:4317"}}`, "", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317"}, "telemetry.otlpEndpoint", "$OTEL_EXPORTER_OTLP_ENDPOINT",
			func(s *Settings) bool { return s.Telemetry.Endpoint == "http://otel:4317" }},
		{"GEMINI_TELEMETRY_OTLP_ENDPOINT wins over OTEL_EXPORTER_OTLP_ENDPOINT", "", "", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317", "GEMINI_TELEMETRY_OTLP_ENDPOINT": "http://gem:4317"}, "telemetry.otlpEndpoint", "$GEMINI_TELEMETRY_OTLP_ENDPOINT",
			func(s *Settings) bool { return s.Telemetry.Endpoint == "http://gem:4317" }},
		{"GEMINI_TELEMETRY_OTLP_PROTOCOL and LOG_PROMPTS", `{"telemetry": {"otlpProtocol": "grpc"}}`, "", "", map[string]string{"GEMINI_TELEMETRY_OTLP_PROTOCOL": "http", "GEMINI_TELEMETRY_LOG_PROMPTS": "true"}, "telemetry.otlpProtocol", "$GEMINI_TELEMETRY_OTLP_PROTOCOL",
			func(s *Settings) bool { return s.Telemetry.Protocol == "http" && s.Telemetry.LogPrompts }},
		{"a project's file may turn telemetry on", `{}`, `{"telemetry": {"enabled": true, "target": "local"}}`, "", nil, "telemetry.enabled", "workspace",
			func(s *Settings) bool { return s.Telemetry.Enabled && s.Telemetry.Target == "local" }},
		{"a project's file cannot say where it goes, nor export prompts", `{"telemetry": {"otlpEndpoint": "http://mine:4317"}}`, `{"telemetry": {"otlpEndpoint": "http://evil:4317", "logPrompts": true}}`, "", nil, "telemetry.otlpEndpoint", "user",
			func(s *Settings) bool {
				return s.Telemetry.Endpoint == "http://mine:4317" && !s.Telemetry.LogPrompts && len(s.Warnings) == 2
			}},
		{"no modelConfigs: web search keeps Gemini CLI's default", `{"model": "m"}`, "", "", nil, "modelConfigs.customAliases.web-search", "",
			func(s *Settings) bool { return s.WebSearchModel == "" && len(s.Warnings) == 0 }},
		{"a custom web-search alias naming a model", `{"modelConfigs": {"customAliases": {"web-search": {"modelConfig": {"model": "gemini-2.5-pro"}}}}}`, "", "", nil, "modelConfigs.customAliases.web-search", "user",
			func(s *Settings) bool { return s.WebSearchModel == "gemini-2.5-pro" }},
		{"a custom web-search alias extending a built-in base", `{"modelConfigs": {"customAliases": {"web-search": {"extends": "gemini-2.5-flash-base"}}}}`, "", "", nil, "modelConfigs.customAliases.web-search", "user",
			func(s *Settings) bool { return s.WebSearchModel == "gemini-2.5-flash" }},
		{"a custom web-search alias extending a custom one", `{"modelConfigs": {"customAliases": {"mine": {"modelConfig": {"model": "m2"}}, "web-search": {"extends": "mine"}}}}`, "", "", nil, "modelConfigs.customAliases.web-search", "user",
			func(s *Settings) bool { return s.WebSearchModel == "m2" }},
		{"an override matching the alias wins over the alias", `{"modelConfigs": {"customAliases": {"web-search": {"modelConfig": {"model": "a"}}}, "overrides": [{"match": {"model": "web-search"}, "modelConfig": {"model": "o"}}]}}`, "", "", nil, "modelConfigs.overrides", "user",
			func(s *Settings) bool { return s.WebSearchModel == "o" }},
		{"an override for an agent scope is not web search's", `{"modelConfigs": {"overrides": [{"match": {"model": "web-search", "overrideScope": "x"}, "modelConfig": {"model": "o"}}]}}`, "", "", nil, "modelConfigs.overrides", "",
			func(s *Settings) bool { return s.WebSearchModel == "" }},
		{"the workspace's web-search model wins", `{"modelConfigs": {"customAliases": {"web-search": {"modelConfig": {"model": "u"}}}}}`, `{"modelConfigs": {"customOverrides": [{"match": {"model": "web-search"}, "modelConfig": {"model": "w"}}]}}`, "", nil, "modelConfigs.customOverrides", "workspace",
			func(s *Settings) bool {
				return s.WebSearchModel == "w" && s.Origin["modelConfigs.customAliases.web-search"] == ""
			}},
		{"an alias extending an unknown one is a warning", `{"modelConfigs": {"customAliases": {"web-search": {"extends": "nope"}}}}`, "", "", nil, "modelConfigs.customAliases.web-search", "",
			func(s *Settings) bool { return s.WebSearchModel == "" && len(s.Warnings) == 1 }},
		{"an alias cycle is a warning", `{"modelConfigs": {"customAliases": {"web-search": {"extends": "a"}, "a": {"extends": "web-search"}}}}`, "", "", nil, "modelConfigs.customAliases.web-search", "",
			func(s *Settings) bool { return s.WebSearchModel == "" && len(s.Warnings) == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vars := map[string]string{}
			for k, v := range c.env {
				vars[k] = v
			}
			env := registrytest.Env(t, func(k string) string { return vars[k] })
			sys := filepath.Join(env.GeminiHome, "system.json")
			vars["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = sys
			os.MkdirAll(filepath.Join(env.GeminiHome, ".gemini"), 0o755)
			os.WriteFile(UserFile(env), []byte(c.user), 0o644)
			if c.system != "" {
				os.WriteFile(sys, []byte(c.system), 0o644)
			}
			if c.workspace != "" {
				os.MkdirAll(filepath.Join(env.Cwd, ".gemini"), 0o755)
				os.WriteFile(filepath.Join(env.Cwd, ".gemini", "settings.json"), []byte(c.workspace), 0o644)
				if err := registry.SetFolderTrust(env, env.Cwd, registry.TrustFolder); err != nil {
					t.Fatal(err)
				}
			}
			s := Load(env, env.Cwd)
			if !c.check(s) {
				t.Errorf("%+v", s)
			}
			want := map[string]string{"user": UserFile(env), "workspace": filepath.Join(env.Cwd, ".gemini", "settings.json"), "system": sys, "": ""}[c.origin]
			if c.origin[0:min(1, len(c.origin))] == "$" {
				want = c.origin
			}
			if got := s.Origin[c.key]; got != want {
				t.Errorf("origin of %s = %q, want %q", c.key, got, want)
			}
		})
	}
}
