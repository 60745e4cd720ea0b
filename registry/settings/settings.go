// Package settings reads Gemini CLI's settings.json files, as Gemini CLI does, for the keys gem
// uses: the system file (GEMINI_CLI_SYSTEM_SETTINGS_PATH, else /etc/gemini-cli/settings.json),
// the user's (~/.gemini/settings.json, then gem's own $GEM_HOME/settings.json) and the
// workspace's (<workspace>/.gemini/settings.json — only in a trusted folder: a cloned
// repository must not configure the user's tools). Later files win key by key, in Gemini CLI's
// order: user, workspace, then system (an administrator's settings override). The files are
// JSON with comments and trailing commas (github.com/tailscale/hujson); unknown keys are
// ignored, and a key of the wrong type is a warning naming the file and the key.
//
// The keys gem reads: model.name (the default model; model may also be a plain string),
// general.defaultApprovalMode (or tools.approvalMode, approvalMode: the mode when no flag
// names one), mcp.enabled (admin.mcp.enabled, mcpEnabled: false, no MCP server starts),
// general.checkpointing.enabled (exposed; checkpoints are made elsewhere), tools.exclude (tools hidden, or with
// arguments refused, as excludeTools), tools.core (the core tools offered), tools.allowed
// (calls that need no confirmation: allow rules), context.fileName (context file names),
// mcpServers (the user's own servers; .trust: their tools are not asked about; an entry with no
// command, url or httpUrl, such as {"trust": true}, is about a server declared elsewhere), hooks (every
// file's hooks run, not only the winning file's, as in Gemini CLI), hooksConfig.enabled and
// .disabled, skills.disabled (every file's), security.disableYoloMode (the yolo approval mode
// refused), security.allowedExtensions and security.blockGitExtensions (which install sources
// are allowed; registry/install applies them; registry's discovery reads blockGitExtensions
// itself, to block what was installed from git), security.requireSignatures (on when any file
// turns it on), security.trustedSigners (every file's entries) and security.sigstoreTrustedRoot
// (a path, relative to its file) — the last two widen what is trusted, so a workspace's file
// cannot set them —, extensions.mirrors (every file's but a workspace's), experimental.enableAgents (false: no subagents), general.checkpointing.enabled
// (or the older checkpointing.enabled: snapshots before core tools edit the workspace),
// model.compressionThreshold (or the older
// model.chatCompression.contextPercentageThreshold), telemetry.enabled, .target,
// .otlpEndpoint, .otlpProtocol and .logPrompts (telemetry.go; a project's file cannot set the
// last two), modelConfigs (only the model of the
// web-search alias google_web_search asks for: a customAliases entry, resolved through its
// extends chain, or an overrides/customOverrides entry matching {"model": "web-search"};
// Gemini CLI's default is gemini-3-flash-preview). security.folderTrust.enabled is not
// honoured: gem's folder trust cannot be switched off by a settings file. Older flat keys (excludeTools,
// coreTools, contextFileName, hooks.enabled, hooks.disabled) are read too.
//
// Environment variables come last, as in Gemini CLI: GEMINI_MODEL overrides model.name
// (Origin names "$GEMINI_MODEL"), and $VAR, ${VAR} and ${VAR:-default} in a file's string
// values are replaced as Gemini CLI's resolveEnvVarsInString does (an empty variable counts
// as unset; mcpServers and hooks are left to expand their own, when they run).
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// Settings is the merged view, with where each value came from.
type Settings struct {
	Model string `json:"model,omitempty"`
	// WebSearchModel is the model of google_web_search's requests: what modelConfigs give
	// Gemini CLI's web-search alias ("": DefaultWebSearchModel).
	WebSearchModel string `json:"webSearchModel,omitempty"`
	// CompressionThreshold is model.compressionThreshold: the share of the model's input
	// limit at which the conversation is compressed (0: gem's default).
	CompressionThreshold float64  `json:"compressionThreshold,omitempty"`
	ExcludeTools         []string `json:"excludeTools,omitempty"`
	CoreTools            []string `json:"coreTools,omitempty"`
	AllowedTools         []string `json:"allowedTools,omitempty"`
	ContextFiles         []string `json:"contextFileNames,omitempty"`
	TrustedServers       []string `json:"trustedMcpServers,omitempty"`
	// Hooks are the hooks of each file that declares some (user, then workspace, then
	// system: all run, a workspace's only in a trusted folder), events as Gemini CLI writes
	// them: {"BeforeTool": [{"matcher": …, "sequential": …, "hooks": [{…}]}]}.
	Hooks []HookFile `json:"hooks,omitempty"`
	// HooksOff is hooksConfig.enabled false: no hook runs, an extension's neither.
	HooksOff bool `json:"hooksOff,omitempty"`
	// NoYolo is security.disableYoloMode: the yolo approval mode is refused.
	NoYolo bool `json:"disableYoloMode,omitempty"`
	// AllowedExtensions is security.allowedExtensions: regular expressions; when set, an
	// install source must match one. BlockGitExtensions is security.blockGitExtensions: no
	// install from git or GitHub. (An administrator sets them in the system file.)
	AllowedExtensions  []string `json:"allowedExtensions,omitempty"`
	BlockGitExtensions bool     `json:"blockGitExtensions,omitempty"`
	// RequireSignatures is security.requireSignatures: an extension installed or updated
	// from an archive or a release must carry a Sigstore signature that verifies and whose
	// signer a policy allows. Any file that turns it on wins (a later file cannot turn it
	// off). TrustedSigners (security.trustedSigners) are signer policies by source, and
	// SigstoreTrustedRoot (security.sigstoreTrustedRoot) a trusted_root.json used instead of
	// Sigstore's public-good root: both widen what is trusted, so a workspace's file cannot
	// set them (a warning says so).
	RequireSignatures   bool            `json:"requireSignatures,omitempty"`
	TrustedSigners      []TrustedSigner `json:"trustedSigners,omitempty"`
	SigstoreTrustedRoot string          `json:"sigstoreTrustedRoot,omitempty"`
	// Mirrors is extensions.mirrors: places holding locked extensions (an OCI layout, or
	// oci://registry/repository), each for the sources its include and exclude globs choose;
	// every file's entries, a workspace's ignored (a mirror learns what is installed).
	Mirrors []Mirror `json:"mirrors,omitempty"`
	// Checkpointing is general.checkpointing.enabled (or the older checkpointing.enabled):
	// the workspace is snapshotted before a core tool edits it (host/checkpoint, /restore).
	Checkpointing bool `json:"checkpointing,omitempty"`
	// AgentsOff is experimental.enableAgents false: no subagent is offered.
	AgentsOff bool `json:"agentsOff,omitempty"`
	// DisabledSkills are skills.disabled: skills, by name, not offered (every file's).
	DisabledSkills []string `json:"disabledSkills,omitempty"`
	// DisabledHooks are hooksConfig.disabled: hooks, by name or command, that do not run.
	DisabledHooks []string `json:"disabledHooks,omitempty"`
	// ApprovalMode is general.defaultApprovalMode (or the older tools.approvalMode and
	// approvalMode): the mode a session starts in when no --approval-mode is given.
	ApprovalMode string `json:"approvalMode,omitempty"`
	// MCPOff is mcp.enabled (admin.mcp.enabled, mcpEnabled) false: no MCP server starts,
	// neither the user's nor an extension's.
	MCPOff bool `json:"mcpOff,omitempty"`
	// Telemetry is the telemetry key, the environment's overrides applied (telemetry.go).
	Telemetry Telemetry         `json:"telemetry"`
	Files     []File            `json:"files"`              // read, in order of precedence (last wins)
	Origin    map[string]string `json:"origin"`             // key → the file that set it
	Warnings  []string          `json:"warnings,omitempty"` // wrong types, unreadable files

	servers map[string]json.RawMessage // mcpServers, the last file's entry for each name
	skills  map[string][]string        // skills.disabled of each file
	ext     *registry.Extension        // made once
}

// FromWorkspace reports whether the value of key came from the workspace's settings file
// (a trusted project's): rules made from it belong to the workspace tier, not the user's.
func (s *Settings) FromWorkspace(key string) bool {
	for _, f := range s.Files {
		if f.Scope == "workspace" && s.Origin[key] == f.Path {
			return true
		}
	}
	return false
}

// Extension is the user's own MCP servers (mcpServers of the settings) as an extension
// named "settings", agreed to (the user wrote them), run like an extension's: sandboxed,
// with the network (what such servers are for: npx and uvx fetch packages), in the
// workspace, which they may change (the workspace capability: its protected names stay
// closed); nil when the settings declare none. Problems in an entry are warnings.
func (s *Settings) Extension(env registry.Env) *registry.Extension {
	if s == nil || len(s.servers) == 0 {
		return nil
	}
	if s.ext != nil {
		return s.ext
	}
	doc := map[string]any{"name": "settings", "version": "0.0.0", "mcpServers": s.servers, "sandbox": map[string]any{"network": true, "write": []string{"${workspacePath}"}}}
	text, _ := json.Marshal(doc)
	var raw any
	json.Unmarshal(text, &raw)
	m, problems := manifest.Load(raw)
	for _, p := range problems.Errors() {
		s.Warnings = append(s.Warnings, "settings: "+p.String())
	}
	// Their folder is a data folder of their own, not ~/.gemini: an extension's folder is
	// readable to its programs, and ~/.gemini holds the user's credentials and other
	// extensions' .env files.
	dir := filepath.Join(env.GemHome, "data", "settings")
	s.ext = registry.Synthetic("settings", dir, env.GeminiSettingsFile(), m, string(text))
	return s.ext
}

// AddServers adds MCP servers that the program running gem was given (a program's
// Options.MCPServers, an ACP client's session/new), in settings.json's mcpServers format, as
// the user's own: they join the "settings" extension and run as its servers run
// (sandboxed, asked about unless a rule allows them). A name already declared is replaced,
// and loses the trust the user's settings gave that name;
// origin names where they came from (Origin).
func (s *Settings) AddServers(servers map[string]json.RawMessage, origin string) {
	if len(servers) == 0 {
		return
	}
	if s.servers == nil {
		s.servers = map[string]json.RawMessage{}
	}
	if s.Origin == nil {
		s.Origin = map[string]string{}
	}
	for name, raw := range servers {
		s.servers[name] = raw
		s.Origin["mcpServers."+name] = origin
		// The user's trust was given to their own server of that name, not to this one.
		s.TrustedServers = slices.DeleteFunc(s.TrustedServers, func(n string) bool { return n == name })
	}
	s.ext = nil
}

// TrustedSigner is one entry of security.trustedSigners: who may sign the extensions whose
// source matches Source (a regular expression, as security.allowedExtensions; empty: any).
type TrustedSigner struct {
	Source         string `json:"source,omitempty"`
	Issuer         string `json:"issuer"`
	Identity       string `json:"identity,omitempty"`
	IdentityRegexp string `json:"identityRegexp,omitempty"`
	Origin         string `json:"origin"` // the settings file that lists it
}

// Mirror is one entry of extensions.mirrors.
type Mirror struct {
	Location string   `json:"location"`
	Include  []string `json:"include,omitempty"`
	Exclude  []string `json:"exclude,omitempty"`
	Origin   string   `json:"origin"` // the settings file that lists it
}

// HookFile is the hooks one settings file declares.
type HookFile struct {
	Scope  string                     `json:"scope"`
	Path   string                     `json:"path"`
	Events map[string]json.RawMessage `json:"events"`
}

// File is one settings file gem looked at.
type File struct {
	Scope string `json:"scope"` // user, gem, workspace, system
	Path  string `json:"path"`
	Found bool   `json:"found"`
	// Skipped says why a file that exists was not read (an untrusted workspace).
	Skipped string `json:"skipped,omitempty"`
}

// checkpointing is general.checkpointing (and the older top-level checkpointing).
type checkpointing struct {
	Enabled *bool `json:"enabled"`
}

// file is what gem reads of one settings file.
type file struct {
	Model   modelKey `json:"model"`
	General struct {
		DefaultApprovalMode *string       `json:"defaultApprovalMode"`
		Checkpointing       checkpointing `json:"checkpointing"`
	} `json:"general"`
	MCP struct {
		Enabled *bool `json:"enabled"`
	} `json:"mcp"`
	Admin struct {
		MCP struct {
			Enabled *bool `json:"enabled"`
		} `json:"mcp"`
	} `json:"admin"`
	Tools struct {
		ApprovalMode *string   `json:"approvalMode"` // older place of general.defaultApprovalMode
		Exclude      *[]string `json:"exclude"`
		Core         *[]string `json:"core"`
		Allowed      *[]string `json:"allowed"`
	} `json:"tools"`
	Context struct {
		FileName json.RawMessage `json:"fileName"`
	} `json:"context"`
	MCPServers  map[string]json.RawMessage `json:"mcpServers"`
	Hooks       map[string]json.RawMessage `json:"hooks"`
	HooksConfig struct {
		Enabled  *bool     `json:"enabled"`
		Disabled *[]string `json:"disabled"`
	} `json:"hooksConfig"`
	Skills struct {
		Disabled *[]string `json:"disabled"`
	} `json:"skills"`
	Security struct {
		DisableYoloMode    *bool     `json:"disableYoloMode"`
		AllowedExtensions  *[]string `json:"allowedExtensions"`
		BlockGitExtensions *bool     `json:"blockGitExtensions"`
		RequireSignatures  *bool     `json:"requireSignatures"`
		TrustedSigners     *[]struct {
			Source         string `json:"source"`
			Issuer         string `json:"issuer"`
			Identity       string `json:"identity"`
			IdentityRegexp string `json:"identityRegexp"`
		} `json:"trustedSigners"`
		SigstoreTrustedRoot *string `json:"sigstoreTrustedRoot"`
	} `json:"security"`
	Experimental struct {
		EnableAgents *bool `json:"enableAgents"`
	} `json:"experimental"`
	Checkpointing checkpointing `json:"checkpointing"` // Gemini CLI's older place
	Telemetry     telemetryKey  `json:"telemetry"`
	ModelConfigs  modelConfigs  `json:"modelConfigs"`
	Extensions    struct {
		Mirrors *[]struct {
			Location string   `json:"location"`
			Include  []string `json:"include"`
			Exclude  []string `json:"exclude"`
		} `json:"mirrors"`
	} `json:"extensions"`
	// Gemini CLI's older flat keys.
	ExcludeTools    *[]string       `json:"excludeTools"`
	CoreTools       *[]string       `json:"coreTools"`
	ContextFileName json.RawMessage `json:"contextFileName"`
	ApprovalMode    *string         `json:"approvalMode"`
	MCPEnabled      *bool           `json:"mcpEnabled"`
}

// Paths are the settings files in precedence order (last wins), with their scope.
func Paths(env registry.Env, workspace string) []File {
	var out []File
	for _, f := range env.SettingsFiles(workspace, env.Getenv) {
		out = append(out, File{Scope: f.Scope, Path: f.Path})
	}
	return out
}

// Load merges the settings files for env, the workspace being workspace.
func Load(env registry.Env, workspace string) *Settings {
	s := &Settings{Origin: map[string]string{}}
	trusted := env.FolderTrusted(workspace)
	servers := map[string]bool{}
	for _, f := range Paths(env, workspace) {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			if !os.IsNotExist(err) {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v", f.Path, err))
			}
			s.Files = append(s.Files, f)
			continue
		}
		f.Found = true
		if f.Scope == "workspace" && !trusted {
			f.Skipped = "this folder is not trusted (gem trust)"
			s.Files = append(s.Files, f)
			continue
		}
		s.Files = append(s.Files, f)
		s.merge(f, data, servers, env.Getenv)
	}
	s.applyEnv(env.Getenv)
	for name, on := range servers {
		if on {
			s.TrustedServers = append(s.TrustedServers, name)
		}
	}
	sort.Strings(s.TrustedServers)
	s.Extension(env) // its problems join the warnings
	return s
}

func (s *Settings) merge(from File, data []byte, servers map[string]bool, getenv func(string) string) {
	path := from.Path
	std, err := hujson.Standardize(data)
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s is not valid JSON (%v): its settings are ignored; fix it", path, err))
		return
	}
	std = expandDocument(std, getenv)
	// Key by key: a key of the wrong type is skipped (and said, with what it must be); the
	// file's other settings, its MCP servers and hooks, still apply.
	var f file
	for range 64 {
		err := json.Unmarshal(std, &f)
		if err == nil {
			break
		}
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field == "" {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v: its settings are ignored; fix it", path, err))
			return
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s must be %s, not %s: skipped (the rest of the file applies)", path, te.Field, jsonKind(te.Type), jsonValueKind(te.Value)))
		var generic map[string]any
		if json.Unmarshal(std, &generic) != nil || !deletePath(generic, strings.Split(te.Field, ".")) {
			return
		}
		std, _ = json.Marshal(generic)
		f = file{}
	}
	set := func(key string) { s.Origin[key] = path }
	s.mergeGeneral(path, f)
	s.mergeModelConfigs(path, f.ModelConfigs)
	if f.Model.Name != nil {
		s.Model = *f.Model.Name
		set("model.name")
	}
	for key, v := range map[string]*float64{"model.chatCompression.contextPercentageThreshold": f.Model.ChatCompression.ContextPercentageThreshold, "model.compressionThreshold": f.Model.CompressionThreshold} {
		if v == nil {
			continue
		}
		if *v <= 0 || *v > 1 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s must be between 0 and 1 (a share of the model's input limit), not %v", path, key, *v))
			continue
		}
		s.CompressionThreshold = *v
		set(key)
	}
	for _, v := range []struct {
		key  string
		from *[]string
		to   *[]string
	}{
		{"excludeTools", f.ExcludeTools, &s.ExcludeTools}, {"tools.exclude", f.Tools.Exclude, &s.ExcludeTools},
		{"coreTools", f.CoreTools, &s.CoreTools}, {"tools.core", f.Tools.Core, &s.CoreTools},
		{"tools.allowed", f.Tools.Allowed, &s.AllowedTools},
	} {
		if v.from != nil {
			*v.to = *v.from
			set(v.key)
		}
	}
	for key, raw := range map[string]json.RawMessage{"contextFileName": f.ContextFileName, "context.fileName": f.Context.FileName} {
		if names, ok := stringOrList(raw); ok {
			// Plain file names only: save_memory writes the first one under ~/.gemini, and
			// "../.bashrc" would lead it out.
			var plain []string
			for _, n := range names {
				if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s: %q is not a plain file name (no folders): skipped", path, key, n))
					continue
				}
				plain = append(plain, n)
			}
			if len(plain) > 0 {
				s.ContextFiles = plain
				set(key)
			}
		} else if len(raw) > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s must be a file name or a list of them", path, key))
		}
	}
	s.mergeHooks(from, f)
	s.mergeTelemetry(from, &f.Telemetry)
	for _, c := range []struct { // the older key first: the newer wins in one file
		key string
		v   *bool
	}{{"checkpointing.enabled", f.Checkpointing.Enabled}, {"general.checkpointing.enabled", f.General.Checkpointing.Enabled}} {
		if c.v != nil {
			s.Checkpointing = *c.v
			set(c.key)
		}
	}
	if v := f.Security.DisableYoloMode; v != nil {
		s.NoYolo = *v
		set("security.disableYoloMode")
	}
	if v := f.Security.AllowedExtensions; v != nil {
		s.AllowedExtensions = *v
		set("security.allowedExtensions")
	}
	if v := f.Security.BlockGitExtensions; v != nil {
		s.BlockGitExtensions = *v
		set("security.blockGitExtensions")
	}
	if v := f.Security.RequireSignatures; v != nil && *v {
		s.RequireSignatures = true
		set("security.requireSignatures")
	}
	widens := func(key string) bool {
		if from.Scope != "workspace" {
			return false
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s is ignored in a project's settings (it widens what gem trusts): set it in your own or the system settings", path, key))
		return true
	}
	if v := f.Security.TrustedSigners; v != nil && !widens("security.trustedSigners") {
		for _, t := range *v {
			s.TrustedSigners = append(s.TrustedSigners, TrustedSigner{Source: t.Source, Issuer: t.Issuer, Identity: t.Identity, IdentityRegexp: t.IdentityRegexp, Origin: path})
		}
		set("security.trustedSigners")
	}
	if v := f.Security.SigstoreTrustedRoot; v != nil && !widens("security.sigstoreTrustedRoot") {
		s.SigstoreTrustedRoot = *v
		if *v != "" && !filepath.IsAbs(*v) {
			s.SigstoreTrustedRoot = filepath.Join(filepath.Dir(path), *v)
		}
		set("security.sigstoreTrustedRoot")
	}
	if v := f.Extensions.Mirrors; v != nil && !widens("extensions.mirrors") {
		for _, m := range *v {
			loc := m.Location
			if loc != "" && !strings.Contains(loc, "://") && !filepath.IsAbs(loc) {
				loc = filepath.Join(filepath.Dir(path), loc)
			}
			s.Mirrors = append(s.Mirrors, Mirror{Location: loc, Include: m.Include, Exclude: m.Exclude, Origin: path})
		}
		set("extensions.mirrors")
	}
	if v := f.Experimental.EnableAgents; v != nil {
		s.AgentsOff = !*v
		set("experimental.enableAgents")
	}
	if f.Skills.Disabled != nil {
		if s.skills == nil {
			s.skills = map[string][]string{}
		}
		s.skills[path] = *f.Skills.Disabled
		for _, name := range *f.Skills.Disabled {
			if !slices.Contains(s.DisabledSkills, name) {
				s.DisabledSkills = append(s.DisabledSkills, name)
			}
		}
		set("skills.disabled")
	}
	for name, raw := range f.MCPServers {
		var srv struct {
			Trust   bool            `json:"trust"`
			Command json.RawMessage `json:"command"`
			URL     json.RawMessage `json:"url"`
			HTTPURL json.RawMessage `json:"httpUrl"`
		}
		json.Unmarshal(raw, &srv)
		servers[name] = srv.Trust
		if srv.Command == nil && srv.URL == nil && srv.HTTPURL == nil {
			// No way to reach a server: an entry about a server declared elsewhere (an
			// extension's), such as {"trust": true}, not a server of the user's own.
			set("mcpServers." + name)
			continue
		}
		if s.servers == nil {
			s.servers = map[string]json.RawMessage{}
		}
		s.servers[name] = raw
		set("mcpServers." + name)
	}
}

// deletePath removes the key at path (object keys) from m; false when it is not there.
func deletePath(m map[string]any, path []string) bool {
	for len(path) > 1 {
		next, ok := m[path[0]].(map[string]any)
		if !ok {
			return false
		}
		m, path = next, path[1:]
	}
	if _, ok := m[path[0]]; !ok {
		return false
	}
	delete(m, path[0])
	return true
}

// jsonKind says a Go type as the JSON a settings file must have.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// jsonValueKind says what the file had, in the same words.
func jsonValueKind(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return v
}

func stringOrList(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var one string
	if json.Unmarshal(raw, &one) == nil && one != "" {
		return []string{one}, true
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return list, true
	}
	return nil, false
}

// mergeHooks adds the hooks of one file, and its hooksConfig (Gemini CLI's older layout, with
// enabled and disabled inside hooks, is read too).
func (s *Settings) mergeHooks(from File, f file) {
	enabled, disabled := f.HooksConfig.Enabled, f.HooksConfig.Disabled
	events := map[string]json.RawMessage{}
	for key, raw := range f.Hooks {
		switch key {
		case "enabled":
			json.Unmarshal(raw, &enabled)
		case "disabled":
			json.Unmarshal(raw, &disabled)
		case "notifications":
		default:
			events[key] = raw
		}
	}
	if enabled != nil {
		s.HooksOff = !*enabled
		s.Origin["hooksConfig.enabled"] = from.Path
	}
	if disabled != nil {
		s.DisabledHooks = append(s.DisabledHooks, *disabled...)
		s.Origin["hooksConfig.disabled"] = from.Path
	}
	if len(events) > 0 {
		s.Hooks = append(s.Hooks, HookFile{Scope: from.Scope, Path: from.Path, Events: events})
		s.Origin["hooks"] = from.Path
	}
}

// DisabledSkillsIn is skills.disabled of the settings file at path.
func (s *Settings) DisabledSkillsIn(path string) []string {
	return append([]string(nil), s.skills[path]...)
}

// FilesDisabling are the settings files whose skills.disabled names the skill.
func (s *Settings) FilesDisabling(skill string) []string {
	var out []string
	for _, f := range s.Files {
		if slices.Contains(s.skills[f.Path], skill) {
			out = append(out, f.Path)
		}
	}
	return out
}
