package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/termsafe"
)

// SlashCommand is one of gem's built-in commands (/compress, /memory, /stats, /help…), as
// Gemini CLI has them: the same table serves gem shell, the SDK (Commands, Session.Commands,
// RunCommand and Session.RunCommand) and gem acp (available_commands_update, a prompt
// naming one), so a command is built once and reaches every front. Most work on the
// conversation (Run); a few need none (NoSession), so that a program runs them without
// opening an agent: gem shell without an API key. gem shell's /quit and /exit are its
// own: they leave the terminal, which no other front has.
type SlashCommand struct {
	Name        string
	Description string
	Hint        string // what follows the name ("" : nothing)
	// Run does the command on the conversation, writing what it shows to w (text for a
	// person; termsafe'd where it repeats what a file or server said).
	Run func(ctx context.Context, c *Conversation, w io.Writer, args []string) error
	// NoSession, set instead of Run, does a command that reads only what the program found
	// (the extensions, the commands, what the user typed): RunWithoutSession.
	NoSession func(ctx context.Context, e CommandEnv, w io.Writer, args []string) error
}

// SlashCommands are gem's built-in commands, in the order they are listed.
var SlashCommands = []SlashCommand{
	{"chat", "save, resume, list or delete conversations by tag: /chat save|resume|list|delete [tag]", "save|resume|list|delete [tag]", chatCommand, nil},
	{"model", "show the model, or switch to another: /model <name>", "[model]", modelCommand, nil},
	{"tools", "list the tools the model may call (/tools desc: with their descriptions)", "[desc]", toolsCommand, nil},
	{"mcp", "list the MCP servers: state, tools and prompts", "", mcpCommand, nil},
	{"memory", "the context the model gets: /memory show|add <fact>|refresh", "show|add <fact>|refresh", memoryCommand, nil},
	{"stats", "token counts of the last turn and of the conversation", "", statsCommand, nil},
	{"compress", "replace the conversation by a summary of it, to save tokens", "", compressCommand, nil},
	{"agents", "list the subagents the model may hand tasks to", "", agentsCommand, nil},
	{"clear", "start a new conversation (the last one stays saved: gem sessions)", "", clearCommand, nil},
	{"skills", "list the skills; /skills enable|disable <name> switches one", "[list|enable <name>|disable <name>]", skillsCommand, nil},
	{"skill", "activate a skill: its instructions join the conversation", "<name>", skillCommand, nil},
	{"restore", "list the checkpoints, or bring the files and the conversation back to one: /restore [<id>] (general.checkpointing.enabled)", "[id]", restoreCommand, nil},
	{"help", "list the commands: built-in, the extensions', prompt commands, MCP prompts and skills", "", nil, helpCommand},
	{"extensions", "list the extensions and their state", "", nil, extensionsCommand},
	{"commands", "list the extensions' commands", "", nil, commandsCommand},
	{"history", "show what was typed (under gem acp: the session's prompts)", "", nil, historyCommand},
}

// SlashCommandNamed is the built-in command of that name (without the slash).
func SlashCommandNamed(name string) (SlashCommand, bool) {
	for _, sc := range SlashCommands {
		if sc.Name == name {
			return sc, true
		}
	}
	return SlashCommand{}, false
}

// UnknownCommandError is a name no built-in command has.
type UnknownCommandError struct{ Name string }

func (e *UnknownCommandError) Error() string { return fmt.Sprintf("no built-in command /%s", e.Name) }

// RunCommand runs the built-in command name on the conversation.
func (c *Conversation) RunCommand(ctx context.Context, w io.Writer, name string, args []string) error {
	sc, ok := SlashCommandNamed(name)
	if !ok {
		return &UnknownCommandError{Name: name}
	}
	if sc.Run == nil {
		return fmt.Errorf("/%s needs no conversation: RunWithoutSession runs it", name)
	}
	return sc.Run(ctx, c, w, args)
}

func modelCommand(_ context.Context, c *Conversation, w io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(w, "Model: %s\n", c.Model())
		return nil
	}
	c.SetModel(args[0])
	fmt.Fprintf(w, "Model: %s (from the next prompt on)\n", args[0])
	return nil
}

func compressCommand(ctx context.Context, c *Conversation, w io.Writer, _ []string) error {
	before, after, err := c.Compress(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Compressed the conversation: %d messages to %d.\n", before, after)
	return c.Save()
}

// chatCommand is /chat save|resume|list|delete.
func chatCommand(_ context.Context, c *Conversation, w io.Writer, args []string) error {
	chats := ChatsFor(c.cfg.Env.GemHome, c.Catalog.Launcher().Workspace())
	verb := "list"
	if len(args) > 0 {
		verb = args[0]
	}
	if verb != "list" && len(args) != 2 {
		return fmt.Errorf("usage: /chat %s <tag> (/chat list shows the saved ones)", verb)
	}
	switch verb {
	case "list":
		return listChats(w, chats)
	case "save":
		if c.Messages() == 0 {
			return errors.New("nothing to save yet: the conversation is empty")
		}
		replaced, err := chats.Save(args[1], c.Session)
		if err != nil {
			return err
		}
		what := "saved"
		if replaced {
			what = "saved (replacing the conversation saved under it before)"
		}
		fmt.Fprintf(w, "Conversation %s as %q: /chat resume %s brings it back.\n", what, args[1], args[1])
	case "resume", "load":
		ch, err := chats.Load(args[1])
		if err != nil {
			return err
		}
		c.RestoreHistory(ch.History)
		fmt.Fprintf(w, "Resumed %q: %d messages.\n", args[1], len(ch.History))
		return c.Save()
	case "delete":
		if err := chats.Delete(args[1]); err != nil {
			return err
		}
		fmt.Fprintf(w, "Deleted %q.\n", args[1])
	default:
		return fmt.Errorf("/chat %s: use save, resume, list or delete", verb)
	}
	return nil
}

func listChats(w io.Writer, chats Chats) error {
	list, err := chats.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "No saved conversations in this project: /chat save <tag> saves this one.")
		return nil
	}
	tw := table(w)
	for _, ch := range list {
		fmt.Fprintf(tw, "  %s\t%d messages\t%s\t%s\n", ch.Tag, ch.Messages, ch.Model, ch.Saved.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func toolsCommand(_ context.Context, c *Conversation, w io.Writer, args []string) error {
	descriptions := len(args) > 0 && (args[0] == "desc" || args[0] == "descriptions")
	list := c.Catalog.List()
	if len(list) == 0 {
		fmt.Fprintln(w, "No tools: the model can only answer in text.")
		return nil
	}
	tw := table(w)
	for _, t := range list {
		if descriptions {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", termsafe.Cell(t.Name), termsafe.Cell(t.Extension), termsafe.Cell(termsafe.FirstLine(t.Spec.Description)))
		} else {
			fmt.Fprintf(tw, "  %s\t%s\n", termsafe.Cell(t.Name), termsafe.Cell(t.Extension))
		}
	}
	return tw.Flush()
}

func mcpCommand(ctx context.Context, c *Conversation, w io.Writer, _ []string) error {
	c.MCPPrompts(ctx) // starts the servers
	servers := c.Catalog.Servers()
	if len(servers) == 0 {
		fmt.Fprintln(w, "No MCP servers: no enabled extension or settings file declares mcpServers.")
		return nil
	}
	tw := table(w)
	for _, srv := range servers {
		state := srv.State
		if srv.Error != nil {
			state += ": " + termsafe.FirstLine(srv.Error.Error())
		}
		prompts := ""
		if n := len(c.MCPPromptsOf(srv.Name)); n > 0 {
			prompts = fmt.Sprintf(", %d prompts", n)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d tools%s\t%s\n", termsafe.Cell(srv.Name), termsafe.Cell(srv.Extension), srv.Tools, prompts, termsafe.Cell(state))
	}
	return tw.Flush()
}

// memoryCommand is /memory show|add|refresh.
func memoryCommand(_ context.Context, c *Conversation, w io.Writer, args []string) error {
	verb := "show"
	if len(args) > 0 {
		verb = args[0]
	}
	switch verb {
	case "show":
		if len(c.Files) == 0 {
			fmt.Fprintln(w, "No context files: GEMINI.md in ~/.gemini, the project or an extension adds one (/memory add <fact> starts yours).")
			return nil
		}
		for _, f := range c.Files {
			fmt.Fprintf(w, "--- %s ---\n%s\n", termsafe.Cell(f.Path), termsafe.Text(strings.TrimRight(f.Text, "\n")))
		}
	case "add":
		msg, err := tools.SaveMemory(tools.MemoryFile(c.cfg.Env, c.cfg.Settings), strings.Join(args[1:], " "))
		if err != nil {
			return fmt.Errorf("/memory add: %w", err)
		}
		fmt.Fprintln(w, msg)
		c.ReloadContext()
	case "refresh":
		c.ReloadContext()
		fmt.Fprintf(w, "Context reloaded: %s.\n", plural.Count(len(c.Files), "file"))
	default:
		return fmt.Errorf("/memory %s: use show, add <fact> or refresh", verb)
	}
	return nil
}

func statsCommand(_ context.Context, c *Conversation, w io.Writer, _ []string) error {
	tw := table(w)
	fmt.Fprintln(tw, "\tinput\toutput\tcached\tthoughts\ttotal\trequests\ttool calls")
	l := c.Last
	u, last := c.Usage()
	fmt.Fprintf(tw, "last turn\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", l.Tokens.Prompt, l.Tokens.Output, l.Tokens.Cached, l.Tokens.Thoughts, l.Tokens.Total, l.Requests, l.ToolCalls)
	fmt.Fprintf(tw, "conversation\t%d\t%d\t%d\t%d\t%d\t\t\n", u.Prompt, u.Output, u.Cached, u.Thoughts, u.Total)
	tw.Flush()
	_, err := fmt.Fprintf(w, "The last request used %d of the model's %d input tokens.\n", last, c.TokenLimit())
	return err
}

func agentsCommand(_ context.Context, c *Conversation, w io.Writer, _ []string) error {
	if len(c.Subagents()) == 0 {
		fmt.Fprintln(w, "No subagents: agents/<name>.md in ~/.gemini, a trusted project's .gemini or an extension adds one.")
		return nil
	}
	tw := table(w)
	for _, sa := range c.Subagents() {
		tools := "every tool"
		if len(sa.Tools) > 0 {
			tools = strings.Join(sa.Tools, ", ")
		}
		fmt.Fprintf(tw, "  %s\t(%s)\t%s\ttools: %s\n", sa.Name, sa.Source, termsafe.FirstLine(sa.Description), tools)
	}
	return tw.Flush()
}

// table is the writer of a slash command's aligned listing: columns two spaces apart.
func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }
