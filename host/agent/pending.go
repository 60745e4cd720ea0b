package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/prompt"
)

// PendingTurn is a turn that waits for approvals: the responses of the last model
// response's calls (nil for those waiting) and the calls waiting.
type PendingTurn struct {
	Responses []*genai.Part `json:"responses"`
	Calls     []PendingCall `json:"calls"`
}

// PendingCall is a call waiting for approval, ID its key (callKey). Asked: the policy asked about it (Question);
// else it came after one that was asked, and will be decided when it runs.
type PendingCall struct {
	Index     int             `json:"index"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Extension string          `json:"extension,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	Question  string          `json:"question,omitempty"`
	Asked     bool            `json:"asked,omitempty"`
	// Subagent is the conversation of the subagent this call runs, when calls of its wait
	// (its own Pending; their keys are this call's ID, "/", theirs): deciding them goes
	// on with it where it stopped.
	Subagent *Session `json:"subagent,omitempty"`
	// Via names the subagent that made the call (Waiting's, for a subagent's own calls).
	Via string `json:"-"`
}

// Waiting are the calls that wait for a decision, a subagent's own in its call's place,
// each with its key for ResumeTurn's promptFor.
func (p *PendingTurn) Waiting() []PendingCall {
	if p == nil {
		return nil
	}
	var out []PendingCall
	for _, c := range p.Calls {
		if c.Subagent == nil || c.Subagent.Pending == nil {
			out = append(out, c)
			continue
		}
		for _, inner := range c.Subagent.Pending.Waiting() {
			inner.ID, inner.Via = c.ID+"/"+inner.ID, c.Name
			out = append(out, inner)
		}
	}
	return out
}

// PendingError ends a turn whose calls wait for approval (Session.Pending keeps them;
// ResumeTurn goes on).
type PendingError struct{ Calls []PendingCall }

func (e *PendingError) Error() string {
	var names []string
	for _, c := range e.Calls {
		names = append(names, c.Name)
	}
	return fmt.Sprintf("%s waiting for approval: %s", plural.Count(len(e.Calls), "tool call"), strings.Join(names, ", "))
}

// ErrPendingApprovals: a prompt sent while the session's last turn waits for approvals.
var ErrPendingApprovals = errors.New("the session's last turn waits for approvals: decide them first")

// ResumeTurn goes on with a turn that waits for approvals: the waiting calls run (each
// policy question answered by promptFor(call id)), then the loop goes on as Turn's does and
// the AfterAgent hooks run on its answer.
func (a *Agent) ResumeTurn(ctx context.Context, s *Session, promptFor func(key string) prompt.Prompter) (string, Stats, error) {
	var st Stats
	p := s.Pending
	if p == nil {
		return "", st, errors.New("the session has no turn waiting for approvals")
	}
	calls := pendingCalls(s)
	if len(calls) != len(p.Responses) {
		s.Pending = nil
		return "", st, errors.New("the session's waiting turn does not match its history: send a new prompt")
	}
	text, err := a.resume(ctx, s, calls, promptFor, &st)
	if _, pending := errors.AsType[*PendingError](err); pending {
		return text, st, err
	}
	after := a.Hooks.Run(ctx, "AfterAgent", hookInput(s, "prompt", "", "prompt_response", text, "stop_hook_active", false))
	if after.ClearContext {
		s.History, s.LastPromptTokens = nil, 0
	}
	if err == nil && after.Stopped {
		err = &StoppedError{Reason: after.Reason}
	}
	return text, st, err
}

// resume runs the calls of the last response that wait (s.Pending) and goes on with the loop.
func (a *Agent) resume(ctx context.Context, s *Session, calls []*genai.FunctionCall, promptFor func(key string) prompt.Prompter, st *Stats) (string, error) {
	if err := a.runCalls(ctx, s, calls, slices.Clone(s.Pending.Responses), promptFor, st); err != nil {
		return "", err
	}
	config := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false), Temperature: a.temperature}
	return a.loop(ctx, s, config, st)
}
