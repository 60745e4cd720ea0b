package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

// Shell completion from live data: a verb's positional arguments complete from what they
// name (an <name> argument the extensions found here, <tool> the tools of the tool cache,
// <server> the MCP servers, [template] the templates, [setting] the extension's settings;
// gem run its commands and their subcommands). Paths, sources and JSON are left to the
// shell. Completion starts no plugin or server, decrypts no secret and asks nothing (a
// plugin whose environment needs a secret setting is left out of tool names).

// completionKind is what an argument shown as arg completes from ("" for the shell's own).
func completionKind(arg string) string {
	name := strings.Trim(strings.TrimSuffix(arg, "..."), "<>[]")
	switch name {
	case "name", "name|source", "name|folder":
		return "extensions"
	case "tool", "server", "template", "setting":
		return name + "s"
	}
	return ""
}

// completeArgs is the BashComplete of a verb whose arguments are fields.
func completeArgs(f *Factory, fields []binding) cli.BashCompleteFunc {
	var kinds []string
	rest := ""
	for _, b := range fields {
		if b.arg == "" {
			continue
		}
		kinds = append(kinds, completionKind(b.arg))
		if strings.HasSuffix(b.arg, "...") {
			rest = completionKind(b.arg)
		}
	}
	return func(c *cli.Context) {
		args := c.Args().Slice()
		if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "-") {
			cli.DefaultCompleteWithFlags(c.Command)(c)
			return
		}
		kind := rest
		if len(args) < len(kinds) {
			kind = kinds[len(args)]
		}
		printCompletions(c, f, kind, args)
	}
}

func printCompletions(c *cli.Context, f *Factory, kind string, args []string) {
	if kind == "" {
		return
	}
	s, err := f.Session()
	if err != nil {
		return
	}
	for _, name := range completions(s, kind, args) {
		fmt.Fprintln(c.App.Writer, name)
	}
}

// completions lists the names of kind ("extensions", "tools", …); args are the arguments
// before the one completed (a setting completes from the extension in args[0]).
func completions(s *session, kind string, args []string) []string {
	d := registry.Discover(s.env, registry.Providers)
	var out []string
	switch kind {
	case "extensions":
		for _, x := range d.Effective() {
			out = append(out, x.Name)
		}
	case "tools":
		reg, _ := tools.Load(context.Background(), s.env, d, tools.Options{CachedOnly: true, Environ: s.environ, Settings: s.settings(), Launcher: s.launch()})
		if reg != nil {
			for _, t := range reg.List() {
				out = append(out, t.Name)
			}
			reg.Close()
		}
	case "servers":
		for _, x := range d.Effective() {
			if x.Active() {
				for _, m := range x.Manifest().MCPServers {
					out = append(out, m.Name)
				}
			}
		}
	case "templates":
		out = slices.Sorted(maps.Keys(install.Templates))
		out = append(out, slices.Sorted(maps.Keys(install.TemplateAliases))...)
	case "settings":
		if len(args) > 0 {
			if x := d.Find(args[0]); x != nil {
				for _, st := range x.Manifest().Settings {
					out = append(out, st.Name)
				}
			}
		}
	case "commands":
		t := commands.NewTable(d)
		if len(args) == 0 {
			for _, e := range t.Entries {
				out = append(out, e.Name)
			}
		} else if e, ok := t.Lookup(strings.TrimPrefix(args[0], "/")); ok {
			if mc := e.Extension.Manifest().Command(e.Declared); mc != nil {
				out = append(out, mc.Subcommands...)
			}
		}
	}
	return out
}

// completeRun completes gem run: its --yes, then a command, then that command's
// subcommands.
func completeRun(f *Factory) cli.BashCompleteFunc {
	return func(c *cli.Context) {
		var args []string
		for _, a := range c.Args().Slice() {
			if a != "--yes" && a != "-y" {
				args = append(args, a)
			}
		}
		if len(args) > 1 {
			return
		}
		if len(args) == 0 {
			fmt.Fprintln(c.App.Writer, "--yes")
		}
		printCompletions(c, f, "commands", args)
	}
}
