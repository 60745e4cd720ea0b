package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gemhost/gem/host/agent"
)

// Hook is a typed hook: a Go function for one of gem's eleven events (OnBeforeTool,
// OnAfterTool, OnBeforeModel, …). Give it to Options.Hooks or an extension to run it in the
// agent's process, or call RunAsCommand in a program's main to make that program a command
// hook (for a hooks.json or a settings file): the same function serves both ways, reading and
// answering exactly what a command hook reads and answers.
//
// The function's output steers the agent as a command hook's JSON does (see the output
// types); a zero output lets things go on. An error it returns is a failed hook: a warning,
// never a stop (a command hook exiting 1). To refuse, set Decision to HookDeny with a Reason;
// to end the turn, set Stop.
type Hook struct {
	event, name, matcher string
	timeout              time.Duration
	// run decodes payload once and runs the hook with the SessionContext contextOf makes
	// of the input's common fields.
	run func(ctx context.Context, contextOf func(context.Context, HookInput) SessionContext, payload []byte) (code int, stdout, stderr []byte)
}

// Event is the hook's event (BeforeTool, AfterTool, …).
func (h Hook) Event() string { return h.event }

// Name is the hook's name (hooksConfig.disabled does not apply to a program's hooks; logs
// and warnings name it).
func (h Hook) Name() string { return h.name }

// WithTimeout is h with a time limit other than the default 60 s: the hook's context ends
// then (a hook runs in the agent's goroutine, as a tool does: it must honour its context).
func (h Hook) WithTimeout(d time.Duration) Hook { h.timeout = d; return h }

// HookDecision is a hook's say over what it was asked about.
type HookDecision string

// The decisions of HookOutput.Decision.
const (
	HookAllow HookDecision = "allow" // go on (the default)
	// HookDeny refuses: the prompt (BeforeAgent), the tool call (BeforeTool: Reason goes to
	// the model), the tool's result (AfterTool: Reason replaces it), the answer (AfterAgent:
	// Reason is sent as a new prompt) or the request (BeforeModel, AfterModel: the turn ends).
	HookDeny HookDecision = "deny"
	// HookAsk (BeforeTool) makes the call asked about even where the policy allows it.
	HookAsk HookDecision = "ask"
)

// HookInput is what every event's input carries.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"` // the session's saved file
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Timestamp      string `json:"timestamp"` // RFC 3339
}

func (in HookInput) common() HookInput { return in }

// HookOutput is what every event's output may say. Stop, Decision and Reason are ignored in
// the advisory events (SessionStart, SessionEnd, Notification, PreCompress,
// BeforeToolSelection).
type HookOutput struct {
	Stop           bool         // end the turn ("continue": false)
	StopReason     string       // why, for the user
	SystemMessage  string       // shown to the user
	SuppressOutput bool         // keep the hook's output out of gem's log
	Decision       HookDecision // HookDeny, HookAsk; "" or HookAllow go on
	Reason         string       // the decision's reason
}

// wire is a hook's output as a command hook prints it.
type wire struct {
	Continue       *bool          `json:"continue,omitempty"`
	StopReason     string         `json:"stopReason,omitempty"`
	SystemMessage  string         `json:"systemMessage,omitempty"`
	SuppressOutput bool           `json:"suppressOutput,omitempty"`
	Decision       string         `json:"decision,omitempty"`
	Reason         string         `json:"reason,omitempty"`
	Specific       map[string]any `json:"hookSpecificOutput,omitempty"`
}

func (o HookOutput) wire(specific map[string]any) wire {
	w := wire{StopReason: o.StopReason, SystemMessage: o.SystemMessage, SuppressOutput: o.SuppressOutput,
		Decision: string(o.Decision), Reason: o.Reason}
	if o.Stop {
		w.Continue = new(false)
	}
	for k, v := range specific {
		if v == nil {
			delete(specific, k)
		}
	}
	if len(specific) > 0 {
		w.Specific = specific
	}
	return w
}

// output is an event's output type.
type output interface{ wire() wire }

// Each event's input and output.
type (
	// SessionStartInput: a session started (Source: startup, resume or clear).
	SessionStartInput struct {
		HookInput
		Source string `json:"source"`
	}
	// SessionStartOutput: AdditionalContext goes to the model with the next prompt.
	SessionStartOutput struct {
		HookOutput
		AdditionalContext string
	}
	// SessionEndInput: a session ended (Reason: exit or clear).
	SessionEndInput struct {
		HookInput
		Reason string `json:"reason"`
	}
	// SessionEndOutput is advisory: only SystemMessage counts.
	SessionEndOutput struct{ HookOutput }
	// BeforeAgentInput: the user's prompt, before the turn.
	BeforeAgentInput struct {
		HookInput
		Prompt string `json:"prompt"`
	}
	// BeforeAgentOutput: HookDeny refuses the prompt (it is not kept); AdditionalContext goes
	// with it to the model.
	BeforeAgentOutput struct {
		HookOutput
		AdditionalContext string
	}
	// AfterAgentInput: the turn's answer (StopHookActive: this answer follows an earlier
	// AfterAgent refusal).
	AfterAgentInput struct {
		HookInput
		Prompt         string `json:"prompt"`
		PromptResponse string `json:"prompt_response"`
		StopHookActive bool   `json:"stop_hook_active"`
	}
	// AfterAgentOutput: HookDeny sends Reason to the model as a new prompt (at most three
	// times a turn); ClearContext drops the conversation's history.
	AfterAgentOutput struct {
		HookOutput
		ClearContext bool
	}
	// BeforeModelInput: a request about to go to the model (Step counts the turn's requests).
	BeforeModelInput struct {
		HookInput
		LLMRequest LLMRequest `json:"llm_request"`
		Model      string     `json:"model"`
		Step       int        `json:"step"`
	}
	// BeforeModelOutput: LLMRequest changes the model or generation settings of the request;
	// LLMResponse answers in the model's place (the model is not asked).
	BeforeModelOutput struct {
		HookOutput
		LLMRequest  *LLMRequest
		LLMResponse *LLMResponse
	}
	// AfterModelInput: the model's response (Text: its text).
	AfterModelInput struct {
		HookInput
		LLMRequest  LLMRequest  `json:"llm_request"`
		LLMResponse LLMResponse `json:"llm_response"`
		Model       string      `json:"model"`
		Text        string      `json:"text"`
	}
	// AfterModelOutput: LLMResponse replaces the response's text (its tool calls stay).
	AfterModelOutput struct {
		HookOutput
		LLMResponse *LLMResponse
	}
	// BeforeToolSelectionInput: the request whose tools are about to be offered.
	BeforeToolSelectionInput struct {
		HookInput
		LLMRequest LLMRequest `json:"llm_request"`
	}
	// BeforeToolSelectionOutput: ToolConfig narrows the tools offered (several hooks' lists
	// are joined; NONE wins).
	BeforeToolSelectionOutput struct {
		HookOutput
		ToolConfig *ToolConfig
	}
	// BeforeToolInput: a tool call about to be decided by the policy and run.
	BeforeToolInput struct {
		HookInput
		ToolName  string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
	}
	// BeforeToolOutput: HookDeny refuses the call (Reason goes to the model); HookAsk asks
	// about it; ToolInput is merged over the model's arguments (validated and decided again).
	BeforeToolOutput struct {
		HookOutput
		ToolInput map[string]any
	}
	// AfterToolInput: a tool call's outcome (Error when it did not run or failed).
	AfterToolInput struct {
		HookInput
		ToolName     string         `json:"tool_name"`
		ToolInput    map[string]any `json:"tool_input"`
		ToolResponse *ToolResponse  `json:"tool_response"`
		Error        string         `json:"error"`
	}
	// AfterToolOutput: HookDeny replaces the result with Reason; ToolOutput replaces it;
	// AdditionalContext is added to it.
	AfterToolOutput struct {
		HookOutput
		AdditionalContext string
		ToolOutput        *string
	}
	// NotificationInput: gem tells the user something (NotificationType: ToolPermission, …).
	NotificationInput struct {
		HookInput
		NotificationType string         `json:"notification_type"`
		Message          string         `json:"message"`
		Details          map[string]any `json:"details"`
	}
	// NotificationOutput is advisory: only SystemMessage counts.
	NotificationOutput struct{ HookOutput }
	// PreCompressInput: the history is about to be compressed (Trigger: auto or manual).
	PreCompressInput struct {
		HookInput
		Trigger string `json:"trigger"`
	}
	// PreCompressOutput is advisory: only SystemMessage counts.
	PreCompressOutput struct{ HookOutput }
)

// LLMRequest is a model request in the hooks' stable format.
type LLMRequest struct {
	Model      string           `json:"model,omitempty"`
	Messages   []LLMMessage     `json:"messages,omitempty"`
	Config     GenerationConfig `json:"config"`
	ToolConfig *ToolConfig      `json:"toolConfig,omitempty"`
}

// LLMMessage is one message of a request: role system, user or model.
type LLMMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// GenerationConfig are a request's generation settings.
type GenerationConfig struct {
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"topP,omitempty"`
	TopK            *float64 `json:"topK,omitempty"`
	MaxOutputTokens int      `json:"maxOutputTokens,omitempty"`
}

// ToolConfig narrows a request's tools: Mode AUTO, ANY (the model must call one) or NONE;
// AllowedFunctionNames keeps only those.
type ToolConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames"`
}

// LLMResponse is a model response in the hooks' stable format.
type LLMResponse struct {
	Candidates []LLMCandidate `json:"candidates"`
}

// LLMCandidate is one candidate of a response.
type LLMCandidate struct {
	Content struct {
		Role  string   `json:"role"`
		Parts []string `json:"parts"`
	} `json:"content"`
}

// TextResponse is a response with the text alone (BeforeModelOutput, AfterModelOutput).
func TextResponse(text string) *LLMResponse {
	var c LLMCandidate
	c.Content.Role, c.Content.Parts = "model", []string{text}
	return &LLMResponse{Candidates: []LLMCandidate{c}}
}

// Text is the first candidate's text.
func (r LLMResponse) Text() string {
	if len(r.Candidates) == 0 {
		return ""
	}
	var s string
	for _, p := range r.Candidates[0].Content.Parts {
		s += p
	}
	return s
}

// ToolResponse is a tool's result as AfterTool sees it.
type ToolResponse struct {
	Text       string          `json:"text"`
	Display    string          `json:"display,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func (o SessionStartOutput) wire() wire {
	return o.HookOutput.wire(map[string]any{"additionalContext": nonEmpty(o.AdditionalContext)})
}
func (o SessionEndOutput) wire() wire { return o.HookOutput.wire(nil) }
func (o BeforeAgentOutput) wire() wire {
	return o.HookOutput.wire(map[string]any{"additionalContext": nonEmpty(o.AdditionalContext)})
}
func (o AfterAgentOutput) wire() wire {
	var clear any
	if o.ClearContext {
		clear = true
	}
	return o.HookOutput.wire(map[string]any{"clearContext": clear})
}
func (o BeforeModelOutput) wire() wire {
	return o.HookOutput.wire(map[string]any{"llm_request": ptr(o.LLMRequest), "llm_response": ptr(o.LLMResponse)})
}
func (o AfterModelOutput) wire() wire {
	return o.HookOutput.wire(map[string]any{"llm_response": ptr(o.LLMResponse)})
}
func (o BeforeToolSelectionOutput) wire() wire {
	return o.HookOutput.wire(map[string]any{"toolConfig": ptr(o.ToolConfig)})
}
func (o BeforeToolOutput) wire() wire {
	var in any
	if o.ToolInput != nil {
		in = o.ToolInput
	}
	return o.HookOutput.wire(map[string]any{"tool_input": in})
}
func (o AfterToolOutput) wire() wire {
	return o.HookOutput.wire(map[string]any{"additionalContext": nonEmpty(o.AdditionalContext), "tool_output": ptr(o.ToolOutput)})
}
func (o NotificationOutput) wire() wire { return o.HookOutput.wire(nil) }
func (o PreCompressOutput) wire() wire  { return o.HookOutput.wire(nil) }

// nonEmpty and ptr are nil for what says nothing (left out of the output).
func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func ptr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return p
}

// The hooks of each event. matcher is as in hooks.json: for OnBeforeTool and OnAfterTool a
// regular expression of tool names ("write_file|replace"), for the others the exact trigger
// (SessionStart's source, SessionEnd's reason, PreCompress's trigger, Notification's type);
// "" or "*" matches everything.

// OnSessionStart runs fn when a session starts.
func OnSessionStart(name, matcher string, fn func(SessionContext, SessionStartInput) (SessionStartOutput, error)) Hook {
	return newHook("SessionStart", name, matcher, fn)
}

// OnSessionEnd runs fn when a session ends.
func OnSessionEnd(name, matcher string, fn func(SessionContext, SessionEndInput) (SessionEndOutput, error)) Hook {
	return newHook("SessionEnd", name, matcher, fn)
}

// OnBeforeAgent runs fn on each prompt, before the turn.
func OnBeforeAgent(name string, fn func(SessionContext, BeforeAgentInput) (BeforeAgentOutput, error)) Hook {
	return newHook("BeforeAgent", name, "", fn)
}

// OnAfterAgent runs fn on each turn's answer.
func OnAfterAgent(name string, fn func(SessionContext, AfterAgentInput) (AfterAgentOutput, error)) Hook {
	return newHook("AfterAgent", name, "", fn)
}

// OnBeforeModel runs fn before each model request.
func OnBeforeModel(name string, fn func(SessionContext, BeforeModelInput) (BeforeModelOutput, error)) Hook {
	return newHook("BeforeModel", name, "", fn)
}

// OnAfterModel runs fn on each model response.
func OnAfterModel(name string, fn func(SessionContext, AfterModelInput) (AfterModelOutput, error)) Hook {
	return newHook("AfterModel", name, "", fn)
}

// OnBeforeToolSelection runs fn before each request's tools are offered.
func OnBeforeToolSelection(name string, fn func(SessionContext, BeforeToolSelectionInput) (BeforeToolSelectionOutput, error)) Hook {
	return newHook("BeforeToolSelection", name, "", fn)
}

// OnBeforeTool runs fn before each call of a tool matcher names.
func OnBeforeTool(name, matcher string, fn func(SessionContext, BeforeToolInput) (BeforeToolOutput, error)) Hook {
	return newHook("BeforeTool", name, matcher, fn)
}

// OnAfterTool runs fn after each call of a tool matcher names.
func OnAfterTool(name, matcher string, fn func(SessionContext, AfterToolInput) (AfterToolOutput, error)) Hook {
	return newHook("AfterTool", name, matcher, fn)
}

// OnNotification runs fn when gem notifies the user (matcher: the notification type).
func OnNotification(name, matcher string, fn func(SessionContext, NotificationInput) (NotificationOutput, error)) Hook {
	return newHook("Notification", name, matcher, fn)
}

// OnPreCompress runs fn before the history is compressed (matcher: auto or manual).
func OnPreCompress(name, matcher string, fn func(SessionContext, PreCompressInput) (PreCompressOutput, error)) Hook {
	return newHook("PreCompress", name, matcher, fn)
}

// newHook makes a Hook of fn: the payload decoded into In, Out encoded as a command hook
// prints it; an error is exit 1 with the error on stderr.
func newHook[In any, Out output](event, name, matcher string, fn func(SessionContext, In) (Out, error)) Hook {
	return Hook{event: event, name: name, matcher: matcher, run: func(ctx context.Context, contextOf func(context.Context, HookInput) SessionContext, payload []byte) (int, []byte, []byte) {
		var in In
		if err := json.Unmarshal(payload, &in); err != nil {
			return 1, nil, fmt.Appendf(nil, "hook %s: reading the %s input: %v", name, event, err)
		}
		var common HookInput
		if c, ok := any(in).(interface{ common() HookInput }); ok {
			common = c.common()
		}
		out, err := fn(contextOf(ctx, common), in)
		if err != nil {
			return 1, nil, []byte(err.Error())
		}
		data, err := json.Marshal(out.wire())
		if err != nil {
			return 1, nil, fmt.Appendf(nil, "hook %s: encoding its output: %v", name, err)
		}
		return 0, data, nil
	}}
}

// agentHook is h as the agent runs it, with the SessionContext of the session the payload
// names.
func (h Hook) agentHook(a *Agent, source string) (*agent.Hook, error) {
	if h.run == nil {
		return nil, fmt.Errorf("sdk: a hook made without sdk.On…")
	}
	return agent.NewFuncHook(source, h.name, h.event, h.matcher, h.timeout, func(ctx context.Context, payload []byte) (int, []byte, []byte) {
		return h.run(ctx, a.inputContext, payload)
	})
}

// RunAsCommand makes the program a command hook: it reads the event's JSON on stdin, runs
// the hook and answers as command hooks do (its output as JSON on stdout and exit 0; a
// failure on stderr and exit 1), then exits. Its SessionContext has the session's id, cwd,
// timestamp and transcript (read from transcript_path); FS and Shell work in cwd under the
// sandbox gem runs the hook in; Agent and Session are nil.
func (h Hook) RunAsCommand() {
	os.Exit(h.runCommand(context.Background(), os.Stdin, os.Stdout, os.Stderr))
}

func (h Hook) runCommand(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	payload, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "hook %s: reading stdin: %v\n", h.name, err)
		return 1
	}
	var in HookInput
	if err := json.Unmarshal(payload, &in); err != nil {
		fmt.Fprintf(stderr, "hook %s: stdin is not a hook's JSON: %v\n", h.name, err)
		return 1
	}
	if in.HookEventName != "" && in.HookEventName != h.event {
		fmt.Fprintf(stderr, "hook %s: it is a %s hook, run for %s: declare it under %s\n", h.name, h.event, in.HookEventName, h.event)
		return 1
	}
	code, out, errOut := h.run(ctx, func(ctx context.Context, _ HookInput) SessionContext { return commandContext(ctx, in) }, payload)
	stdout.Write(out)
	stderr.Write(errOut)
	return code
}
