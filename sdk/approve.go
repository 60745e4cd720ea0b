package sdk

import (
	"context"
	"encoding/json"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/prompt"
)

// ErrDenied is a tool call the policy or the program's Approve refused
// (errors.Is(ToolCall.Err, ErrDenied)).
var ErrDenied = tools.ErrDenied

// Decision is an answer to an approval request.
type Decision int

const (
	// Deny refuses the call: the model is told.
	Deny Decision = iota
	// ApproveOnce runs this call.
	ApproveOnce
	// ApproveAlways runs this call and every later one the same rule would ask about, for
	// the rest of the agent's life (the terminal's "always this session").
	ApproveAlways
	// ApproveAndSave is ApproveAlways, and the rule is saved in the user's policy file
	// (~/.gem/policies.toml): later sessions and gem -p do not ask either (the terminal's
	// "save always"). A question that offers no saving takes it as ApproveAlways.
	ApproveAndSave
)

// ApprovalRequest is a call the policy asks about.
type ApprovalRequest struct {
	Tool      string
	Extension string          // whose tool it is: an extension's name, "gem", "sdk"
	Args      json.RawMessage // the call's arguments
	// Question is what gem's terminal question shows: the call (a shell command whole),
	// an edit's diff, a hook's reason when a hook asks.
	Question string
}

// PendingApproval is a call that waits for a decision (Result.Pending): Session.Approve
// decides it by CallID. Asked is false for a call that came after an asked one in the same
// response: it runs (and is decided by the policy then) once those before it are decided.
type PendingApproval struct {
	CallID string
	ApprovalRequest
	Asked bool
	// Subagent names the subagent whose call it is ("": the session's own). Deciding it
	// goes on with the subagent where it stopped, then with the turn.
	Subagent string
}

// approver is Options.Approve as gem's Prompter: a policy question is a choice of yes once,
// always this session, save always, or no; a plain confirmation is yes or no. The model's
// own questions (ask_user) have no one to answer them.
type approver struct {
	approve func(context.Context, ApprovalRequest) (Decision, error)
}

func requestOf(ctx context.Context, question string) ApprovalRequest {
	req := ApprovalRequest{Question: question}
	if c, ok := tools.AskedCallOf(ctx); ok {
		req.Tool, req.Extension, req.Args = c.Tool, c.Extension, c.Args
	}
	return req
}

func (a approver) Confirm(ctx context.Context, q prompt.Question) (bool, error) {
	d, err := a.approve(ctx, requestOf(ctx, q.Text))
	return err == nil && d != Deny, err
}

func (a approver) Choose(ctx context.Context, question string, choices []prompt.Choice, def int) (int, error) {
	d, err := a.approve(ctx, requestOf(ctx, question))
	if err != nil {
		return len(choices) - 1, err
	}
	switch {
	case d == ApproveOnce:
		return 0, nil
	case d == ApproveAndSave && len(choices) > 3:
		return 2, nil // "save always"
	case (d == ApproveAlways || d == ApproveAndSave) && len(choices) > 2:
		return 1, nil // "always this session"
	case d == ApproveAlways || d == ApproveAndSave:
		return 0, nil
	}
	return len(choices) - 1, nil
}

func (approver) Input(context.Context, string) (string, error) {
	return "", &prompt.NotAskedError{Reason: "the program embedding the agent answers approvals only"}
}

func (approver) CanPrompt() bool { return false }

// deferrer is the Prompter without Options.Approve: a tool call's policy question is
// deferred (the turn ends with it pending); any other question is refused.
type deferrer struct{}

func (deferrer) Confirm(context.Context, prompt.Question) (bool, error) {
	return false, &prompt.NotAskedError{Reason: "no one to approve it (Options.Approve)"}
}

func (deferrer) Choose(ctx context.Context, question string, choices []prompt.Choice, def int) (int, error) {
	if c, ok := tools.AskedCallOf(ctx); ok {
		return len(choices) - 1, &tools.DeferredError{Call: c}
	}
	return len(choices) - 1, &prompt.NotAskedError{Reason: "no one to approve it (Options.Approve)"}
}

func (deferrer) Input(context.Context, string) (string, error) {
	return "", &prompt.NotAskedError{Reason: "no one to answer (Options.Approve)"}
}

func (deferrer) CanPrompt() bool { return false }

// decided answers the policy question of one pending call with the program's decision.
func decided(d Decision) prompt.Prompter {
	return approver{func(context.Context, ApprovalRequest) (Decision, error) { return d, nil }}
}
