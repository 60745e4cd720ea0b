package install

import (
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/internal/netaddr"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// ConsentText says what an extension brings, as Gemini CLI's install consent lists it:
// verb ("Installing") the extension from source, to be put in dest. needs is what its
// programs need beyond the default sandbox (launcher profiles, toolchains), granted with
// the consent.
func ConsentText(x *registry.Extension, verb, source, dest string, env registry.Env, needs registry.Grant) string {
	return consentText(x, verb, source, env, needs, fmt.Sprintf("It will be installed in %s.\n", dest))
}

// LinkConsentText is the consent text of gem ext link: the extension runs from its folder
// source, where it is; dest only records the link.
func LinkConsentText(x *registry.Extension, source, dest string, env registry.Env, needs registry.Grant) string {
	return consentText(x, "Linking", source, env, needs,
		fmt.Sprintf("It will run from %s, where it is: nothing is copied (gem records the link in %s).\n", source, dest))
}

func consentText(x *registry.Extension, verb, source string, env registry.Env, needs registry.Grant, where string) string {
	return fmt.Sprintf("%s extension %s from %s\n", verb, nameVersion(x), source) + consentLines(x, env, needs) + where +
		"Extensions run code on your machine with the permissions above; install only extensions you trust.\n"
}

// InPlaceConsentText is the consent text of an extension already in place, found here
// (gem ext consent, the question on first use): nothing is installed, so it says where the
// extension is, which one it is (level and provider: a name can be found at several), and
// what agreeing does.
func InPlaceConsentText(x *registry.Extension, env registry.Env, needs registry.Grant) string {
	return fmt.Sprintf("Extension %s: %s, already in place in %s\n", nameVersion(x), Which(x), x.Dir) + consentLines(x, env, needs) +
		"Nothing is installed or copied: agreeing lets gem run it where it is, with the permissions above.\n" +
		"Extensions run code on your machine; agree only to extensions you trust.\n"
}

// Which says which extension of its name x is: "a project extension of gem", "a user
// extension of Gemini CLI".
func Which(x *registry.Extension) string {
	if x.Provider == nil {
		return fmt.Sprintf("a %s extension", x.Level)
	}
	return fmt.Sprintf("a %s extension of %s", x.Level, x.Provider.Name)
}

// nameVersion is x's quoted name and its version, when it has one.
func nameVersion(x *registry.Extension) string {
	if x.Version == "" {
		return fmt.Sprintf("%q", x.Name)
	}
	return fmt.Sprintf("%q %s", x.Name, x.Version)
}

// consentLines are the "  * " lines of a consent text: what x brings and what its programs
// are given.
func consentLines(x *registry.Extension, env registry.Env, needs registry.Grant) string {
	m := x.Manifest()
	lines := slices.Concat(programLines(m), contentLines(x, m))
	_, hooksErr := os.Stat(filepath.Join(x.Path, "hooks", "hooks.json"))
	if runs := len(m.Commands) > 0 || len(m.Plugins) > 0 || hasStdioServer(m) || hooksErr == nil; runs {
		lines = append(lines, "its programs run sandboxed: they read the system, the extension and your project, write their own data folder and /tmp, and have no network and do not change your project, but for what the lines below give or ask for")
	}
	lines = append(lines, sandboxes(m, needs.Roots, env.Home)...)
	if l := needs.Lines(env.Home); len(l) > 0 {
		lines = append(lines, "to run its programs (their launchers and toolchains) it is given: "+strings.Join(l, ", "))
	}
	for _, n := range needs.Notes {
		lines = append(lines, "NOT given: "+n)
	}
	if text, err := x.ManifestText(); err == nil {
		if uses := registry.HostVarUses(string(text)); len(uses) > 0 {
			lines = append(lines, "reads these variables of your environment: "+hostVarLine(uses))
		}
	}
	if len(lines) == 0 {
		lines = append(lines, "nothing that runs: no commands, plugins or MCP servers")
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  * " + l + "\n")
	}
	return b.String()
}

// programLines are the consent lines of what m runs: commands, plugins, MCP servers.
func programLines(m *manifest.Manifest) []string {
	var lines []string
	for _, c := range m.Commands {
		lines = append(lines, fmt.Sprintf("executable command /%s runs %s", c.Name, c.Binary))
	}
	for _, p := range m.Plugins {
		lines = append(lines, fmt.Sprintf("tool plugin %s runs %s", p.ID, p.Binary))
	}
	for _, s := range m.MCPServers {
		switch {
		case s.Command != "":
			l := fmt.Sprintf("MCP server %q (stdio) runs: %s", s.Name, strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " ")))
			if s.Cwd != "" {
				l += " (in " + s.Cwd + ")"
			}
			if len(s.Env) > 0 {
				var env []string
				for _, kv := range s.Env {
					env = append(env, kv.Key+"="+manifest.Mask(kv.Key, kv.Value))
				}
				l += " with env " + strings.Join(env, ", ")
			}
			lines = append(lines, l)
		case s.HTTPURL != "":
			lines = append(lines, fmt.Sprintf("MCP server %q (http) at %s%s", s.Name, s.HTTPURL, localNote(s.HTTPURL, m)))
		case s.URL != "":
			lines = append(lines, fmt.Sprintf("MCP server %q (sse) at %s%s", s.Name, s.URL, localNote(s.URL, m)))
		case s.TCP != "":
			lines = append(lines, fmt.Sprintf("MCP server %q (tcp) at %s", s.Name, s.TCP))
		}
	}
	return lines
}

// contentLines are the consent lines of what x's folder gives the model and the agent:
// context files, excluded tools, hooks, skills, prompt commands.
func contentLines(x *registry.Extension, m *manifest.Manifest) []string {
	var lines []string
	var ctxFiles []string
	for _, c := range m.ContextFiles() {
		if _, err := os.Stat(filepath.Join(x.Path, c)); err == nil {
			ctxFiles = append(ctxFiles, c)
		}
	}
	if len(ctxFiles) > 0 {
		lines = append(lines, "context files for the model: "+strings.Join(ctxFiles, ", "))
	}
	if len(m.ExcludeTools) > 0 {
		lines = append(lines, "excludes tools: "+strings.Join(m.ExcludeTools, ", "))
	}
	if _, err := os.Stat(filepath.Join(x.Path, "hooks", "hooks.json")); err == nil {
		lines = append(lines, "hooks: hooks/hooks.json (commands run on agent events)")
	}
	if skills, _ := filepath.Glob(filepath.Join(x.Path, "skills", "*", "SKILL.md")); len(skills) > 0 {
		var names []string
		for _, s := range skills {
			names = append(names, filepath.Base(filepath.Dir(s)))
		}
		lines = append(lines, "skills: "+strings.Join(names, ", "))
	}
	if programs := skillPrograms(x.Path); len(programs) > 0 {
		lines = append(lines, "skill tools: "+strings.Join(programs, ", ")+" (programs the model runs while their skill is active)")
	}
	prompts := 0
	filepath.WalkDir(filepath.Join(x.Path, "commands"), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && strings.HasSuffix(p, ".toml") {
			prompts++
		}
		return nil
	})
	if prompts > 0 {
		lines = append(lines, fmt.Sprintf("prompt commands: %d in commands/", prompts))
	}
	return lines
}

func hasStdioServer(m *manifest.Manifest) bool {
	for _, s := range m.MCPServers {
		if s.Command != "" {
			return true
		}
	}
	return false
}

// localNote says when a remote server's address is the machine's own or the local
// network's: gem reaches it for the extension only with the network capability.
func localNote(raw string, m *manifest.Manifest) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := u.Hostname()
	local := host == "localhost" || strings.HasSuffix(host, ".localhost")
	if a, err := netip.ParseAddr(host); err == nil && !netaddr.Public(a, nil) {
		local = true
	}
	if !local {
		return ""
	}
	if m.Sandbox != nil && m.Sandbox.Network {
		return " (a local or private address: it asks for the network, below)"
	}
	return " (a local or private address: not reached unless the network is granted)"
}

// consentDiff lists the lines of the new consent text that the old one did not have, and
// the old ones that are gone.
func consentDiff(oldText, newText string) (added, removed []string) {
	body := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "  * ") {
				out = append(out, strings.TrimPrefix(l, "  * "))
			}
		}
		return out
	}
	return diffLines(body(oldText), body(newText))
}

// ManifestDiff lists the lines of a manifest's text added and removed between two versions
// (trimmed; for the question asked when a manifest changed since consent).
func ManifestDiff(oldText, newText string) (added, removed []string) {
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	return diffLines(lines(oldText), lines(newText))
}

// diffLines lists the lines of n missing from o (added) and of o missing from n (removed).
func diffLines(o, n []string) (added, removed []string) {
	for _, l := range n {
		if !slices.Contains(o, l) {
			added = append(added, l)
		}
	}
	for _, l := range o {
		if !slices.Contains(n, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}

// hostVarLine names each host variable and the manifest fields it is handed to:
// "GITHUB_TOKEN into mcpServers.gh.env.GH; HOME into …".
func hostVarLine(uses []manifest.VarUse) string {
	parts := make([]string, len(uses))
	for i, u := range uses {
		parts[i] = u.Name + " into " + strings.Join(u.Fields, ", ")
	}
	return strings.Join(parts, "; ")
}

// skillPrograms are the executables of the extension's skills' tools/ folders
// (skills/<name>/tools/<file>), as <name>/tools/<file>.
func skillPrograms(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "skills", "*", "tools", "*"))
	var out []string
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 && !strings.HasPrefix(fi.Name(), ".") {
			rel, _ := filepath.Rel(filepath.Join(dir, "skills"), f)
			out = append(out, rel)
		}
	}
	return out
}
