package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/host/tools/genaiconv"
	"github.com/gemhost/gem/internal/prompt"
)

// ErrStepLimit ends a turn whose model kept calling tools.
var ErrStepLimit = errors.New("the model was still calling tools at the step limit")

// StoppedError is a turn a hook ended ("continue": false), with its stop reason.
type StoppedError struct{ Reason string }

func (e *StoppedError) Error() string { return "a hook ended the turn: " + e.Reason }

// EndTurnError is a tool's failure that ends the turn (a program's tool failing otherwise
// than for the model to see: sdk.NewTool's function returning an error that is not a
// ModelError). The model still gets the failure as the call's response, kept in the history.
type EndTurnError struct {
	Tool string
	Err  error
}

func (e *EndTurnError) Error() string { return "the tool " + e.Tool + " failed: " + e.Err.Error() }
func (e *EndTurnError) Unwrap() error { return e.Err }

// hookInput is the payload fields every hook of session s gets.
func hookInput(s *Session, kv ...any) map[string]any {
	m := map[string]any{"session_id": s.ID, "transcript_path": s.path}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Turn sends prompt and runs the loop; it returns the model's final text. The BeforeAgent
// hooks may refuse the prompt (it is not kept), end the turn (it is kept), or add context to
// it; the AfterAgent hooks may refuse the answer (their reason goes to the model as a new
// prompt, at most MaxAgentRetries times), end the turn or clear the history.
func (a *Agent) Turn(ctx context.Context, s *Session, prompt string) (string, Stats, error) {
	ctx, span := a.startTurn(ctx, s, prompt)
	text, st, err := a.hookedTurn(ctx, s, prompt)
	endTurn(span, st, err)
	return text, st, err
}

// hookedTurn is Turn: the BeforeAgent and AfterAgent hooks around the loop.
func (a *Agent) hookedTurn(ctx context.Context, s *Session, prompt string) (string, Stats, error) {
	var st Stats
	if s.Pending != nil {
		return "", st, ErrPendingApprovals
	}
	extra, attached := s.nextContext, s.attached
	s.nextContext, s.attached = nil, nil
	before := a.Hooks.Run(ctx, "BeforeAgent", hookInput(s, "prompt", prompt))
	switch {
	case before.Blocked != nil:
		return "", st, fmt.Errorf("the prompt was blocked: %w", before.Blocked)
	case before.Stopped:
		s.History = append(s.History, genai.NewContentFromText(prompt, genai.RoleUser))
		return "", st, &StoppedError{Reason: before.Reason}
	}
	sent := prompt
	for retry := 0; ; retry++ {
		text, err := a.turn(ctx, s, sent, append(extra, before.Context...), attached, &st)
		attached = nil // a hook's retry is text
		if _, pending := errors.AsType[*PendingError](err); pending {
			return text, st, err // the turn is not over: AfterAgent runs when it is
		}
		after := a.Hooks.Run(ctx, "AfterAgent", hookInput(s, "prompt", prompt, "prompt_response", text, "stop_hook_active", retry > 0))
		if after.ClearContext {
			s.History, s.LastPromptTokens = nil, 0
		}
		switch {
		case err != nil:
			return text, st, err
		case after.Stopped:
			return text, st, &StoppedError{Reason: after.Reason}
		case after.Blocked != nil && retry < MaxAgentRetries:
			sent, extra, before.Context = after.Blocked.Reason, nil, nil
			continue
		}
		return text, st, nil
	}
}

func (a *Agent) turn(ctx context.Context, s *Session, prompt string, extra []string, attached []*genai.Part, st *Stats) (string, error) {
	sent := prompt
	if len(extra) > 0 {
		sent += "\n\n" + strings.Join(extra, "\n")
	}
	content := genai.NewContentFromText(sent, genai.RoleUser)
	content.Parts = append(content.Parts, attached...)
	s.History = append(s.History, content)
	config := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false), Temperature: a.temperature}
	return a.loop(ctx, s, config, st)
}

// loop asks the model and runs its calls until it answers without calls.
func (a *Agent) loop(ctx context.Context, s *Session, config *genai.GenerateContentConfig, st *Stats) (string, error) {
	max := a.MaxSteps
	if max <= 0 {
		max = DefaultMaxSteps
	}
	var final string
	for step := 0; step < max; step++ {
		if a.needsCompression(s) {
			if err := a.Compress(ctx, s, "auto"); err != nil {
				return final, err
			}
		}
		if system := a.systemInstruction(ctx, s); system != "" {
			config.SystemInstruction = genai.NewContentFromText(system, genai.RoleUser)
		}
		// made for each request: a skill activated in the last step brings its tools
		config.Tools = nil
		if decls := a.declarations(s); len(decls) > 0 {
			config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
		}
		content, err := a.request(ctx, s, config, step, st)
		if content != nil && len(content.Parts) > 0 {
			s.History = append(s.History, content)
		}
		if err != nil {
			return final, err
		}
		var calls []*genai.FunctionCall
		var text strings.Builder
		for _, p := range content.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall)
			} else if p.Text != "" && !p.Thought {
				text.WriteString(p.Text)
			}
		}
		final = text.String()
		if len(calls) == 0 {
			return final, nil
		}
		if err := a.runCalls(ctx, s, calls, make([]*genai.Part, len(calls)), nil, st); err != nil {
			return final, err
		}
	}
	return final, fmt.Errorf("%w (%d requests): ask again to let it go on", ErrStepLimit, max)
}

// runCalls runs the calls of one model response whose response in parts is nil, in order,
// and adds the responses to the history. A call the prompter defers (tools.DeferredError)
// and every call after it wait: the session keeps them (Session.Pending), the history is
// left without the responses, and the error is a *PendingError. promptFor, when set, is the
// prompter of each call's policy question (a resumed turn's decisions).
func (a *Agent) runCalls(ctx context.Context, s *Session, calls []*genai.FunctionCall, parts []*genai.Part, promptFor func(id string) prompt.Prompter, st *Stats) error {
	var stop error
	var waiting []PendingCall
	subs := map[int]*Session{} // the subagents' conversations that wait (a resumed turn's)
	if s.Pending != nil {
		for _, c := range s.Pending.Calls {
			if c.Subagent != nil {
				subs[c.Index] = c.Subagent
			}
		}
	}
	for i, call := range calls {
		if parts[i] != nil {
			continue
		}
		if len(waiting) > 0 { // after a deferred call: not run before it is
			args, _ := genaiconv.Args(call)
			waiting = append(waiting, PendingCall{Index: i, ID: callKey(call, i), Name: call.Name, Args: args})
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t0 := time.Now()
		opts := a.CallOptions
		key := callKey(call, i)
		callCtx := ctx
		if promptFor != nil {
			opts.Prompt = promptFor(key)
			if sub := subs[i]; sub != nil {
				callCtx = context.WithValue(ctx, subagentResumeKey{}, &subagentResume{session: sub,
					promptFor: func(inner string) prompt.Prompter { return promptFor(key + "/" + inner) }})
			}
		}
		resp, deferred := a.runCall(callCtx, s, call, st, &stop, opts)
		st.ToolTime += time.Since(t0)
		if deferred != nil {
			deferred.Index, deferred.ID = i, key
			waiting = append(waiting, *deferred)
			continue
		}
		parts[i] = &genai.Part{FunctionResponse: resp}
	}
	if len(waiting) > 0 {
		s.Pending = &PendingTurn{Responses: parts, Calls: waiting}
		return &PendingError{Calls: waiting}
	}
	s.Pending = nil
	s.History = append(s.History, &genai.Content{Role: genai.RoleUser, Parts: genaiconv.MediaSiblings(a.model(), parts)})
	return stop
}

// callKey names the i-th call of a response for its decision: its id, or "#i" when the
// model sent none (the Gemini API may not), so one decision never answers two calls.
func callKey(call *genai.FunctionCall, i int) string {
	if call.ID != "" {
		return call.ID
	}
	return fmt.Sprintf("#%d", i)
}

// Call runs one tool call in session s as a model's call runs (BeforeTool hooks, the
// catalog's validation and policy, the tool, AfterTool hooks) and returns what the model
// would get; it is not added to the history.
func (a *Agent) Call(ctx context.Context, s *Session, name string, args json.RawMessage) (*genai.FunctionResponse, error) {
	var parsed map[string]any
	if err := json.Unmarshal(args, &parsed); err != nil {
		return nil, fmt.Errorf("the arguments of %s: %w", name, err)
	}
	var st Stats
	var stop error
	resp, waits := a.runCall(ctx, s, &genai.FunctionCall{Name: name, Args: parsed}, &st, &stop, a.CallOptions)
	if waits != nil {
		return nil, &tools.DeferredError{Call: tools.AskedCall{Tool: waits.Name, Extension: waits.Extension, Args: waits.Args, Question: waits.Question}}
	}
	return resp, stop
}

// runCall runs one function call: BeforeTool hooks (which may refuse it, rewrite its
// arguments or end the turn: *stop gets the reason), the catalog (validation, policy, tool),
// AfterTool hooks (which may replace or add to the result); every outcome becomes a
// FunctionResponse.
func (a *Agent) runCall(ctx context.Context, s *Session, call *genai.FunctionCall, st *Stats, stop *error, opts tools.CallOptions) (*genai.FunctionResponse, *PendingCall) {
	ctx, span := a.startToolCall(ctx, s, call.Name)
	failed := st.Failed
	resp, waits := a.hookedCall(ctx, s, call, st, stop, opts)
	endToolCall(span, st.Failed == failed, waits != nil)
	return resp, waits
}

// hookedCall is runCall: the BeforeTool and AfterTool hooks around the catalog's call.
func (a *Agent) hookedCall(ctx context.Context, s *Session, call *genai.FunctionCall, st *Stats, stop *error, opts tools.CallOptions) (*genai.FunctionResponse, *PendingCall) {
	st.ToolCalls++
	args, err := genaiconv.Args(call)
	if err != nil {
		st.Failed++
		return genaiconv.Response(call.ID, call.Name, nil, fmt.Errorf("arguments: %w", err)), nil
	}
	if a.Events.ToolCall != nil {
		a.Events.ToolCall(call.ID, call.Name, args)
	}
	if a.only != nil && !a.only.allows(call.Name) {
		st.Failed++
		err := &SubagentError{Agent: a.only.Name, Tool: call.Name}
		if a.Events.ToolResult != nil {
			a.Events.ToolResult(call.ID, call.Name, nil, err)
		}
		return genaiconv.Response(call.ID, call.Name, nil, err), nil
	}
	skill := call.Name == "activate_skill" && len(a.Skills) > 0
	owner := ""
	skillTool, skillOwner, isSkillTool := a.skillToolFunc(s, call.Name)
	if t, ok := a.Tools.Lookup(call.Name); ok && !skill {
		owner = t.Extension
	} else if isSkillTool {
		owner = skillOwner
	}
	before := a.Hooks.RunTool(ctx, "BeforeTool", hookInput(s, "tool_name", call.Name, "tool_input", json.RawMessage(args)), owner)
	if before.Blocked != nil || before.Stopped {
		st.Failed++
		telemetry.SetIn(ctx, telemetry.KindToolCall, telemetry.Attr{Key: telemetry.Decision, Value: "denied"}, telemetry.Attr{Key: telemetry.ErrorType, Value: "hook"})
		var err error = before.Blocked
		if before.Stopped {
			err, *stop = errors.New(before.Reason), &StoppedError{Reason: before.Reason}
		}
		err = fmt.Errorf("blocked by a hook: %w", err)
		if a.Events.ToolResult != nil {
			a.Events.ToolResult(call.ID, call.Name, nil, err)
		}
		return genaiconv.Response(call.ID, call.Name, nil, err), nil
	}
	if before.ToolInput != nil { // rewritten: validated and decided again by the catalog
		args, _ = json.Marshal(before.ToolInput)
	}
	if err := a.checkpointFor(ctx, s, call.Name, args); err != nil {
		st.Failed++
		if a.Events.ToolResult != nil {
			a.Events.ToolResult(call.ID, call.Name, nil, err)
		}
		return genaiconv.Response(call.ID, call.Name, nil, err), nil
	}
	// Every tool goes through the catalog: validation, the policy's decision, the audit.
	ctx = context.WithValue(ctx, sessionKey{}, s)
	// what the policy asks about this call is first told to this session's Notification hooks
	hookCtx := ctx
	ctx = tools.WithNotify(ctx, func(kind, message string, details map[string]any) {
		input := map[string]any{"notification_type": kind, "message": message, "details": details}
		if s != nil {
			input["session_id"], input["transcript_path"] = s.ID, s.Path()
		}
		a.Hooks.Run(hookCtx, "Notification", input)
	})
	var res *tools.Result
	opts.Confirm = before.Ask // "decision": "ask": asked even where the policy allows it
	if out := a.Events.ToolOutput; out != nil {
		opts.OnUpdate = func(text string) { out(call.ID, call.Name, text) }
	}
	if skill {
		run := func(_ context.Context, args json.RawMessage) (*tools.Result, error) {
			return a.activateSkillCall(s, args)
		}
		res, err = a.Tools.CallFunc(ctx, tools.Func{Spec: activateSkillSpec, Extension: "gem", Run: run}, args, opts)
	} else if f, ok := a.fn(call.Name); ok {
		res, err = a.Tools.CallFunc(ctx, f, args, opts)
	} else if call.Name == webSearchName && a.webSearch() {
		res, err = a.Tools.CallFunc(ctx, a.webSearchFunc(), args, opts)
	} else if isSkillTool {
		res, err = a.Tools.CallFunc(ctx, skillTool, args, opts)
	} else if sa := a.subagent(call.Name); sa != nil {
		run := func(ctx context.Context, args json.RawMessage) (*tools.Result, error) {
			return a.runSubagent(ctx, s, sa, args, st)
		}
		res, err = a.Tools.CallFunc(ctx, tools.Func{Spec: sa.spec(), Extension: sa.owner(), Run: run}, args, opts)
	} else {
		res, err = a.Tools.Call(ctx, call.Name, args, opts)
	}
	if d, ok := errors.AsType[*tools.DeferredError](err); ok { // no ToolResult, no AfterTool: the call has not run
		waits := &PendingCall{Name: call.Name, Args: d.Call.Args, Extension: d.Call.Extension, Question: d.Call.Question, Asked: true}
		if sub, ok := errors.AsType[*subagentWaitsError](err); ok {
			waits.Args, waits.Subagent = args, sub.session
		}
		return nil, waits
	}
	if end, ok := errors.AsType[*EndTurnError](err); ok && *stop == nil {
		*stop = end // the model gets the failure; the turn ends after this response's calls
	}
	if err != nil || (res != nil && res.Error != nil) {
		st.Failed++
		telemetry.SetIn(ctx, telemetry.KindToolCall, telemetry.Attr{Key: telemetry.ErrorType, Value: toolErrorType(res, err)})
	}
	if a.Events.ToolResult != nil {
		a.Events.ToolResult(call.ID, call.Name, res, err)
	}
	out := hookInput(s, "tool_name", call.Name, "tool_input", json.RawMessage(args))
	if err != nil {
		out["error"] = err.Error()
	} else {
		out["tool_response"] = res
	}
	after := a.Hooks.RunTool(ctx, "AfterTool", out, owner)
	switch {
	case after.Stopped:
		*stop = &StoppedError{Reason: after.Reason}
	case after.Blocked != nil: // the reason replaces the result
		res, err = &tools.Result{Text: after.Blocked.Reason}, nil
	case after.ToolOutput != nil:
		res, err = &tools.Result{Text: *after.ToolOutput}, nil
	}
	if len(after.Context) > 0 && res != nil {
		r := *res // the hooks' additional context goes to the model with the result
		r.Text += "\n\n" + strings.Join(after.Context, "\n")
		res = &r
	}
	return genaiconv.Response(call.ID, call.Name, res, err), nil
}
