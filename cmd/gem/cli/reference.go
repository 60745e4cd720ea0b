package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/iostreams"
	"github.com/gemhost/gem/sdk"
)

//go:generate go run ../../../scripts/clidocs ../../../docs/cli

// Reference is gem's command-line reference, rendered from the application's own command
// tree (the text -h prints, as Markdown): file name → content. gem.md has the global flags
// and a line per verb; gem_<verb>.md each verb with its subcommands. `make docs` writes the
// files to docs/cli; TestCLIReferenceIsCurrent fails when they differ from the app.
func Reference() map[string][]byte {
	ios, _, _, _ := iostreams.Test()
	app := NewApp(&Factory{IO: ios})
	files := map[string][]byte{}
	var index bytes.Buffer
	fmt.Fprintf(&index, "%s# gem\n\n%s\n\n```\ngem [global flags]\ngem <verb> [flags] [arguments]\n```\n\n", generatedNote, sentence(app.Usage))
	index.WriteString("Without a verb, gem runs one prompt (`-p`), reads a piped prompt, or opens the interactive shell on a terminal.\n")
	index.WriteString("Every verb has `-h` (also `gem help <verb…>`).\n\n## Global flags\n\n")
	writeFlags(&index, app.Flags)
	index.WriteString("\n## Verbs\n\n| verb | what it does |\n|---|---|\n")
	for _, c := range visible(app.Commands) {
		name := "gem_" + c.Name + ".md"
		fmt.Fprintf(&index, "| [`gem %s`](%s) | %s |\n", c.Name, name, cell(c.Usage))
		var b bytes.Buffer
		b.WriteString(generatedNote)
		writeCommand(&b, "gem", c, 1)
		if c.Name == "shell" {
			writeSlashCommands(&b)
		}
		files[name] = b.Bytes()
	}
	files["gem.md"] = index.Bytes()
	return files
}

const generatedNote = "<!-- generated from gem's command tree by `make docs` (cmd/gem/cli/reference.go); do not edit -->\n"

// writeSlashCommands writes the built-in slash commands: the SDK's table (sdk.Commands),
// which gem shell's /help and gem acp's available commands list too, then the shell's own.
func writeSlashCommands(b *bytes.Buffer) {
	cmds, _ := sdk.Commands(sdk.Options{Settings: sdk.NoSettings})
	b.WriteString("## Built-in slash commands\n\n" +
		"The same in `gem shell` (where `/help` lists them with the extensions' commands and the prompt commands), " +
		"the Go SDK (`sdk.Commands`, `Session.RunCommand`) and `gem acp` (advertised to the editor). " +
		"Those marked *no session* run without the model side, so without an API key (`sdk.RunCommand`).\n\n" +
		"| command | what it does |\n|---|---|\n")
	for _, c := range cmds {
		if c.Source != "builtin" {
			continue
		}
		use := strings.TrimSpace("/" + c.Name + " " + c.Hint)
		note := ""
		if !c.NeedsSession {
			note = " *(no session)*"
		}
		fmt.Fprintf(b, "| `%s` | %s%s |\n", strings.ReplaceAll(use, "|", `\|`), cell(c.Description), note)
	}
	for _, name := range terminalOnly {
		fmt.Fprintf(b, "| `/%s` | leave the shell, also Ctrl-D *(gem shell only: the terminal's)* |\n", name)
	}
	b.WriteString("\n")
}

// writeCommand writes c, whose parent's path is parent, as a section of heading level
// depth, then its subcommands one level deeper.
func writeCommand(b *bytes.Buffer, parent string, c *cli.Command, depth int) {
	path := parent + " " + c.Name
	fmt.Fprintf(b, "%s %s\n\n%s\n\n", strings.Repeat("#", depth), path, sentence(c.Usage))
	if aliases := c.Aliases; len(aliases) > 0 {
		fmt.Fprintf(b, "Also: `%s`.\n\n", strings.Join(prefixed(parent, aliases), "`, `"))
	}
	subs := visible(c.Subcommands)
	if len(subs) > 0 {
		b.WriteString("| subcommand | what it does |\n|---|---|\n")
		for _, s := range subs {
			fmt.Fprintf(b, "| [`%s %s`](#%s) | %s |\n", path, s.Name, anchor(path+" "+s.Name), cell(s.Usage))
		}
		b.WriteString("\n")
	} else {
		usage := strings.TrimSpace(path + " [flags] " + c.ArgsUsage)
		if len(visibleFlags(c.Flags)) == 0 {
			usage = strings.TrimSpace(path + " " + c.ArgsUsage)
		}
		fmt.Fprintf(b, "```\n%s\n```\n\n", usage)
	}
	if desc := strings.TrimSpace(c.Description); desc != "" {
		if body, ok := strings.CutPrefix(desc, "EXAMPLES\n"); ok {
			fmt.Fprintf(b, "Examples:\n\n```\n%s\n```\n\n", dedent(body))
		} else {
			fmt.Fprintf(b, "%s\n\n", desc)
		}
	}
	if flags := visibleFlags(c.Flags); len(flags) > 0 {
		writeFlags(b, flags)
		b.WriteString("\n")
	}
	for _, s := range subs {
		writeCommand(b, path, s, depth+1)
	}
}

// writeFlags writes flags as a table: the flag as -h shows it, and what it does.
func writeFlags(b *bytes.Buffer, flags []cli.Flag) {
	b.WriteString("| flag | meaning |\n|---|---|\n")
	for _, f := range visibleFlags(flags) {
		name, usage, _ := strings.Cut(cli.FlagStringer(f), "\t")
		fmt.Fprintf(b, "| `%s` | %s |\n", name, cell(usage))
	}
}

func visible(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			out = append(out, c)
		}
	}
	return out
}

// visibleFlags leaves out hidden flags and --help, which every verb has.
func visibleFlags(flags []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() || f.Names()[0] == "help" {
			continue
		}
		out = append(out, f)
	}
	return out
}

func prefixed(parent string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = parent + " " + n
	}
	return out
}

// anchor is the fragment GitHub gives a heading: lower case, spaces as dashes, punctuation
// but dashes and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cell makes text safe in a Markdown table cell (<command> is not an HTML tag).
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

// sentence makes a usage line a sentence of prose: a capital, a full stop.
func sentence(s string) string {
	s = strings.TrimSuffix(cell(s), ".")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}
