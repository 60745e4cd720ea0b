package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/internal/termsafe"
)

// authorize asks the policy engine about a call, asks the user when it says ask_user (the
// call's own host first: an MCP client of gem mcp serve; else the session's services), logs
// the decision, and returns ErrDenied when the call must not run.
func (r *Catalog) authorize(ctx context.Context, t *Tool, args json.RawMessage, opts CallOptions) error {
	if r.policy == nil {
		return nil
	}
	c := policy.Call{Tool: t.Name, Extension: t.Extension, Kind: r.policyKind(t), Args: args}
	if t.Server != "" {
		server := mcphost.SanitizeName(t.Server)
		if tool, ok := strings.CutPrefix(t.Name, "mcp_"+server+"_"); ok {
			c.MCPServer, c.MCPTool = server, tool
		}
	}
	v := r.policy.Decide(c)
	if opts.Confirm != "" && v.Decision == policy.Allow {
		v.Decision = policy.AskUser // a hook asks that the user confirm
	}
	entry := policy.Entry{Extension: t.Extension, Tool: t.Name, ArgsDigest: policy.Digest(args), Decision: v.Decision, Rule: v.Rule.String(), Mode: r.policy.CurrentMode(), Outcome: "ran"}
	defer func() {
		if err := r.audit.Log(entry); err != nil {
			r.logger.Warn("writing the audit log", "error", err)
		}
		telemetry.SetIn(ctx, telemetry.KindToolCall, telemetry.Attr{Key: telemetry.Decision, Value: telemetryDecision(entry)})
	}()
	switch v.Decision {
	case policy.Deny:
		entry.Outcome = "refused"
		return &DeniedError{Tool: t.Name, Rule: v.Rule.String()}
	case policy.AskUser:
		question := describeCall(t, args)
		if opts.Confirm != "" {
			question = "A hook asks you to confirm this (" + termsafe.Show(opts.Confirm, "") + ").\n" + question
		}
		svc := r.services
		if opts.Prompt != nil {
			svc = &Services{Prompt: opts.Prompt}
		}
		asked := AskedCall{Tool: t.Name, Extension: t.Extension, Args: args, Question: question}
		answer, err := svc.ask(context.WithValue(ctx, askedKey{}, asked), question, c.MCPServer, map[string]any{"tool_name": t.Name, "tool_input": args, "extension": t.Extension})
		entry.Answer = string(answer)
		if _, later := errors.AsType[*DeferredError](err); later {
			entry.Outcome = "deferred"
			return err
		}
		if err != nil {
			entry.Outcome = "refused"
			return fmt.Errorf("asking about %s: %w", t.Name, err)
		}
		switch answer {
		case policy.AnswerAlways, policy.AnswerSave:
			if err := r.policy.Remember(c, answer == policy.AnswerSave); err != nil {
				r.logger.Warn("remembering an answer", "error", err)
			}
		case policy.AnswerAlwaysServer:
			r.policy.RememberServer(c.MCPServer)
		case policy.AnswerYes:
		default:
			entry.Outcome = "refused"
			return &DeniedError{Tool: t.Name}
		}
	}
	return nil
}

// telemetryDecision is a call's decision as telemetry names it: auto (the rules allowed it),
// approved (the user was asked and said yes), denied (refused by the rules or the user),
// deferred (asked later).
func telemetryDecision(e policy.Entry) string {
	switch {
	case e.Outcome == "refused":
		return "denied"
	case e.Outcome == "deferred":
		return "deferred"
	case e.Decision == policy.AskUser:
		return "approved"
	}
	return "auto"
}

// policyKind is the kind the policy decides a call of t by. An MCP tool's kind comes from
// annotations its server chose, which can only make it stricter: unless the user's own
// settings trust the server, it counts as execute (asked in default mode, denied in plan).
func (r *Catalog) policyKind(t *Tool) string {
	if t.Server != "" && !r.trusted[t.Server] {
		if k := t.Kind(); k == KindDelete || k == KindMove || k == KindEdit {
			return string(k)
		}
		return string(KindExecute)
	}
	return string(t.Kind())
}

// AuthorizeShell decides a shell command a prompt command wants to run (!{…}) as Gemini
// CLI does: as a run_shell_command call of kind execute, under the same rules and questions.
func (r *Catalog) AuthorizeShell(ctx context.Context, extension, command string, opts CallOptions) error {
	t := &Tool{Name: "run_shell_command", Declared: "run_shell_command", Extension: extension, Spec: Spec{Kind: KindExecute}}
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return err
	}
	return r.authorize(ctx, t, args, opts)
}

// describeCall is the question put to the user about a call: the whole command (or
// arguments), escaped and wrapped by policy.Show, never cut.
func describeCall(t *Tool, args json.RawMessage) string {
	what := string(args)
	var a struct {
		Command *string `json:"command"`
	}
	always := ""
	if json.Unmarshal(args, &a) == nil && a.Command != nil {
		what = "$ " + *a.Command
		if an := policy.AnalyzeCommand(*a.Command); len(an.Commands) > 0 && len(an.Commands[0]) > 0 {
			always = fmt.Sprintf(" (\"always\" covers every %s command)", termsafe.Show(an.Commands[0][0], "")) // as policy.Remember saves it
		}
	}
	if diff, ok := t.previewEdit(args); ok {
		// a file edit: the change itself, as a unified diff
		return fmt.Sprintf("%s (%s, from %s) wants to change a file:\n%s\nAllow it?", t.Name, t.Kind(), t.Extension, termsafe.Show(diff, "  "))
	}
	return fmt.Sprintf("%s (%s, from %s) wants to run:\n%s\nAllow it%s?", t.Name, t.Kind(), t.Extension, termsafe.Show(what, "  "), always)
}
