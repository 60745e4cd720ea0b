package agent

import (
	"context"
	"fmt"
	"strings"

	"sync"

	shellquote "github.com/kballard/go-shellquote"

	mcphost "github.com/gemhost/gem/host/mcp"

	"github.com/gemhost/gem/internal/plural"
)

// MCPPrompt is a prompt of an MCP server, run as the slash command /<Command> (as in
// Gemini CLI). Where two servers have a prompt of one name, the later one is
// /<server>.<name>.
type MCPPrompt struct {
	Command string
	Server  string
	mcphost.Prompt
}

// mcpPrompts is a conversation's list of its servers' prompts, kept once made whole.
type mcpPrompts struct {
	mu   sync.Mutex
	done bool
	list []MCPPrompt
}

// MCPPrompts lists the prompts of the conversation's MCP servers (starting them); listed
// once. A server that cannot list its prompts is a warning (Config.Warn). A listing cut
// short by its caller's context (a cancelled prompt) is not kept: the next caller lists
// again, so one cancelled turn does not leave the session without its servers' prompts.
func (c *Conversation) MCPPrompts(ctx context.Context) []MCPPrompt {
	c.prompts.mu.Lock()
	defer c.prompts.mu.Unlock()
	if c.prompts.done {
		return c.prompts.list
	}
	list := []MCPPrompt{}
	seen := map[string]bool{}
	for _, srv := range c.Catalog.Servers() {
		mc, err := c.Catalog.MCPServerByName(srv.Name)
		if err != nil {
			continue
		}
		ps, err := mc.Prompts(ctx)
		if err != nil {
			if c.cfg.Warn != nil {
				c.cfg.Warn(fmt.Errorf("listing the prompts of MCP server %s: %w", srv.Name, err))
			}
			continue
		}
		for _, p := range ps {
			cmd := p.Name
			if seen[cmd] {
				cmd = srv.Name + "." + p.Name
			}
			seen[cmd] = true
			list = append(list, MCPPrompt{Command: cmd, Server: srv.Name, Prompt: p})
		}
	}
	if ctx.Err() == nil {
		c.prompts.list, c.prompts.done = list, true
	}
	return list
}

// MCPPromptsOf are the listed prompts of one server.
func (c *Conversation) MCPPromptsOf(server string) []MCPPrompt {
	var out []MCPPrompt
	for _, p := range c.MCPPrompts(context.Background()) {
		if p.Server == server {
			out = append(out, p)
		}
	}
	return out
}

// MCPPromptFor finds the MCP prompt input ("/name args") runs, and its arguments; nil when
// it names none (a conversation without MCP servers starts nothing to tell).
func (c *Conversation) MCPPromptFor(ctx context.Context, input string) (*MCPPrompt, string) {
	if !strings.HasPrefix(input, "/") || len(c.Catalog.Servers()) == 0 {
		return nil, ""
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	for _, p := range c.MCPPrompts(ctx) {
		if p.Command == name {
			return &p, args
		}
	}
	return nil, ""
}

// fill gets the prompt's text from its server, its arguments given as name=value (or
// --name=value) words, or in the declared order.
func (p *MCPPrompt) fill(ctx context.Context, c *Conversation, args string) (string, error) {
	words, err := shellquote.Split(args)
	if err != nil {
		return "", fmt.Errorf("/%s: %w (close the quote)", p.Command, err)
	}
	values := map[string]string{}
	next := 0
	for _, w := range words {
		if k, v, ok := strings.Cut(strings.TrimPrefix(w, "--"), "="); ok && p.hasArgument(k) {
			values[k] = v
			continue
		}
		if next >= len(p.Arguments) {
			return "", fmt.Errorf("/%s takes %s, %s; %q is one too many", p.Command, plural.Count(len(p.Arguments), "argument"), p.argumentNames(), w)
		}
		values[p.Arguments[next].Name] = w
		next++
	}
	for _, arg := range p.Arguments {
		if _, ok := values[arg.Name]; arg.Required && !ok {
			return "", fmt.Errorf("/%s needs %s: /%s %s=<value>", p.Command, arg.Name, p.Command, arg.Name)
		}
	}
	mc, err := c.Catalog.MCPServerByName(p.Server)
	if err != nil {
		return "", err
	}
	return mc.GetPrompt(ctx, p.Name, values)
}

func (p *MCPPrompt) hasArgument(name string) bool {
	for _, a := range p.Arguments {
		if a.Name == name {
			return true
		}
	}
	return false
}

func (p *MCPPrompt) argumentNames() string {
	var names []string
	for _, a := range p.Arguments {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}
