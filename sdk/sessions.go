package sdk

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/registry"
)

// SessionInfo is a saved session, as ListSessions finds it.
type SessionInfo struct {
	ID       string
	Title    string // its first prompt, cut short
	Model    string
	Created  time.Time
	Updated  time.Time
	Messages int // the history's length: prompts, answers, tool calls and their results
}

// ListSessions are the saved sessions of the agent's workspace (gem's, the SDK's, gem -p's
// and the shell's alike), newest first.
func (a *Agent) ListSessions() ([]SessionInfo, error) { return listSessions(a.env) }

// ListSessions are the saved sessions where an agent of o would find them, without opening
// one (no model, no tools): Options' Getenv and Cwd are read, the rest ignored.
func ListSessions(o Options) ([]SessionInfo, error) {
	env, _, err := envOf(o)
	if err != nil {
		return nil, err
	}
	return listSessions(env)
}

func listSessions(env registry.Env) ([]SessionInfo, error) {
	all, err := agent.Sessions{Dir: env.SessionsDir()}.List()
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, s := range all {
		info := SessionInfo{ID: s.ID, Model: s.Model, Created: s.Created, Updated: s.Updated, Messages: len(s.History)}
		for _, m := range transcriptOf(s) {
			if m.Role == "user" {
				info.Title = shorten(m.Text, 80)
				break
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// Command is a slash command a user may type: one of gem's built-in conversation commands
// (/compress, /memory, /stats…: RunCommand runs them), a prompt command of the user's, the
// project's or an extension's commands/*.toml, a prompt of an MCP server, or a skill
// ("/<skill> request" activates it); Expand turns the others into a prompt.
type Command struct {
	Name        string // without the slash
	Description string
	Source      string // builtin, user, project or extension (prompt commands), mcp or skill
	Extension   string // the extension that brings it, for Source extension (and skills)
	Server      string // the MCP server, for Source mcp
	Hint        string // what follows the name: a built-in's arguments, an MCP prompt's, else ""
}

// Commands are the slash commands, in the order a name is looked for: the built-in ones
// (RunCommand) first, as in gem shell, then those Expand knows (a prompt command hides an
// MCP prompt or a skill of its name). Listing the MCP prompts starts the
// MCP servers (once; a server that fails is left out with a warning in gem's log).
func (s *Session) Commands(ctx context.Context) []Command {
	var out []Command
	seen := map[string]bool{}
	add := func(c Command) {
		if !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	for _, c := range builtinCommands() {
		add(c)
	}
	for _, c := range s.conv.Commands {
		add(Command{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension})
	}
	for _, p := range s.conv.MCPPrompts(ctx) {
		var args []string
		for _, a := range p.Arguments {
			args = append(args, a.Name+"=…")
		}
		add(Command{Name: p.Command, Description: p.Description, Source: "mcp", Server: p.Server, Hint: strings.Join(args, " ")})
	}
	for _, sk := range s.conv.Skills() {
		add(Command{Name: sk.Name, Description: sk.Description, Source: "skill", Extension: sk.Extension})
	}
	return out
}

// Commands are the slash commands an agent of o would offer, found without opening one (no
// model, no tools, no MCP server started): the built-in ones (Session.RunCommand) and the
// prompt commands, as Session.Commands lists them. A Session's Commands add the MCP
// servers' prompts and the skills.
func Commands(o Options) ([]Command, error) {
	env, _, err := envOf(o)
	if err != nil {
		return nil, err
	}
	out := builtinCommands()
	if o.Settings == NoSettings {
		return out, nil
	}
	var d *registry.Discovery
	if o.Host != nil {
		d = o.Host.Discovery
	}
	if d == nil {
		d = registry.Discover(env, registry.Providers)
	}
	cmds, _ := agent.PromptCommands(env, d)
	for _, c := range cmds {
		if !slices.ContainsFunc(out, func(o Command) bool { return o.Name == c.Name }) {
			out = append(out, Command{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension})
		}
	}
	return out, nil
}

// builtinCommands are gem's built-in conversation commands.
func builtinCommands() []Command {
	var out []Command
	for _, sc := range agent.SlashCommands {
		out = append(out, Command{Name: sc.Name, Description: sc.Description, Source: "builtin", Hint: sc.Hint})
	}
	return out
}

// ErrNoChat is /chat resume or delete of a tag nothing is saved under (errors.Is).
var ErrNoChat = agent.ErrNoChat

// RunCommand runs the built-in command name (a Command of Source builtin, without the
// slash) with its arguments, as gem shell runs it, and returns what it shows: text for a
// person. A name that is no built-in command is an *UnknownCommandError.
func (s *Session) RunCommand(ctx context.Context, name string, args []string) (string, error) {
	var b strings.Builder
	err := s.conv.RunCommand(ctx, &b, name, args)
	return b.String(), err
}

// UnknownCommandError is a name RunCommand does not know.
type UnknownCommandError = agent.UnknownCommandError

// Expand turns what a user typed into the prompt to send, as gem -p does: "/name args" of a
// prompt command becomes its expansion (its !{…} run sandboxed, under the policy), of an
// MCP prompt its text from the server, of a skill the request with the skill active; and
// @path references to the workspace's files add their contents.
func (s *Session) Expand(ctx context.Context, input string) (string, error) {
	return s.conv.Expand(ctx, input)
}

// shorten is text on one line, at most n runes.
func shorten(text string, n int) string {
	r := []rune(text)
	for i, c := range r {
		if c == '\n' || c == '\r' {
			r = r[:i]
			break
		}
	}
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}

// AttachError is an attachment Session.Attach refuses: a type the model does not read
// inline, or over AttachMax bytes.
type AttachError = agent.AttachError

// AttachMax is the largest attachment Session.Attach takes.
const AttachMax = agent.AttachMax

// Image is an image for the model: image/png, image/jpeg, image/webp, image/heic or
// image/heif, at most AttachMax bytes.
type Image = agent.Image

// Attach adds images to the next Send: the model sees them with the prompt, and they stay
// in the session's history. One refused (an *AttachError) refuses them all.
func (s *Session) Attach(images ...Image) error {
	return s.conv.Attach(images...)
}
