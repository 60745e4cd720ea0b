package agent

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
)

// Command is a slash command a user may type (sdk.Command): one of gem's built-in commands
// (SlashCommands), a prompt command of the user's, the project's or an extension's
// commands/*.toml, a prompt of an MCP server, or a skill ("/<skill> request" activates it).
type Command struct {
	Name        string // without the slash
	Description string
	Source      string // builtin, user, project or extension (prompt commands), mcp or skill
	Extension   string // the extension that brings it, for Source extension (and skills)
	Server      string // the MCP server, for Source mcp
	Hint        string // what follows the name: a built-in's arguments, an MCP prompt's, else ""
	// NeedsSession is true for a command that runs only in a session (it works on the
	// conversation, or is sent to the model); false for the built-in ones that need none
	// (/help, /history, /extensions, /commands), which a program runs without opening an
	// agent (sdk.RunCommand): no model, no API key.
	NeedsSession bool
}

// CommandEnv is what a built-in command that needs no session reads.
type CommandEnv struct {
	Env       registry.Env
	Discovery *registry.Discovery // the extensions (/extensions, /commands)
	// Commands are the slash commands here, the built-in ones first (/help lists them);
	// InSession says they are a session's (its MCP servers' prompts and skills included).
	Commands  []Command
	InSession bool
	History   []string // what the user typed, oldest first (/history)
}

// BuiltinCommands are SlashCommands as Commands.
func BuiltinCommands() []Command {
	out := make([]Command, 0, len(SlashCommands))
	for _, sc := range SlashCommands {
		out = append(out, Command{Name: sc.Name, Description: sc.Description, Source: "builtin", Hint: sc.Hint, NeedsSession: sc.Run != nil})
	}
	return out
}

// RunWithoutSession runs the built-in command name that needs no session. A name no
// built-in command has is an *UnknownCommandError; one that needs a session, a
// *NeedsSessionError.
func RunWithoutSession(ctx context.Context, e CommandEnv, w io.Writer, name string, args []string) error {
	sc, ok := SlashCommandNamed(name)
	if !ok {
		return &UnknownCommandError{Name: name}
	}
	if sc.NoSession == nil {
		return &NeedsSessionError{Name: name}
	}
	return sc.NoSession(ctx, e, w, args)
}

// NeedsSessionError is a built-in command run without a session that works on one.
type NeedsSessionError struct{ Name string }

func (e *NeedsSessionError) Error() string {
	return fmt.Sprintf("/%s works on a session: open one first", e.Name)
}

// helpCommand is /help: every slash command here, by source. Built from the commands'
// table (SlashCommands) and what the program found (CommandEnv.Commands): gem shell's help,
// gem acp's list and the docs say the same.
func helpCommand(_ context.Context, e CommandEnv, w io.Writer, _ []string) error {
	bySource := func(keep func(Command) bool) []Command {
		return slices.DeleteFunc(slices.Clone(e.Commands), func(c Command) bool { return !keep(c) })
	}
	builtins := bySource(func(c Command) bool { return c.Source == "builtin" })
	slices.SortFunc(builtins, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	section(w, "Built-in commands:", builtins, func(Command) string { return "" })
	if rows := extensionCommands(e); len(rows) > 0 {
		fmt.Fprintln(w, "Extension commands:")
		listExtensionCommands(w, e, rows)
	}
	section(w, "Prompt commands (commands/*.toml: sent to the model):", bySource(func(c Command) bool { return c.Source != "builtin" && c.Source != "mcp" && c.Source != "skill" }), func(c Command) string {
		return "(from " + cmp.Or(c.Extension, c.Source) + ")"
	})
	section(w, "MCP prompts (sent to the model):", bySource(func(c Command) bool { return c.Source == "mcp" }), func(c Command) string { return "(from MCP server " + c.Server + ")" })
	section(w, "Skills (/<skill> <request> activates one for the request):", bySource(func(c Command) bool { return c.Source == "skill" }), func(c Command) string { return "" })
	if !e.InSession {
		fmt.Fprintln(w, "MCP prompts and skills: listed here once a session is open (the shell opens it with the first prompt, or /mcp).")
	}
	return nil
}

// section lists cmds under title (nothing when there are none), each with from's note.
func section(w io.Writer, title string, cmds []Command, from func(Command) string) {
	if len(cmds) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	tw := table(w)
	for _, c := range cmds {
		line := "  /" + c.Name + "\t" + termsafe.Cell(c.Description)
		if f := from(c); f != "" {
			line += "\t" + termsafe.Cell(f)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// historyCommand is /history: what the user typed, numbered.
func historyCommand(_ context.Context, e CommandEnv, w io.Writer, _ []string) error {
	if len(e.History) == 0 {
		_, err := fmt.Fprintln(w, "Nothing typed yet.")
		return err
	}
	for i, h := range e.History {
		fmt.Fprintf(w, "%4d  %s\n", i+1, termsafe.Cell(h))
	}
	return nil
}

// extensionsCommand is /extensions: every extension found, shadowed ones included, with
// its state (gem ext list --all).
func extensionsCommand(_ context.Context, e CommandEnv, w io.Writer, _ []string) error {
	d := e.Discovery
	for _, warn := range d.Warnings {
		fmt.Fprintln(w, "warning:", termsafe.Text(warn))
	}
	if len(d.All) == 0 {
		_, err := fmt.Fprintln(w, "No extensions installed.")
		return err
	}
	tw := table(w)
	fmt.Fprintln(tw, "NAME\tVERSION\tSTATE\tLEVEL\tPROVIDER\tPATH")
	for _, x := range d.All {
		version := termsafe.Cell(x.Version)
		if strings.TrimSpace(version) == "" {
			version = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Cell(x.Name), version, x.State(), x.Level, x.Provider.ID, termsafe.Cell(x.Path))
	}
	return tw.Flush()
}

// commandsCommand is /commands: the extensions' executable commands (gem commands).
func commandsCommand(_ context.Context, e CommandEnv, w io.Writer, _ []string) error {
	rows := extensionCommands(e)
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No extension commands: no enabled extension declares one.")
		return err
	}
	listExtensionCommands(w, e, rows)
	return nil
}

func extensionCommands(e CommandEnv) []commands.Row {
	return commands.NewTable(e.Discovery).Rows(e.Env)
}

// listExtensionCommands writes rows, one a line: an extension command named like a
// built-in one as <extension>.<name> (the built-in answers /<name>, as in Gemini CLI).
func listExtensionCommands(w io.Writer, e CommandEnv, rows []commands.Row) {
	tw := table(w)
	for _, row := range rows {
		desc := row.Description
		if row.Error != "" {
			desc = "unavailable: " + row.Error
		}
		name := row.Name
		if slices.ContainsFunc(e.Commands, func(c Command) bool { return c.Source == "builtin" && c.Name == name }) {
			name = row.Extension + "." + row.Name
		}
		subs := ""
		if len(row.Subcommands) > 0 {
			subs = " [" + strings.Join(row.Subcommands, "|") + "]"
		}
		fmt.Fprintf(tw, "  /%s%s\t%s\t(from %s)\n", termsafe.Cell(name), termsafe.Cell(subs), termsafe.Cell(desc), termsafe.Cell(row.Extension))
	}
	tw.Flush()
}
