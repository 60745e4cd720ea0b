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

// Command is a slash command a user may type: one of gem's built-in commands (/compress,
// /memory, /stats, /help…: RunCommand and Session.RunCommand run them), a prompt command of
// the user's, the project's or an extension's commands/*.toml, a prompt of an MCP server, or
// a skill ("/<skill> request" activates it); Expand turns the others into a prompt. Its
// NeedsSession is false for the built-in commands that need no session (/help, /history,
// /extensions, /commands): RunCommand runs them without opening an agent.
type Command = agent.Command

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
	for _, c := range agent.BuiltinCommands() {
		add(c)
	}
	for _, c := range s.conv.Commands {
		add(Command{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension, NeedsSession: true})
	}
	for _, p := range s.conv.MCPPrompts(ctx) {
		var args []string
		for _, a := range p.Arguments {
			args = append(args, a.Name+"=…")
		}
		add(Command{Name: p.Command, Description: p.Description, Source: "mcp", Server: p.Server, Hint: strings.Join(args, " "), NeedsSession: true})
	}
	for _, sk := range s.conv.Skills() {
		add(Command{Name: sk.Name, Description: sk.Description, Source: "skill", Extension: sk.Extension, NeedsSession: true})
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
	return commandsOf(o, env, discoveryOf(o, env)), nil
}

// commandsOf are Commands' list, with the extensions of d.
func commandsOf(o Options, env registry.Env, d *registry.Discovery) []Command {
	out := agent.BuiltinCommands()
	if o.Settings == NoSettings {
		return out
	}
	cmds, _ := agent.PromptCommands(env, d)
	for _, c := range cmds {
		if !slices.ContainsFunc(out, func(o Command) bool { return o.Name == c.Name }) {
			out = append(out, Command{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension, NeedsSession: true})
		}
	}
	return out
}

// discoveryOf are the extensions an agent of o would find: Host.Discovery, none under
// NoSettings, else discovered.
func discoveryOf(o Options, env registry.Env) *registry.Discovery {
	switch {
	case o.Host != nil && o.Host.Discovery != nil:
		return o.Host.Discovery
	case o.Settings == NoSettings:
		return &registry.Discovery{}
	}
	return registry.Discover(env, registry.Providers)
}

// RunCommand runs a built-in command that needs no session (a Command whose NeedsSession
// is false: /help, /history, /extensions, /commands) as an agent of o would run it,
// without opening one: no model, no API key, no tool or server started. Options' Getenv,
// Cwd, Settings and Host (its Discovery, and History for /history) are read, the rest
// ignored. It returns what the command shows: text for a person. A built-in command that
// works on a session is an *agent's* (Session.RunCommand): a *NeedsSessionError; a name
// no built-in command has, an *UnknownCommandError.
func RunCommand(ctx context.Context, o Options, name string, args []string) (string, error) {
	env, _, err := envOf(o)
	if err != nil {
		return "", err
	}
	d := discoveryOf(o, env)
	e := agent.CommandEnv{Env: env, Discovery: d, Commands: commandsOf(o, env, d)}
	if o.Host != nil && o.Host.History != nil {
		e.History = o.Host.History()
	}
	var b strings.Builder
	err = agent.RunWithoutSession(ctx, e, &b, name, args)
	return b.String(), err
}

// NeedsSessionError is a built-in command given to RunCommand that works on a session
// (Session.RunCommand runs it).
type NeedsSessionError = agent.NeedsSessionError

// ErrNoChat is /chat resume or delete of a tag nothing is saved under (errors.Is).
var ErrNoChat = agent.ErrNoChat

// RunCommand runs the built-in command name (a Command of Source builtin, without the
// slash) with its arguments, as gem shell runs it, and returns what it shows: text for a
// person. A name that is no built-in command is an *UnknownCommandError. The commands
// that need no session run as RunCommand runs them, with the session's commands (its MCP
// servers' prompts and skills too) and, for /history, Host.History or else the session's
// prompts.
func (s *Session) RunCommand(ctx context.Context, name string, args []string) (string, error) {
	var b strings.Builder
	var err error
	if sc, ok := agent.SlashCommandNamed(name); ok && sc.NoSession != nil {
		err = agent.RunWithoutSession(ctx, s.commandEnv(ctx), &b, name, args)
	} else {
		err = s.conv.RunCommand(ctx, &b, name, args)
	}
	return b.String(), err
}

// commandEnv is what the commands that need no session read in s.
func (s *Session) commandEnv(ctx context.Context) agent.CommandEnv {
	a := s.agent
	e := agent.CommandEnv{Env: a.env, Discovery: a.disc, Commands: s.Commands(ctx), InSession: true}
	if h := a.opts.Host; h != nil && h.History != nil {
		e.History = h.History()
		return e
	}
	for _, m := range transcriptOf(s.conv.Session) {
		if m.Role == "user" {
			e.History = append(e.History, m.Text)
		}
	}
	return e
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
