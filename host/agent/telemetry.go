package agent

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/host/tools"
)

// The agent's spans (host/telemetry: off, each of these returns at once). What they carry is
// names, counts and outcomes: never the arguments, results or the prompt's text (which
// host/telemetry lets through only with telemetry.logPrompts).

// startTurn begins the span of a turn of s.
func (a *Agent) startTurn(ctx context.Context, s *Session, prompt string) (context.Context, *telemetry.Span) {
	if !telemetry.On() {
		return ctx, nil
	}
	return telemetry.Start(ctx, telemetry.KindTurn, telemetry.Attr{Key: telemetry.Operation, Value: "agent_turn"},
		telemetry.Attr{Key: telemetry.Model, Value: a.model()}, telemetry.Attr{Key: telemetry.Conversation, Value: s.ID},
		telemetry.Attr{Key: telemetry.PromptLength, Value: len(prompt)}, telemetry.Attr{Key: telemetry.Prompt, Value: prompt})
}

// endTurn ends a turn's span with what it did.
func endTurn(span *telemetry.Span, st Stats, err error) {
	if span == nil {
		return
	}
	span.End(telemetry.Attr{Key: telemetry.Outcome, Value: outcome(err)}, telemetry.Attr{Key: telemetry.ErrorType, Value: errorType(err)},
		telemetry.Attr{Key: telemetry.Requests, Value: st.Requests}, telemetry.Attr{Key: telemetry.ToolCalls, Value: st.ToolCalls},
		telemetry.Attr{Key: telemetry.InputTokens, Value: st.Tokens.Prompt}, telemetry.Attr{Key: telemetry.OutputTokens, Value: st.Tokens.Output},
		telemetry.Attr{Key: telemetry.CachedTokens, Value: st.Tokens.Cached}, telemetry.Attr{Key: telemetry.ThoughtToks, Value: st.Tokens.Thoughts})
}

// startRequest begins the span of one request to model.
func startRequest(ctx context.Context, model string) *telemetry.Span {
	if !telemetry.On() {
		return nil
	}
	_, span := telemetry.Start(ctx, telemetry.KindAPIRequest, telemetry.Attr{Key: telemetry.Operation, Value: "generate_content"}, telemetry.Attr{Key: telemetry.Model, Value: model})
	return span
}

// endRequest ends a request's span with its usage and status.
func endRequest(span *telemetry.Span, u *genai.GenerateContentResponseUsageMetadata, err error) {
	if span == nil {
		return
	}
	status := "ok"
	if err != nil {
		status = errorType(err)
	}
	var usage Usage
	usage.add(u)
	span.End(telemetry.Attr{Key: telemetry.Status, Value: status}, telemetry.Attr{Key: telemetry.InputTokens, Value: usage.Prompt},
		telemetry.Attr{Key: telemetry.OutputTokens, Value: usage.Output}, telemetry.Attr{Key: telemetry.CachedTokens, Value: usage.Cached},
		telemetry.Attr{Key: telemetry.ThoughtToks, Value: usage.Thoughts}, telemetry.Attr{Key: telemetry.ToolTokens, Value: usage.Tool})
}

// startToolCall begins the span of a call of name in s: the tool's name only when it is
// one this session offers (a name the model made up could carry anything), its extension and
// server, and the decision "auto" until the catalog's policy says otherwise.
func (a *Agent) startToolCall(ctx context.Context, s *Session, name string) (context.Context, *telemetry.Span) {
	if !telemetry.On() {
		return ctx, nil
	}
	known, kind, ext, server := false, "native", "gem", ""
	for _, d := range a.declarations(s) {
		known = known || d.Name == name
	}
	if t, ok := a.Tools.Lookup(name); ok {
		known, ext, server = true, t.Extension, t.Server
		switch {
		case t.Server != "":
			kind = "mcp"
		case t.Plugin != "":
			kind = "plugin"
		}
	}
	if _, owner, ok := a.skillToolFunc(s, name); ok {
		known, kind, ext = true, "skill", owner
	}
	if !known {
		name, ext = "unknown", ""
	}
	return telemetry.Start(ctx, telemetry.KindToolCall, telemetry.Attr{Key: telemetry.Operation, Value: "tool_call"},
		telemetry.Attr{Key: telemetry.ToolName, Value: name}, telemetry.Attr{Key: telemetry.ToolType, Value: kind},
		telemetry.Attr{Key: telemetry.Extension, Value: ext}, telemetry.Attr{Key: telemetry.MCPServer, Value: server},
		telemetry.Attr{Key: telemetry.Decision, Value: "auto"})
}

// endToolCall ends a call's span with its success (a deferred call has not run yet).
func endToolCall(span *telemetry.Span, ok, deferred bool) {
	if span == nil {
		return
	}
	if deferred {
		span.End(telemetry.Attr{Key: telemetry.Decision, Value: "deferred"})
		return
	}
	span.End(telemetry.Attr{Key: telemetry.Success, Value: ok})
}

// toolErrorTypes are the error types a tool's own error is exported as (pluginsdk's); any
// other is "other": a plugin or SDK tool chooses its type freely, and a string of its choosing
// (a file it read, from a program kept off the network) must not reach the collector.
var toolErrorTypes = []tools.ErrorType{tools.ErrorInvalidArguments, tools.ErrorNotFound, tools.ErrorPermissionDenied,
	tools.ErrorTimeout, tools.ErrorCancelled, tools.ErrorExecution, tools.ErrorInternal}

// toolErrorType is a failed call's category: the tool's own error type (one of
// toolErrorTypes, else "other"), else errorType.
func toolErrorType(res *tools.Result, err error) string {
	if err == nil && res != nil && res.Error != nil {
		if slices.Contains(toolErrorTypes, res.Error.Type) {
			return string(res.Error.Type)
		}
		return "other"
	}
	return errorType(err)
}

// outcome names how a turn ended.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	case errors.Is(err, ErrStepLimit):
		return "step_limit"
	}
	if _, ok := errors.AsType[*PendingError](err); ok {
		return "pending"
	}
	if _, ok := errors.AsType[*StoppedError](err); ok {
		return "stopped"
	}
	return "error"
}

// errorType is an error's category, never its message: the API's HTTP status, a denial, a
// cancellation, else "error".
func errorType(err error) string {
	if err == nil {
		return ""
	}
	if api, ok := errors.AsType[genai.APIError](err); ok {
		return strconv.Itoa(api.Code)
	}
	if api, ok := errors.AsType[*genai.APIError](err); ok {
		return strconv.Itoa(api.Code)
	}
	if _, ok := errors.AsType[*tools.DeniedError](err); ok {
		return "denied"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "cancelled"
	}
	return "error"
}
