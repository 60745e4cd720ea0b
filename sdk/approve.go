package sdk

import (
	"context"

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
)

// ApprovalRequest is a call the policy asks about: Question is what gem's terminal question
// shows (the tool, its arguments, a hook's reason when one asks).
type ApprovalRequest struct {
	Question string
}

// approver is Options.Approve as gem's Prompter: a policy question is a choice of yes once,
// always this session, save always, or no; a plain confirmation is yes or no. The model's
// own questions (ask_user) have no one to answer them.
type approver struct {
	approve func(context.Context, ApprovalRequest) (Decision, error)
}

func (a approver) Confirm(ctx context.Context, q prompt.Question) (bool, error) {
	d, err := a.approve(ctx, ApprovalRequest{Question: q.Text})
	return err == nil && d != Deny, err
}

func (a approver) Choose(ctx context.Context, question string, choices []prompt.Choice, def int) (int, error) {
	d, err := a.approve(ctx, ApprovalRequest{Question: question})
	if err != nil {
		return len(choices) - 1, err
	}
	switch {
	case d == ApproveOnce:
		return 0, nil
	case d == ApproveAlways && len(choices) > 2:
		return 1, nil // "always this session" (never "save": a program saves no policy)
	case d == ApproveAlways:
		return 0, nil
	}
	return len(choices) - 1, nil
}

func (approver) Input(context.Context, string) (string, error) {
	return "", &prompt.NotAskedError{Reason: "the program embedding the agent answers approvals only"}
}

func (approver) CanPrompt() bool { return false }
