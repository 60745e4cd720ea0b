package agent

import (
	"testing"

	"google.golang.org/genai"
)

// TestConversationKeepsAgentAndSessionInStep: what callers change through the
// conversation's methods lands in both the agent and the session (a model switch is saved
// with the session; a restored history's size is counted anew), and what they read is the
// one answer (the token limit the history is compressed against).
func TestConversationKeepsAgentAndSessionInStep(t *testing.T) {
	c := &Conversation{Agent: &Agent{Model: "gemini-2.5-pro"}, Session: &Session{ID: "s1", Model: "gemini-2.5-pro", LastPromptTokens: 900}}
	c.SetModel("gemini-1.5-pro-002")
	if c.Model() != "gemini-1.5-pro-002" || c.Session.Model != "gemini-1.5-pro-002" {
		t.Errorf("SetModel: agent %q, session %q", c.Agent.Model, c.Session.Model)
	}
	if got := c.TokenLimit(); got != 2_097_152 {
		t.Errorf("TokenLimit of gemini-1.5-pro: %d, want 2097152", got)
	}
	c.Agent.TokenLimit = 1000
	if got := c.TokenLimit(); got != 1000 {
		t.Errorf("TokenLimit set on the agent: %d, want 1000", got)
	}
	c.RestoreHistory([]*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)})
	if _, last := c.Usage(); last != 0 || c.Messages() != 1 {
		t.Errorf("RestoreHistory: %d messages, last prompt %d tokens; want 1 and 0", c.Messages(), last)
	}
	var heard []string
	c.OnCompressed(func(trigger string, _, _ int) { heard = append(heard, "first:"+trigger) })
	c.OnCompressed(func(trigger string, _, _ int) { heard = append(heard, "second:"+trigger) })
	c.Agent.Events.Compressed("auto", 2, 1)
	if len(heard) != 1 || heard[0] != "first:auto" {
		t.Errorf("OnCompressed replaced a listener already set: %v", heard)
	}
}
