package acp

import (
	"context"
	"errors"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	shellquote "github.com/kballard/go-shellquote"

	"github.com/gemhost/gem/sdk"
)

// commandLine is the command a prompt names, with its arguments split as gem shell splits
// them: "/memory add \"a fact\"".
func commandLine(typed string) (name string, args []string, ok bool) {
	if !strings.HasPrefix(typed, "/") {
		return "", nil, false
	}
	words, err := shellquote.Split(strings.TrimPrefix(typed, "/"))
	if err != nil || len(words) == 0 {
		return "", nil, false
	}
	return words[0], words[1:], true
}

// runCommand runs a built-in command (sdk.Session.RunCommand) for a prompt: what it shows,
// or its error, is the agent's message, and the turn ends (the model is not asked). False
// when name is no built-in command (a prompt command, an MCP prompt, a skill: Expand's).
func (s *server) runCommand(ctx context.Context, ss *session, name string, args []string) (acp.PromptResponse, bool) {
	out, err := ss.sess.RunCommand(ctx, name, args)
	if _, unknown := errors.AsType[*sdk.UnknownCommandError](err); unknown {
		return acp.PromptResponse{}, false
	}
	if err != nil {
		out += err.Error() + "\n"
	}
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, true
	}
	s.update(context.Background(), ss, acp.UpdateAgentMessageText(out))
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, true
}
