package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/internal/termsafe"

	"github.com/gemhost/gem/host/commands"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/view"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/sdk/inventory"
)

type extInfoOptions struct {
	Name string `arg:"<name>" help:"an extension name"`
	jsonOutput
	Verbose bool `flag:"verbose,v" usage:"show which platform naming matched each binary"`
}

func extInfoCommand(f *Factory) *cli.Command {
	return verb(f, "info", "show everything known about one extension", extInfoRun, "gem ext info hello", "gem ext info hello --json | jq .consent")
}

func extInfoRun(_ context.Context, s *session, o extInfoOptions) error {
	d := s.warnDiscovery(registry.Discover(s.env, registry.Providers))
	x, err := d.Get(o.Name)
	if err != nil {
		return err
	}
	info := buildInfo(s, d, x)
	for _, p := range info.Problems {
		s.problem(p)
	}
	return render(s, o.JSON, info, func() error {
		printInfo(termsafe.Writer(s.stdout), info, o.Verbose) // the manifest's text, escaped
		return nil
	})
}

type binaryInfo struct {
	Name           string   `json:"name"`
	Description    string   `json:"description,omitempty"`
	Subcommands    []string `json:"subcommands,omitempty"`
	RequireConfirm bool     `json:"requireConfirm,omitempty"`
	Template       string   `json:"binaryTemplate"`
	Binary         string   `json:"binary,omitempty"`
	PlatformRule   string   `json:"platformRule,omitempty"`
	Error          string   `json:"error,omitempty"`
	// SHA256 are the manifest's pins of the binary, by platform; Pinned is this platform's
	// (the one checked before it runs), when it has one.
	SHA256 map[string]string `json:"sha256,omitempty"`
	Pinned string            `json:"pinned,omitempty"`
}

type mcpInfo struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	URL       string            `json:"url,omitempty"`
	TimeoutMS float64           `json:"timeoutMs"`
	// NeedsConfig says why it is not started and how to set it (registry.UnconfiguredError).
	NeedsConfig string `json:"needsConfig,omitempty"`
}

// contextInfo is a context file the extension gives the model: one its manifest declares
// (contextFileName, or a command's or plugin's context, For), or Gemini CLI's default
// GEMINI.md when it declares none and the file is there (Default).
type contextInfo struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Exists  bool   `json:"exists"`
	Default bool   `json:"default,omitempty"`
	For     string `json:"for,omitempty"` // "commands and plugins": read by gem only
}

type settingInfo struct {
	Name      string `json:"name"`
	EnvVar    string `json:"envVar"`
	Sensitive bool   `json:"sensitive"`
	Set       bool   `json:"set"`
}

type extInfo struct {
	view.ExtensionJSON
	Install      *registry.InstallMetadata `json:"install,omitempty"`
	Variables    map[string]string         `json:"variables"`
	ContextFiles []contextInfo             `json:"contextFiles"`
	Commands     []binaryInfo              `json:"commands"`
	Plugins      []binaryInfo              `json:"plugins"`
	MCPServers   []mcpInfo                 `json:"mcpServers"`
	Settings     []settingInfo             `json:"settings"`
	ExcludeTools []string                  `json:"excludeTools"`
	Sandbox      *manifest.Sandbox         `json:"sandbox,omitempty"`
	Engines      manifest.Engines          `json:"engines"`
	Shadows      []string                  `json:"shadows,omitempty"`
	Prompts      []string                  `json:"promptCommands,omitempty"`
	Hooks        []string                  `json:"hooks,omitempty"`
	Format       string                    `json:"format"`              // the layout it was read in: gemini, claude
	Converted    []string                  `json:"converted,omitempty"` // another format's components, as gem runs them
	Dropped      []string                  `json:"dropped,omitempty"`   // and those gem does not run, with why
	Skills       []string                  `json:"skills,omitempty"`
	Agents       []string                  `json:"agents,omitempty"` // its subagents (agents/*.md)
	Grant        *registry.Grant           `json:"grant,omitempty"`
	Consent      registry.ConsentState     `json:"consent"`
	Needs        []string                  `json:"needs"`       // what its programs need now (launchers, toolchains)
	Agreed       []string                  `json:"agreedNeeds"` // what was recorded at consent
	Granted      []string                  `json:"-"`           // Grant, for people
	Problems     manifest.Problems         `json:"problems"`
	BlockedWhy   string                    `json:"blockedWhy,omitempty"` // Explain, when Blocked
}

func buildInfo(s *session, d *registry.Discovery, x *registry.Extension) *extInfo {
	platforms := manifest.HostPlatforms(s.env.Getenv)
	exp := x.Expander(s.env, platforms[0])
	m := x.Manifest().Resolved(exp)
	info := &extInfo{
		ExtensionJSON: view.Extension(x),
		Install:       x.Install(),
		Variables: map[string]string{
			"extensionPath": exp.Vars.ExtensionPath, "workspacePath": exp.Vars.WorkspacePath,
			"/": exp.Vars.PathSeparator, "platform": exp.Vars.Platform.OS, "arch": exp.Vars.Platform.Arch,
		},
		ExcludeTools: m.ExcludeTools, Sandbox: m.Sandbox, Engines: m.Engines,
		Problems: orEmpty(installedProblems(s, x)), BlockedWhy: x.Explain(),
		ContextFiles: infoContextFiles(x.Path, m),
	}
	info.Commands, info.Plugins = infoBinaries(s, x)
	info.MCPServers = infoMCPServers(m)
	for i, srv := range x.Manifest().MCPServers {
		if err := x.Unconfigured(srv); err != nil && i < len(info.MCPServers) {
			info.MCPServers[i].NeedsConfig = errorText(err)
		}
	}
	settings := registry.ReadDotEnv(filepath.Join(x.Dir, ".env"))
	for _, st := range m.Settings {
		_, set := settings[st.EnvVar]
		info.Settings = append(info.Settings, settingInfo{Name: st.Name, EnvVar: st.EnvVar, Sensitive: st.Sensitive, Set: set})
	}
	infoRelated(s, d, x, info)
	infoPermissions(s, x, info)
	info.ContextFiles, info.Commands, info.Plugins = orEmpty(info.ContextFiles), orEmpty(info.Commands), orEmpty(info.Plugins)
	info.MCPServers, info.Settings, info.ExcludeTools = orEmpty(info.MCPServers), orEmpty(info.Settings), orEmpty(info.ExcludeTools)
	info.Needs, info.Agreed = orEmpty(info.Needs), orEmpty(info.Agreed)
	return info
}

// infoContextFiles are the context files the manifest declares, each said when missing
// (Gemini CLI and gem skip it); when it declares none, Gemini CLI's default GEMINI.md, only
// if it is there (Gemini CLI loads the default only then: an extension without one has no
// context). Then those of its commands and plugins, which only gem reads.
func infoContextFiles(dir string, m *manifest.Manifest) []contextInfo {
	var out []contextInfo
	add := func(name string, c contextInfo) {
		c.Name, c.Path = name, filepath.Join(dir, name)
		_, err := os.Stat(c.Path)
		if c.Exists = err == nil; c.Exists || !c.Default {
			out = append(out, c)
		}
	}
	declared := m.ContextFileSet && len(m.ContextFileName) > 0
	for _, name := range m.ContextFiles() {
		add(name, contextInfo{Default: !declared})
	}
	for _, name := range m.GemContextFiles() {
		add(name, contextInfo{For: "commands and plugins"})
	}
	return out
}

// infoBinaries resolves the extension's commands and plugins for this platform, with their
// sha256 pins.
func infoBinaries(s *session, x *registry.Extension) (cmds, plugins []binaryInfo) {
	resolve := func(kind, name, template string, pins []manifest.KV) binaryInfo {
		b := binaryInfo{Name: name, Template: template}
		for _, kv := range pins {
			if b.SHA256 == nil {
				b.SHA256 = map[string]string{}
			}
			b.SHA256[kv.Key] = kv.Value
		}
		if bin, err := x.ResolveBinary(s.env, kind, name, template); err != nil {
			b.Error = err.Error()
		} else {
			b.Binary, b.PlatformRule = bin.Path, bin.Platform.Rule
			if here := bin.Platform.OS + "/" + bin.Platform.Arch; b.SHA256[here] != "" {
				b.Pinned = here
			}
		}
		return b
	}
	for _, c := range x.Manifest().Commands {
		b := resolve("command", c.Name, c.Binary, c.SHA256)
		b.Description, b.Subcommands, b.RequireConfirm = c.Description, c.Subcommands, c.RequireConfirm
		cmds = append(cmds, b)
	}
	for _, p := range x.Manifest().Plugins {
		b := resolve("plugin", p.ID, p.Binary, p.SHA256)
		b.Description = p.Description
		plugins = append(plugins, b)
	}
	return cmds, plugins
}

// infoMCPServers describes the declared MCP servers, sensitive env values masked.
func infoMCPServers(m *manifest.Manifest) []mcpInfo {
	var out []mcpInfo
	for _, srv := range m.MCPServers {
		mi := mcpInfo{Name: srv.Name, Command: srv.Command, Args: srv.Args, Cwd: srv.Cwd, TimeoutMS: srv.Timeout}
		if mi.TimeoutMS == 0 {
			mi.TimeoutMS = manifest.DefaultMCPTimeoutMillis
		}
		switch {
		case srv.HTTPURL != "" || srv.Type == "http":
			mi.Transport, mi.URL = "http", srv.HTTPURL+srv.URL
		case srv.URL != "":
			mi.Transport, mi.URL = "sse", srv.URL
		case srv.TCP != "":
			mi.Transport, mi.URL = "tcp", srv.TCP
		default:
			mi.Transport = "stdio"
		}
		if len(srv.Env) > 0 {
			mi.Env = map[string]string{}
			for _, kv := range srv.Env {
				mi.Env[kv.Key] = manifest.Mask(kv.Key, kv.Value)
			}
		}
		out = append(out, mi)
	}
	return out
}

// infoRelated fills what other files and extensions say about x: shadows, prompt
// commands, skills, hooks.
func infoRelated(s *session, d *registry.Discovery, x *registry.Extension, info *extInfo) {
	for _, other := range d.All {
		if other.ShadowedBy == x {
			info.Shadows = append(info.Shadows, other.ManifestPath)
		}
	}
	cmds, _ := inventory.PromptCommands(s.env, d)
	for _, c := range cmds {
		if c.Extension == x.Name {
			info.Prompts = append(info.Prompts, "/"+c.Name)
		}
	}
	for _, sk := range inventory.Skills(s.env, d) {
		if sk.Source == x.Name {
			info.Skills = append(info.Skills, sk.Name)
		}
	}
	agents, _ := inventory.Subagents(s.env, d)
	for _, sa := range agents {
		if sa.Source == x.Name {
			info.Agents = append(info.Agents, sa.Name)
		}
	}
	info.Format = x.Format.ID
	notes := x.FormatNotes()
	data, err := x.Hooks()
	if err != nil {
		info.Hooks = []string{"hooks: " + err.Error()}
	}
	info.Hooks = append(info.Hooks, hookSummary(data)...)
	for _, n := range notes {
		if n.Dropped {
			info.Dropped = append(info.Dropped, n.Component+": "+n.Became)
		} else {
			info.Converted = append(info.Converted, n.Component+": "+n.Became)
		}
	}
}

// infoPermissions fills consent, what the programs need, and what the user granted.
func infoPermissions(s *session, x *registry.Extension, info *extInfo) {
	if g, ok, err := registry.GrantFor(s.env, x); err == nil && ok {
		info.Grant = &g
		info.Granted = g.Lines(s.env.Home)
	}
	info.Consent, _ = x.Consented(s.env)
	info.Needs = commands.Needs(s.env, x).Lines(s.env.Home)
	info.Agreed = x.ConsentGrant(s.env).Lines(s.env.Home)
}

// hookSummary lists the hooks of a hooks.json (gem's format) as "Event (matcher): command".
func hookSummary(data []byte) []string {
	if data == nil {
		return nil
	}
	var hf struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &hf) != nil {
		return []string{"hooks/hooks.json is not valid JSON"}
	}
	var out []string
	for event, groups := range hf.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				m := ""
				if g.Matcher != "" {
					m = " (" + g.Matcher + ")"
				}
				out = append(out, event+m+": "+h.Command)
			}
		}
	}
	sort.Strings(out)
	return out
}

// infoRow prints "Key:   value" when value is not empty.
func infoRow(w io.Writer, k, v string) {
	if v != "" {
		fmt.Fprintf(w, "%-13s %s\n", k+":", v)
	}
}

func printInfo(w io.Writer, info *extInfo, verbose bool) {
	printInfoHeader(w, info)
	printBinaries(w, "Commands", info.Commands, verbose)
	printBinaries(w, "Plugins", info.Plugins, verbose)
	if len(info.MCPServers) > 0 {
		fmt.Fprintln(w, "MCP servers:")
		for _, s := range info.MCPServers {
			target := s.URL
			if s.Transport == "stdio" {
				target = strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
			}
			if s.NeedsConfig != "" {
				target = s.NeedsConfig
			}
			fmt.Fprintf(w, "  %s (%s): %s\n", s.Name, s.Transport, target)
		}
	}
	if len(info.Settings) > 0 {
		fmt.Fprintln(w, "Settings:")
		for _, s := range info.Settings {
			state := "not set"
			if s.Set {
				state = "set"
			}
			fmt.Fprintf(w, "  %s (%s): %s\n", s.Name, s.EnvVar, state)
		}
	}
	infoRow(w, "Excludes", strings.Join(info.ExcludeTools, ", "))
	infoRow(w, "Needs gem", info.Engines.Gem)
	infoRow(w, "Prompts", strings.Join(info.Prompts, " "))
	for _, h := range info.Hooks {
		infoRow(w, "Hook", h)
	}

	infoRow(w, "Skills", strings.Join(info.Skills, ", "))
	infoRow(w, "Agents", strings.Join(info.Agents, ", "))
	infoRow(w, "Consent", string(info.Consent))
	infoRow(w, "Its programs need", strings.Join(info.Needs, ", "))
	infoRow(w, "Given at consent", strings.Join(info.Agreed, ", "))
	infoRow(w, "Granted", strings.Join(info.Granted, ", "))
}

func printInfoHeader(w io.Writer, info *extInfo) {
	infoRow(w, "Name", info.Name)
	infoRow(w, "Version", info.Version)
	infoRow(w, "Description", info.Description)
	state := "disabled"
	if info.Enabled {
		state = "enabled"
	}
	state += " (rule: " + info.EnabledBy + ")"
	if info.Blocked != "" {
		state += "; blocked: " + info.BlockedWhy
	}
	infoRow(w, "State", state)
	infoRow(w, "Level", string(info.Level))
	infoRow(w, "Provider", info.Provider+" ("+info.ProviderName+")")
	infoRow(w, "Path", info.Path)
	if info.InstallPath != info.Path {
		infoRow(w, "Installed at", info.InstallPath)
	}
	infoRow(w, "Manifest", info.ManifestPath)
	if f := registry.FormatOf(info.Format); f != nil && f != registry.FormatGemini {
		infoRow(w, "Format", f.Name+" (read as a Gemini extension)")
	}
	for _, c := range info.Converted {
		infoRow(w, "Converted", c)
	}
	for _, c := range info.Dropped {
		infoRow(w, "Dropped", c)
	}
	if info.Install != nil {
		infoRow(w, "Source", info.Install.Source+" ("+info.Install.Type+")")
	}
	for _, s := range info.Shadows {
		infoRow(w, "Shadows", s)
	}
	infoRow(w, "Platform", info.Variables["platform"]+"/"+info.Variables["arch"])
	for _, c := range info.ContextFiles {
		mark := ""
		switch {
		case !c.Exists:
			mark = " (missing, skipped)"
		case c.Default:
			mark = " (the default, not declared)"
		case c.For != "":
			mark = " (of its " + c.For + ", read by gem only)"
		}
		infoRow(w, "Context", c.Path+mark)
	}
}

func printBinaries(w io.Writer, title string, bins []binaryInfo, verbose bool) {
	if len(bins) == 0 {
		return
	}
	fmt.Fprintln(w, title+":")
	for _, b := range bins {
		target := b.Binary
		if b.Error != "" {
			target = "unavailable: " + b.Error
		} else if verbose {
			target += " (" + b.PlatformRule + " platform names)"
		}
		fmt.Fprintf(w, "  %s: %s\n", b.Name, target)
		if b.Description != "" {
			fmt.Fprintf(w, "    %s\n", b.Description)
		}
		for _, p := range slices.Sorted(maps.Keys(b.SHA256)) {
			mark := ""
			if p == b.Pinned {
				mark = " (this platform)"
			}
			fmt.Fprintf(w, "    sha256 %s: %s%s\n", p, b.SHA256[p], mark)
		}
	}
}
