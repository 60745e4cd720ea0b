package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/termsafe"
)

// The shell's conversation commands, as in Gemini CLI.
var sessionBuiltins = map[string]string{
	"chat":     "save, resume, list or delete conversations by tag: /chat save|resume|list|delete [tag]",
	"model":    "show the model, or switch to another: /model <name>",
	"tools":    "list the tools the model may call (/tools desc: with their descriptions)",
	"mcp":      "list the MCP servers: state, tools and prompts",
	"memory":   "the context the model gets: /memory show|add <fact>|refresh",
	"stats":    "token counts of the last turn and of the conversation",
	"compress": "replace the conversation by a summary of it, to save tokens",
	"agents":   "list the subagents the model may hand tasks to",
	"restore":  "list the checkpoints, or bring the files and the conversation back to one: /restore [<id>] (general.checkpointing.enabled)",
}

// sessionCommand runs a conversation command; false when name is none.
func (s *shell) sessionCommand(name string, args []string) bool {
	if _, ok := sessionBuiltins[name]; !ok {
		return false
	}
	if !s.openAgent() {
		return true
	}
	w, a := s.sess.stdout, s.agent
	var err error
	switch name {
	case "chat":
		err = a.chat(w, args)
	case "model":
		if len(args) == 0 {
			fmt.Fprintf(w, "Model: %s\n", a.conv.Model())
		} else {
			a.conv.SetModel(args[0])
			fmt.Fprintf(w, "Model: %s (from the next prompt on)\n", args[0])
		}
	case "tools":
		a.listTools(w, len(args) > 0 && (args[0] == "desc" || args[0] == "descriptions"))
	case "mcp":
		a.listMCP(w)
	case "memory":
		err = a.memory(w, args)
	case "stats":
		a.stats(w)
	case "agents":
		a.listAgents(w)
	case "restore":
		err = a.restore(w, args)
	case "compress":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		var before, after int
		if before, after, err = a.conv.Compress(ctx); err == nil {
			fmt.Fprintf(w, "Compressed the conversation: %d messages to %d.\n", before, after)
			err = a.conv.Save()
		}
	}
	if errors.Is(err, agent.ErrNoChat) {
		err = fmt.Errorf("%w: /chat list shows the saved ones", err)
	}
	if err != nil {
		fmt.Fprintln(s.sess.stderr, errorText(err))
	}
	return true
}

// chat is /chat save|resume|list|delete.
func (a *agentSession) chat(w io.Writer, args []string) error {
	chats := agent.ChatsFor(a.s.env.GemHome, commands.Workspace(a.s.env))
	verb := "list"
	if len(args) > 0 {
		verb = args[0]
	}
	if verb != "list" && len(args) != 2 {
		return fmt.Errorf("usage: /chat %s <tag> (/chat list shows the saved ones)", verb)
	}
	switch verb {
	case "list":
		list, err := chats.List()
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(w, "No saved conversations in this project: /chat save <tag> saves this one.")
			return nil
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, ch := range list {
			fmt.Fprintf(tw, "  %s\t%d messages\t%s\t%s\n", ch.Tag, ch.Messages, ch.Model, ch.Saved.Local().Format("2006-01-02 15:04"))
		}
		return tw.Flush()
	case "save":
		if a.conv.Messages() == 0 {
			return errors.New("nothing to save yet: the conversation is empty")
		}
		replaced, err := chats.Save(args[1], a.conv.Session)
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
		a.conv.RestoreHistory(ch.History)
		fmt.Fprintf(w, "Resumed %q: %d messages.\n", args[1], len(ch.History))
		return a.conv.Save()
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

func (a *agentSession) listTools(w io.Writer, descriptions bool) {
	list := a.conv.Catalog.List()
	if len(list) == 0 {
		fmt.Fprintln(w, "No tools: the model can only answer in text.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range list {
		if descriptions {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", termsafe.Cell(t.Name), termsafe.Cell(t.Extension), termsafe.Cell(firstLine(t.Spec.Description)))
		} else {
			fmt.Fprintf(tw, "  %s\t%s\n", termsafe.Cell(t.Name), termsafe.Cell(t.Extension))
		}
	}
	tw.Flush()
}

func (a *agentSession) listMCP(w io.Writer) {
	a.conv.MCPPrompts(context.Background()) // starts the servers
	servers := a.conv.Catalog.Servers()
	if len(servers) == 0 {
		fmt.Fprintln(w, "No MCP servers: no enabled extension or settings file declares mcpServers.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, srv := range servers {
		state := srv.State
		if srv.Error != nil {
			state += ": " + firstLine(errorText(srv.Error))
		}
		prompts := ""
		if n := len(a.conv.MCPPromptsOf(srv.Name)); n > 0 {
			prompts = fmt.Sprintf(", %d prompts", n)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d tools%s\t%s\n", termsafe.Cell(srv.Name), termsafe.Cell(srv.Extension), srv.Tools, prompts, termsafe.Cell(state))
	}
	tw.Flush()
}

// memory is /memory show|add|refresh.
func (a *agentSession) memory(w io.Writer, args []string) error {
	verb := "show"
	if len(args) > 0 {
		verb = args[0]
	}
	switch verb {
	case "show":
		if len(a.conv.Files) == 0 {
			fmt.Fprintln(w, "No context files: GEMINI.md in ~/.gemini, the project or an extension adds one (/memory add <fact> starts yours).")
			return nil
		}
		for _, f := range a.conv.Files {
			fmt.Fprintf(w, "--- %s ---\n%s\n", termsafe.Cell(f.Path), termsafe.Text(strings.TrimRight(f.Text, "\n")))
		}
	case "add":
		fact := strings.Join(args[1:], " ")
		msg, err := tools.SaveMemory(tools.MemoryFile(a.s.env, a.s.settings()), fact)
		if err != nil {
			return fmt.Errorf("/memory add: %w", err)
		}
		fmt.Fprintln(w, msg)
		a.refreshContext()
	case "refresh":
		a.refreshContext()
		fmt.Fprintf(w, "Context reloaded: %s.\n", plural.Count(len(a.conv.Files), "file"))
	default:
		return fmt.Errorf("/memory %s: use show, add <fact> or refresh", verb)
	}
	return nil
}

// refreshContext reads the context files and skills again into the system instruction.
func (a *agentSession) refreshContext() { a.conv.ReloadContext() }

func (a *agentSession) stats(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tinput\toutput\tcached\tthoughts\ttotal\trequests\ttool calls")
	l := a.conv.Last
	u, last := a.conv.Usage()
	fmt.Fprintf(tw, "last turn\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", l.Tokens.Prompt, l.Tokens.Output, l.Tokens.Cached, l.Tokens.Thoughts, l.Tokens.Total, l.Requests, l.ToolCalls)
	fmt.Fprintf(tw, "conversation\t%d\t%d\t%d\t%d\t%d\t\t\n", u.Prompt, u.Output, u.Cached, u.Thoughts, u.Total)
	tw.Flush()
	fmt.Fprintf(w, "The last request used %d of the model's %d input tokens.\n", last, a.conv.TokenLimit())
}

func init() {
	for name, usage := range sessionBuiltins {
		shellBuiltins[name] = usage
	}
}

func (a *agentSession) listAgents(w io.Writer) {
	if len(a.conv.Subagents()) == 0 {
		fmt.Fprintln(w, "No subagents: agents/<name>.md in ~/.gemini, a trusted project's .gemini or an extension adds one.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, sa := range a.conv.Subagents() {
		tools := "every tool"
		if len(sa.Tools) > 0 {
			tools = strings.Join(sa.Tools, ", ")
		}
		fmt.Fprintf(tw, "  %s\t(%s)\t%s\ttools: %s\n", sa.Name, sa.Source, firstLine(sa.Description), tools)
	}
	tw.Flush()
}
