package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/internal/limits"
)

// Prompt is one of a server's prompts (templates the user runs as slash commands).
type Prompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompts lists the server's prompts (all pages); none when it has no prompts capability.
func (s *Client) Prompts(ctx context.Context) ([]Prompt, error) {
	session, err := s.started(ctx)
	if err != nil {
		return nil, err
	}
	var out []Prompt
	if caps := session.InitializeResult().Capabilities; caps == nil || caps.Prompts == nil {
		return out, nil
	}
	for p, err := range session.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: listing prompts: %w", s.Name, err)
		}
		pr := Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, pr)
	}
	return out, nil
}

// GetPrompt fills in a prompt with args and returns its messages' text, joined.
func (s *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	session, err := s.started(ctx)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(ctx, s.Timeout())
	defer cancel()
	res, err := session.GetPrompt(cctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("mcp server %s: prompt %s: %w", s.Name, name, err)
	}
	var parts []string
	size := 0
	for _, m := range res.Messages {
		if size > limits.Message {
			return "", fmt.Errorf("mcp server %s: prompt %s is over %d MiB: ask its author to shorten it", s.Name, name, limits.Message>>20)
		}
		switch c := m.Content.(type) {
		case *sdk.TextContent:
			parts, size = append(parts, c.Text), size+len(c.Text)
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts, size = append(parts, c.Resource.Text), size+len(c.Resource.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n"), nil
}
