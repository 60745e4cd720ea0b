package cli

import (
	"encoding/json"
	"fmt"
	"github.com/gemhost/gem/host/commands"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/internal/view"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

func extInfoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "show everything known about one extension",
		ArgsUsage: "<name>",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print a JSON object"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show which platform naming matched each binary"},
		},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "an extension name"); err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			d := registry.Discover(r.env, registry.Providers)
			for _, w := range d.Warnings {
				r.warn("%s", w)
			}
			name := c.Args().First()
			x, err := d.Get(name)
			if err != nil {
				return err
			}
			info := buildInfo(r, d, x)
			for _, p := range info.Problems {
				r.warn("%s", p.String())
			}
			if c.Bool("json") {
				enc := json.NewEncoder(r.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			printInfo(r.stdout, info, c.Bool("verbose"))
			return nil
		},
	}
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
}

type contextInfo struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
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
	Skills       []string                  `json:"skills,omitempty"`
	Grant        *registry.Grant           `json:"grant,omitempty"`
	Consent      registry.ConsentState     `json:"consent"`
	Needs        []string                  `json:"needs"`       // what its programs need now (launchers, toolchains)
	Agreed       []string                  `json:"agreedNeeds"` // what was recorded at consent
	Granted      []string                  `json:"-"`           // Grant, for people
	Problems     manifest.Problems         `json:"problems"`
}

func buildInfo(r *runtime, d *registry.Discovery, x *registry.Extension) *extInfo {
	platforms := manifest.HostPlatforms(r.env.Getenv)
	exp := x.Expander(r.env, platforms[0])
	m := x.Manifest().Resolved(exp)
	info := &extInfo{
		ExtensionJSON: view.Extension(x),
		Install:       x.Install(),
		Variables: map[string]string{
			"extensionPath": exp.Vars.ExtensionPath, "workspacePath": exp.Vars.WorkspacePath,
			"/": exp.Vars.PathSeparator, "platform": exp.Vars.Platform.OS, "arch": exp.Vars.Platform.Arch,
		},
		ExcludeTools: m.ExcludeTools, Sandbox: m.Sandbox, Engines: m.Engines,
		Problems: folderProblems(r, x),
	}
	for _, name := range m.ContextFiles() {
		p := filepath.Join(x.Path, name)
		_, err := os.Stat(p)
		info.ContextFiles = append(info.ContextFiles, contextInfo{Name: name, Path: p, Exists: err == nil})
	}
	resolve := func(kind, name, template string) binaryInfo {
		b := binaryInfo{Name: name, Template: template}
		if bin, err := x.ResolveBinary(r.env, kind, name, template); err != nil {
			b.Error = err.Error()
		} else {
			b.Binary, b.PlatformRule = bin.Path, bin.Platform.Rule
		}
		return b
	}
	for _, c := range x.Manifest().Commands {
		b := resolve("command", c.Name, c.Binary)
		b.Description, b.Subcommands, b.RequireConfirm = c.Description, c.Subcommands, c.RequireConfirm
		info.Commands = append(info.Commands, b)
	}
	for _, p := range x.Manifest().Plugins {
		b := resolve("plugin", p.ID, p.Binary)
		b.Description = p.Description
		info.Plugins = append(info.Plugins, b)
	}
	for _, s := range m.MCPServers {
		mi := mcpInfo{Name: s.Name, Command: s.Command, Args: s.Args, Cwd: s.Cwd, TimeoutMS: s.Timeout}
		if mi.TimeoutMS == 0 {
			mi.TimeoutMS = manifest.DefaultMCPTimeoutMillis
		}
		switch {
		case s.HTTPURL != "" || s.Type == "http":
			mi.Transport, mi.URL = "http", s.HTTPURL+s.URL
		case s.URL != "":
			mi.Transport, mi.URL = "sse", s.URL
		case s.TCP != "":
			mi.Transport, mi.URL = "tcp", s.TCP
		default:
			mi.Transport = "stdio"
		}
		if len(s.Env) > 0 {
			mi.Env = map[string]string{}
			for _, kv := range s.Env {
				mi.Env[kv.Key] = manifest.Mask(kv.Key, kv.Value)
			}
		}
		info.MCPServers = append(info.MCPServers, mi)
	}
	settings := registry.ReadDotEnv(filepath.Join(x.Dir, ".env"))
	for _, s := range m.Settings {
		_, set := settings[s.EnvVar]
		info.Settings = append(info.Settings, settingInfo{Name: s.Name, EnvVar: s.EnvVar, Sensitive: s.Sensitive, Set: set})
	}
	for _, other := range d.All {
		if other.ShadowedBy == x {
			info.Shadows = append(info.Shadows, other.ManifestPath)
		}
	}
	cmds, _ := agent.PromptCommands(r.env, d)
	for _, c := range cmds {
		if c.Extension == x.Name {
			info.Prompts = append(info.Prompts, "/"+c.Name)
		}
	}
	for _, sk := range agent.Skills(d) {
		if sk.Extension == x.Name {
			info.Skills = append(info.Skills, sk.Name)
		}
	}
	info.Hooks = hookSummary(filepath.Join(x.Path, "hooks", "hooks.json"))
	if grants, err := registry.Grants(r.env); err == nil {
		if g, ok := grants[x.Name]; ok {
			info.Grant = &g
			info.Granted = g.Lines(r.env.Home)
		}
	}
	info.Consent, _ = x.Consented(r.env)
	info.Needs = commands.Needs(r.env, x).Lines(r.env.Home)
	info.Agreed = x.ConsentGrant(r.env).Lines(r.env.Home)
	if info.Problems == nil {
		info.Problems = manifest.Problems{}
	}
	return info
}

// hookSummary lists an extension's hooks as "Event (matcher): command".
func hookSummary(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
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

func printInfo(w io.Writer, info *extInfo, verbose bool) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-13s %s\n", k+":", v)
		}
	}
	row("Name", info.Name)
	row("Version", info.Version)
	row("Description", info.Description)
	state := "disabled"
	if info.Enabled {
		state = "enabled"
	}
	row("State", state+" (rule: "+info.EnabledBy+")")
	row("Level", string(info.Level))
	row("Provider", info.Provider+" ("+info.ProviderName+")")
	row("Path", info.Path)
	if info.InstallPath != info.Path {
		row("Installed at", info.InstallPath)
	}
	row("Manifest", info.ManifestPath)
	if info.Install != nil {
		row("Source", info.Install.Source+" ("+info.Install.Type+")")
	}
	for _, s := range info.Shadows {
		row("Shadows", s)
	}
	row("Platform", info.Variables["platform"]+"/"+info.Variables["arch"])
	for _, c := range info.ContextFiles {
		mark := ""
		if !c.Exists {
			mark = " (missing, skipped)"
		}
		row("Context", c.Path+mark)
	}
	printBinaries(w, "Commands", info.Commands, verbose)
	printBinaries(w, "Plugins", info.Plugins, verbose)
	if len(info.MCPServers) > 0 {
		fmt.Fprintln(w, "MCP servers:")
		for _, s := range info.MCPServers {
			target := s.URL
			if s.Transport == "stdio" {
				target = strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
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
	if len(info.ExcludeTools) > 0 {
		row("Excludes", strings.Join(info.ExcludeTools, ", "))
	}
	row("Needs gem", info.Engines.Gem)
	if len(info.Prompts) > 0 {
		row("Prompts", strings.Join(info.Prompts, " "))
	}
	for _, h := range info.Hooks {
		row("Hook", h)
	}
	if len(info.Skills) > 0 {
		row("Skills", strings.Join(info.Skills, ", "))
	}
	row("Consent", string(info.Consent))
	if len(info.Needs) > 0 {
		row("Its programs need", strings.Join(info.Needs, ", "))
	}
	if len(info.Agreed) > 0 {
		row("Given at consent", strings.Join(info.Agreed, ", "))
	}
	if len(info.Granted) > 0 {
		row("Granted", strings.Join(info.Granted, ", "))
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
	}
}
