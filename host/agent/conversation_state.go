package agent

import (
	"context"
	"encoding/json"

	"google.golang.org/genai"
)

// What callers read and change of a conversation goes through these methods, so the
// agent's and the session's fields stay the conversation's to keep in step (a model switch
// recorded with the session, a restored history's token count reset).

// ID is the session's id.
func (c *Conversation) ID() string { return c.Session.ID }

// Model is the model of the next request.
func (c *Conversation) Model() string { return c.Agent.Model }

// SetModel switches the model from the next request on, and records it with the session.
func (c *Conversation) SetModel(model string) { c.Agent.Model, c.Session.Model = model, model }

// SetEvents sets what hears the next turns' events.
func (c *Conversation) SetEvents(ev Events) { c.Agent.Events = ev }

// OnCompressed sets what hears the history being compressed, unless something already does.
func (c *Conversation) OnCompressed(fn func(trigger string, before, after int)) {
	if c.Agent.Events.Compressed == nil {
		c.Agent.Events.Compressed = fn
	}
}

// Skills are the skills the model or the user may activate.
func (c *Conversation) Skills() []Skill { return c.Agent.Skills }

// Subagents are the subagents the model may hand tasks to.
func (c *Conversation) Subagents() []*Subagent { return c.Agent.Subagents }

// ActivateSkill makes the skill named name active (Agent.ActivateSkill).
func (c *Conversation) ActivateSkill(name string) (Skill, bool) {
	return c.Agent.ActivateSkill(c.Session, name)
}

// Compress summarizes the history now (trigger "manual"): its length before and after.
func (c *Conversation) Compress(ctx context.Context) (before, after int, err error) {
	before = len(c.Session.History)
	err = c.Agent.Compress(ctx, c.Session, "manual")
	return before, len(c.Session.History), err
}

// Call runs one tool call in the conversation, outside a turn (Agent.Call).
func (c *Conversation) Call(ctx context.Context, name string, args json.RawMessage) (*genai.FunctionResponse, error) {
	return c.Agent.Call(ctx, c.Session, name, args)
}

// Attach adds images to the next prompt (Session.Attach).
func (c *Conversation) Attach(images ...Image) error { return c.Session.Attach(images...) }

// Pending is the last turn when it waits for approvals, else nil.
func (c *Conversation) Pending() *PendingTurn { return c.Session.Pending }

// SavedApprovalMode is the policy's mode when the session was last saved.
func (c *Conversation) SavedApprovalMode() string { return c.Session.ApprovalMode }

// Messages is the length of the history.
func (c *Conversation) Messages() int { return len(c.Session.History) }

// RestoreHistory replaces the history (a saved chat resumed); the next request's size is
// counted anew.
func (c *Conversation) RestoreHistory(history []*genai.Content) {
	c.Session.History, c.Session.LastPromptTokens = history, 0
}

// Usage is the conversation's token counts, and the size of its last request.
func (c *Conversation) Usage() (total Usage, lastPrompt int) {
	return c.Session.Usage, c.Session.LastPromptTokens
}

// TokenLimit is the model's input limit the history is compressed against.
func (c *Conversation) TokenLimit() int {
	if c.Agent.TokenLimit > 0 {
		return c.Agent.TokenLimit
	}
	return TokenLimitOf(c.Agent.model())
}
