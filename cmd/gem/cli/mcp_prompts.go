package cli

import (
	"context"
	"fmt"
	"strings"

	shellquote "github.com/kballard/go-shellquote"

	mcphost "github.com/gemhost/gem/host/mcp"
)

// mcpPrompt is a prompt of an MCP server, run as the slash command /<name> (as in Gemini
// CLI). Where two servers have a prompt of one name, the later one is /<server>.<name>.
type mcpPrompt struct {
	Command string
	Server  string
	mcphost.Prompt
}

// mcpPrompts lists the prompts of the session's MCP servers (starting them); listed once.
func (a *agentSession) mcpPrompts(ctx context.Context) []mcpPrompt {
	if a.prompts != nil {
		return *a.prompts
	}
	list := []mcpPrompt{}
	seen := map[string]bool{}
	for _, srv := range a.conv.Catalog.Servers() {
		c, err := a.conv.Catalog.MCPServerByName(srv.Name)
		if err != nil {
			continue
		}
		ps, err := c.Prompts(ctx)
		if err != nil {
			a.s.log.Warn("listing prompts", "server", srv.Name, "error", err)
			continue
		}
		for _, p := range ps {
			cmd := p.Name
			if seen[cmd] {
				cmd = srv.Name + "." + p.Name
			}
			seen[cmd] = true
			list = append(list, mcpPrompt{Command: cmd, Server: srv.Name, Prompt: p})
		}
	}
	a.prompts = &list
	return list
}

// promptsOf are the listed prompts of one server.
func (a *agentSession) promptsOf(server string) []mcpPrompt {
	var out []mcpPrompt
	for _, p := range a.mcpPrompts(context.Background()) {
		if p.Server == server {
			out = append(out, p)
		}
	}
	return out
}

// mcpPromptFor finds the MCP prompt input ("/name args") runs; nil when it names none.
func (a *agentSession) mcpPromptFor(ctx context.Context, input string) (*mcpPrompt, string) {
	if !strings.HasPrefix(input, "/") || len(a.conv.Catalog.Servers()) == 0 {
		return nil, ""
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	for _, p := range a.mcpPrompts(ctx) {
		if p.Command == name {
			return &p, args
		}
	}
	return nil, ""
}

// fill gets the prompt's text from its server, its arguments given as name=value (or
// --name=value) words, or in the declared order.
func (p *mcpPrompt) fill(ctx context.Context, a *agentSession, args string) (string, error) {
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
			return "", fmt.Errorf("/%s takes %d argument(s) (%s); %q is one too many", p.Command, len(p.Arguments), p.argumentNames(), w)
		}
		values[p.Arguments[next].Name] = w
		next++
	}
	for _, arg := range p.Arguments {
		if _, ok := values[arg.Name]; arg.Required && !ok {
			return "", fmt.Errorf("/%s needs %s: /%s %s=<value>", p.Command, arg.Name, p.Command, arg.Name)
		}
	}
	c, err := a.conv.Catalog.MCPServerByName(p.Server)
	if err != nil {
		return "", err
	}
	return c.GetPrompt(ctx, p.Name, values)
}

func (p *mcpPrompt) hasArgument(name string) bool {
	for _, a := range p.Arguments {
		if a.Name == name {
			return true
		}
	}
	return false
}

func (p *mcpPrompt) argumentNames() string {
	var names []string
	for _, a := range p.Arguments {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}
