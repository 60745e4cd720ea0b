package sdk

import (
	"context"
	"time"

	"github.com/gemhost/gem/host/agent"
)

// SessionInfo is a saved session, as ListSessions finds it.
type SessionInfo struct {
	ID      string
	Title   string // its first prompt, cut short
	Model   string
	Created time.Time
	Updated time.Time
}

// ListSessions are the saved sessions of the agent's workspace (gem's, the SDK's, gem -p's
// and the shell's alike), newest first.
func (a *Agent) ListSessions() ([]SessionInfo, error) {
	all, err := agent.Sessions{Dir: a.env.SessionsDir()}.List()
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, s := range all {
		info := SessionInfo{ID: s.ID, Model: s.Model, Created: s.Created, Updated: s.Updated}
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

// Command is a slash command a user may type (a prompt command of the user's, the
// project's or an extension's commands/*.toml).
type Command struct {
	Name        string // without the slash
	Description string
	Source      string // user, project or extension
	Extension   string // the extension that brings it, for Source extension
}

// Commands are the slash commands Expand knows.
func (s *Session) Commands() []Command {
	var out []Command
	for _, c := range s.conv.Commands {
		out = append(out, Command{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension})
	}
	return out
}

// Expand turns what a user typed into the prompt to send, as gem -p does: "/name args" of a
// prompt command becomes its expansion (its !{…} run sandboxed, under the policy), and
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
