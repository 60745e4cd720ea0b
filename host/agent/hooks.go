package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/limits"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// HookEvents are the events hooks may attach to: Gemini CLI's eleven.
var HookEvents = []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "BeforeTool", "AfterTool", "Notification", "PreCompress"}

// advisory events ignore flow control (continue, decision): they cannot stop or block.
var advisory = []string{"SessionStart", "SessionEnd", "Notification", "PreCompress", "BeforeToolSelection"}

// toolEvents match their matcher (a regular expression) against the tool's name; the other
// events match it exactly against their trigger (source, reason, trigger, notification_type).
var toolEvents = []string{"BeforeTool", "AfterTool"}

// Hook is one command hook, from an extension's hooks/hooks.json or from a settings file's
// "hooks" (Gemini CLI's format, the same in both):
//
//	{"hooks": {"BeforeTool": [{"matcher": "run_shell_command|kill", "sequential": false,
//	   "hooks": [{"type": "command", "name": "check", "command": "${extensionPath}/hooks/check.sh", "timeout": 5000}]}]}}
//
// The hook gets the event as JSON on stdin: hook_event_name, session_id, transcript_path (the
// session's saved file), cwd, timestamp and the event's own fields (tool_name, tool_input,
// tool_response, prompt, prompt_response, llm_request, llm_response, source, reason, trigger,
// notification_type, message, details). Exit 0 lets things go on and stdout may carry
// Gemini CLI's output fields (below); exit 2 is "decision": "deny" with stderr as the
// reason; any other exit, an overrun of the timeout (default 60 s; the hook is killed) or
// unparseable output is a warning, never a stop.
//
// Output fields honoured: "continue": false ends the turn (stopReason says why) — except in
// the advisory events SessionStart, SessionEnd, Notification, PreCompress and
// BeforeToolSelection; "systemMessage" is shown to the user; "suppressOutput" keeps the
// hook's output out of gem's log; "decision": "ask" (BeforeTool) makes the call asked even
// where the policy allows it, the reason in the question; "decision": "deny" (or "block") with "reason" refuses the
// prompt (BeforeAgent; it is not kept), the tool call (BeforeTool; the reason goes to the
// model), the tool's result (AfterTool; the reason replaces it), the response (AfterAgent:
// the reason is sent as a new prompt, at most MaxAgentRetries times) or the request
// (BeforeModel, AfterModel: the turn ends); "hookSpecificOutput" carries additionalContext
// (SessionStart: with the next prompt; BeforeAgent: with the prompt; AfterTool: with the
// result), tool_input (BeforeTool: merged over the model's arguments, which are then
// validated and decided by the policy again; only from hooks of the tool's own extension or
// of settings files — another extension's rewrite is ignored with a warning), tool_output (AfterTool: replaces the
// result), llm_request (BeforeModel: model and generation settings of the request),
// llm_response (BeforeModel: a synthetic response, the model is not asked; AfterModel:
// replaces the response's text in the history and the turn's answer — text already
// streamed to the terminal stays shown, as gem hooks whole responses, not chunks), toolConfig (BeforeToolSelection: mode AUTO, ANY or NONE,
// allowedFunctionNames — the lists of several hooks are joined, NONE wins) and clearContext
// (AfterAgent: the conversation's history is dropped).
//
// The hooks of one definition run in parallel unless it says "sequential": true; then each
// sees the tool_input the one before rewrote. Definitions run in order, extensions' first,
// then the user's settings, the workspace's (trusted folders only) and the system's.
// hooksConfig.enabled false turns every hook off; hooksConfig.disabled names hooks (by
// name or command) that do not run. An extension's hooks run in the sandbox of its
// extension; settings' hooks in the project's sandbox (commands.UserProgram).
type Hook struct {
	Source     string // the extension, or "user settings", "workspace settings", "system settings"
	File       string // where it is declared
	Name       string
	Event      string
	Matcher    *regexp.Regexp // tool events; nil matches every tool
	Exact      string         // other events; "" matches every trigger
	Command    string
	Timeout    time.Duration
	Sequential bool
	// Func runs the hook in gem's own process instead of Command (a hook of the program
	// embedding the agent: the SDK's). It reads and answers exactly what a command hook does.
	Func  HookFunc
	group int // hooks of one definition share it
	spec  sandbox.Program
}

// ProgramSource is the source of the hooks the program embedding the agent adds itself
// (not an extension's: no extension can have the name). They may rewrite any tool's input
// and output, as the user's settings' hooks may.
const ProgramSource = "the program"

// HookFunc is a hook run in the process: it gets the JSON a command hook reads on stdin and
// answers as a command hook does, with its exit code, stdout and stderr.
type HookFunc func(ctx context.Context, payload []byte) (code int, stdout, stderr []byte)

// NewFuncHook is a hook of source that runs fn for event; matcher is as in hooks.json (a
// regular expression of tool names for BeforeTool and AfterTool, else an exact trigger; ""
// or "*" matches everything). Add it to a conversation with Config.Hooks.
func NewFuncHook(source, name, event, matcher string, timeout time.Duration, fn HookFunc) (*Hook, error) {
	if !slices.Contains(HookEvents, event) {
		return nil, fmt.Errorf("hook %s: unknown event %q (use %s)", name, event, strings.Join(HookEvents, ", "))
	}
	if fn == nil {
		return nil, fmt.Errorf("hook %s: no function", name)
	}
	hk := &Hook{Source: source, Name: name, Event: event, Command: name, Func: fn, Timeout: cmp.Or(timeout, 60*time.Second)}
	if matcher != "" && matcher != "*" {
		if !slices.Contains(toolEvents, event) {
			hk.Exact = matcher
		} else if re, err := regexp.Compile("^(?:" + matcher + ")$"); err != nil {
			return nil, fmt.Errorf("hook %s: %s matcher %q: %w", name, event, matcher, err)
		} else {
			hk.Matcher = re
		}
	}
	return hk, nil
}

// addFuncs adds hooks made by NewFuncHook, each a definition of its own, after the others.
func (h *Hooks) addFuncs(list []*Hook) {
	for _, hk := range list {
		h.groups++
		one := *hk
		one.group = h.groups
		h.List = append(h.List, &one)
	}
}

// Hooks are the hooks of a session.
type Hooks struct {
	List   []*Hook
	Cwd    string
	Logger hclog.Logger
	// Warn tells the user about a hook that could not run, timed out or failed (they go to
	// the log as well); nil tells the log only.
	Warn func(msg string)
	// Say shows a hook's systemMessage to the user; nil drops it.
	Say      func(msg string)
	groups   int
	launcher *launch.Launcher // the session's: prepares and runs the hooks' commands
}

// MaxAgentRetries bounds the new prompts AfterAgent hooks may ask for in one turn.
const MaxAgentRetries = 3

// warn logs a hook's trouble and tells the user.
func (h *Hooks) warn(hk *Hook, what string, args ...any) {
	h.Logger.Warn("hook "+what, append([]any{"hook", hk.Command}, args...)...)
	if h.Warn != nil {
		msg := fmt.Sprintf("%s hook of %s %s", hk.Event, hk.Source, what)
		for i := 0; i+1 < len(args); i += 2 {
			msg += fmt.Sprintf(" (%v: %v)", args[i], args[i+1])
		}
		h.Warn(msg + ": check " + hk.hint())
	}
}

func (hk *Hook) hint() string {
	if hk.File != "" && !strings.HasSuffix(hk.File, "hooks.json") {
		return hk.File
	}
	return hk.Source + "'s hooks/hooks.json"
}

// hookGroup is one definition of an event.
type hookGroup struct {
	Matcher    string `json:"matcher"`
	Sequential bool   `json:"sequential"`
	Hooks      []struct {
		Name    string  `json:"name"`
		Type    string  `json:"type"`
		Command string  `json:"command"`
		Timeout float64 `json:"timeout"`
	} `json:"hooks"`
}

type hooksFile struct {
	Hooks map[string]json.RawMessage `json:"hooks"`
}

// LoadHooks reads the hooks of the enabled extensions of d, prepared and run by the session's
// launcher l.
func LoadHooks(l *launch.Launcher, env registry.Env, d *registry.Discovery, logger hclog.Logger) (*Hooks, []error) {
	h := &Hooks{Cwd: env.Cwd, Logger: logger, launcher: l}
	if h.Logger == nil {
		h.Logger = hclog.NewNullLogger()
	}
	var errs []error
	root := l.Workspace()
	platform := l.Platform()
	for _, x := range d.Effective() {
		if !x.Active() {
			continue
		}
		file := filepath.Join(x.Path, "hooks", "hooks.json")
		data, err := x.Hooks() // another format's converted
		if err != nil {
			errs = append(errs, fmt.Errorf("%w (its hooks are skipped)", err))
			continue
		}
		if data == nil {
			continue
		}
		var hf hooksFile
		if err := json.Unmarshal(data, &hf); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (fix the JSON; its hooks are skipped)", file, err))
			continue
		}
		exp := x.Expander(env, platform)
		childEnv, policy, err := l.Program(x, commands.ProgramSpec{Platform: platform})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		}
		errs = append(errs, h.add(x.Name, file, hf.Hooks, func(event, command string) (sandbox.Program, error) {
			if err := commands.CheckCommandLine(x, file+": "+event+" hook command", command); err != nil {
				return sandbox.Program{}, err
			}
			cmd := exp.Expand(command)
			return sandbox.Program{Path: "/bin/sh", Args: []string{"-c", cmd}, Env: childEnv, Dir: root, Name: "hook " + event + " of " + x.Name, Extension: x.Name, Policy: policy}, nil
		})...)
	}
	return h, errs
}

// AddSettings adds the hooks of the settings files (a workspace's are there only when the
// folder is trusted) and applies hooksConfig: enabled false removes every hook, disabled
// the hooks it names.
func (h *Hooks) AddSettings(env registry.Env, st *settings.Settings) []error {
	if st == nil {
		return nil
	}
	var errs []error
	root := h.launcher.Workspace()
	for _, f := range st.Hooks {
		source := f.Scope + " settings"
		var scriptRoots []string
		if f.Scope != "workspace" {
			scriptRoots = []string{env.Home}
		}
		errs = append(errs, h.add(source, f.Path, f.Events, func(event, command string) (sandbox.Program, error) {
			childEnv, policy, err := h.launcher.UserProgram("_hooks", command, scriptRoots...)
			if err != nil {
				return sandbox.Program{}, err
			}
			return sandbox.Program{Path: "/bin/sh", Args: []string{"-c", command}, Env: childEnv, Dir: root, Name: "hook " + event + " of " + source, Policy: policy}, nil
		})...)
	}
	if st.HooksOff {
		h.List = nil
	}
	h.List = slices.DeleteFunc(h.List, func(hk *Hook) bool {
		return slices.Contains(st.DisabledHooks, hk.Name) || slices.Contains(st.DisabledHooks, hk.Command)
	})
	return errs
}

// add parses the events of one file; program prepares one hook's command.
func (h *Hooks) add(source, file string, events map[string]json.RawMessage, program func(event, command string) (sandbox.Program, error)) []error {
	var errs []error
	names := make([]string, 0, len(events))
	for event := range events {
		names = append(names, event)
	}
	slices.SortFunc(names, func(a, b string) int { return slices.Index(HookEvents, a) - slices.Index(HookEvents, b) })
	for _, event := range names {
		if !slices.Contains(HookEvents, event) {
			errs = append(errs, fmt.Errorf("%s: unknown hook event %q (use %s)", file, event, strings.Join(HookEvents, ", ")))
			continue
		}
		var groups []hookGroup
		if err := json.Unmarshal(events[event], &groups); err != nil {
			errs = append(errs, fmt.Errorf("%s: hooks.%s must be a list of {matcher, sequential, hooks}: %w", file, event, err))
			continue
		}
		for _, g := range groups {
			h.groups++
			hook := Hook{Source: source, File: file, Event: event, Sequential: g.Sequential, group: h.groups}
			if g.Matcher != "" && g.Matcher != "*" {
				if !slices.Contains(toolEvents, event) {
					hook.Exact = g.Matcher
				} else if re, err := regexp.Compile("^(?:" + g.Matcher + ")$"); err != nil {
					errs = append(errs, fmt.Errorf("%s: %s matcher %q: %w", file, event, g.Matcher, err))
					continue
				} else {
					hook.Matcher = re
				}
			}
			for _, hk := range g.Hooks {
				if hk.Type != "" && hk.Type != "command" {
					errs = append(errs, fmt.Errorf("%s: %s hook type %q is not supported (only \"command\")", file, event, hk.Type))
					continue
				}
				if strings.TrimSpace(hk.Command) == "" {
					errs = append(errs, fmt.Errorf("%s: a %s hook has no command", file, event))
					continue
				}
				spec, err := program(event, hk.Command)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				one := hook
				one.Name, one.Command, one.spec, one.Timeout = hk.Name, spec.Args[len(spec.Args)-1], spec, 60*time.Second
				if hk.Timeout > 0 {
					one.Timeout = time.Duration(hk.Timeout * float64(time.Millisecond))
				}
				h.List = append(h.List, &one)
			}
		}
	}
	return errs
}

// BlockedError is a hook that said "decision": "deny" (or exited 2).
type BlockedError struct {
	Hook   *Hook
	Reason string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s hook of %s: %s", e.Hook.Event, e.Hook.Source, e.Reason)
}

// ToolConfig is BeforeToolSelection's say over the tools of the next request.
type ToolConfig struct {
	Mode                 string   `json:"mode"` // AUTO, ANY or NONE
	AllowedFunctionNames []string `json:"allowedFunctionNames"`
}

// Outcome is what the hooks of one event said, in their order.
type Outcome struct {
	Blocked      *BlockedError // a hook denied (not in advisory events)
	Ask          string        // a BeforeTool hook said "decision": "ask": its reason (the call is asked)
	Stopped      bool          // a hook said "continue": false: the turn ends
	Reason       string        // its stopReason
	Messages     []string      // systemMessage lines, for the user
	Context      []string      // additionalContext, for the model
	ToolInput    map[string]any
	ToolOutput   *string
	LLMRequest   map[string]any
	LLMResponse  json.RawMessage
	ToolConfig   *ToolConfig
	ClearContext bool
}

// hookOutput is what a hook may print on stdout (Gemini CLI's fields).
type hookOutput struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SystemMessage  string `json:"systemMessage"`
	SuppressOutput bool   `json:"suppressOutput"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	Specific       struct {
		AdditionalContext string          `json:"additionalContext"`
		ToolInput         map[string]any  `json:"tool_input"`
		ToolOutput        *string         `json:"tool_output"`
		LLMRequest        map[string]any  `json:"llm_request"`
		LLMResponse       json.RawMessage `json:"llm_response"`
		ToolConfig        *ToolConfig     `json:"toolConfig"`
		ClearContext      bool            `json:"clearContext"`
	} `json:"hookSpecificOutput"`
}

// hookResult is one hook's run.
type hookResult struct {
	said    hookOutput
	reason  string
	blocked bool
	ask     bool // "decision": "ask"
}

// triggers are the payload fields the matcher of a lifecycle event is compared with.
var triggers = []string{"source", "reason", "trigger", "notification_type"}

func (hk *Hook) matches(event string, input map[string]any) bool {
	if hk.Event != event {
		return false
	}
	if hk.Matcher != nil {
		tool, _ := input["tool_name"].(string)
		return hk.Matcher.MatchString(tool)
	}
	if hk.Exact != "" {
		for _, k := range triggers {
			if v, _ := input[k].(string); v == hk.Exact {
				return true
			}
		}
		return false
	}
	return true
}

// Has reports whether a hook of event is configured (whatever its matcher): what only
// its hooks read need not be made otherwise.
func (h *Hooks) Has(event string) bool {
	if h == nil {
		return false
	}
	for _, hk := range h.List {
		if hk.Event == event {
			return true
		}
	}
	return false
}

// Run runs the hooks of event that match input and returns what they said; it is never nil.
// The hooks of a definition run in parallel unless it is sequential; a hook that stops or
// denies ends the run.
func (h *Hooks) Run(ctx context.Context, event string, input map[string]any) *Outcome {
	return h.run(ctx, event, input, "")
}

// RunTool is Run for BeforeTool or AfterTool of a tool of the extension owner ("gem" for core tools, ""
// for subagents): only hooks of that extension and of the user's settings may rewrite its
// input. Another extension's hook rewriting it is ignored with a warning — an extension's
// hook must not make a second extension's tool (say, a shell with the network) run what the
// first chose, whatever the user allowed that tool to do.
func (h *Hooks) RunTool(ctx context.Context, event string, input map[string]any, owner string) *Outcome {
	return h.run(ctx, event, input, owner)
}

func (h *Hooks) run(ctx context.Context, event string, input map[string]any, owner string) *Outcome {
	out := &Outcome{}
	if h == nil {
		return out
	}
	payload := map[string]any{"hook_event_name": event, "cwd": h.Cwd}
	for k, v := range input {
		payload[k] = v
	}
	var matching []*Hook
	for _, hk := range h.List {
		if hk.matches(event, input) {
			matching = append(matching, hk)
		}
	}
	for i := 0; i < len(matching); {
		j := i + 1
		for !matching[i].Sequential && j < len(matching) && matching[j].group == matching[i].group {
			j++
		}
		batch := matching[i:j]
		results := make([]hookResult, len(batch))
		var wg sync.WaitGroup
		for k, hk := range batch {
			payload["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
			data, _ := json.Marshal(payload)
			if len(batch) == 1 {
				// One hook needs no goroutine: the wake-up costs more than an
				// in-process hook's whole run.
				results[k] = h.runOne(ctx, hk, data)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k] = h.runOne(ctx, hk, data)
			}()
		}
		wg.Wait()
		for k, r := range results {
			if h.fold(out, batch[k], r, payload, owner) {
				return out
			}
		}
		i = j
	}
	return out
}

// fold adds one hook's result to out (and a rewritten tool_input to payload, for the hooks
// after it); it reports whether the run ends here.
func (h *Hooks) fold(out *Outcome, hk *Hook, r hookResult, payload map[string]any, owner string) bool {
	said, event := r.said, hk.Event
	if !said.SuppressOutput {
		h.Logger.Debug("hook ran", "event", event, "hook", hk.Command, "source", hk.Source, "decision", said.Decision, "blocked", r.blocked, "reason", r.reason)
	}
	if said.SystemMessage != "" && event != "BeforeToolSelection" {
		out.Messages = append(out.Messages, said.SystemMessage)
		if h.Say != nil {
			h.Say(fmt.Sprintf("[%s hook of %s] %s", event, hk.Source, said.SystemMessage))
		}
	}
	sp := said.Specific
	if sp.AdditionalContext != "" {
		out.Context = append(out.Context, sp.AdditionalContext)
	}
	if !slices.Contains(advisory, event) {
		if said.Continue != nil && !*said.Continue {
			out.Stopped, out.Reason = true, said.StopReason
			if out.Reason == "" {
				out.Reason = fmt.Sprintf("the %s hook of %s ended the turn", event, hk.Source)
			}
			return true
		}
		if r.blocked {
			out.Blocked = &BlockedError{Hook: hk, Reason: r.reason}
			return true
		}
	}
	switch event {
	case "BeforeTool":
		if r.ask && out.Ask == "" {
			out.Ask = fmt.Sprintf("%s hook of %s: %s", event, hk.Source, r.reason)
		}
		if sp.ToolInput != nil && !hk.mayRewrite(owner) {
			tool, _ := payload["tool_name"].(string)
			h.warn(hk, "tried to rewrite the input of "+tool+", a tool of another extension: ignored")
		} else if sp.ToolInput != nil {
			args := map[string]any{}
			if raw, ok := payload["tool_input"].(json.RawMessage); ok {
				json.Unmarshal(raw, &args)
			} else if m, ok := payload["tool_input"].(map[string]any); ok {
				args = m
			}
			for k, v := range sp.ToolInput {
				args[k] = v
			}
			payload["tool_input"], out.ToolInput = args, args
		}
	case "AfterTool":
		if sp.ToolOutput != nil && !hk.mayRewrite(owner) {
			// What the model reads of a tool is its extension's (or the user's) to change.
			tool, _ := payload["tool_name"].(string)
			h.warn(hk, "tried to replace the output of "+tool+", a tool of another extension: ignored")
		} else if sp.ToolOutput != nil {
			out.ToolOutput = sp.ToolOutput
		}
	case "BeforeModel", "AfterModel":
		if sp.LLMRequest != nil && event == "BeforeModel" {
			if out.LLMRequest == nil {
				out.LLMRequest = map[string]any{}
			}
			for k, v := range sp.LLMRequest {
				out.LLMRequest[k] = v
			}
		}
		if len(sp.LLMResponse) > 0 && string(sp.LLMResponse) != "null" {
			out.LLMResponse = sp.LLMResponse
		}
	case "BeforeToolSelection":
		if tc := sp.ToolConfig; tc != nil {
			out.ToolConfig = joinToolConfig(out.ToolConfig, tc)
		}
	case "AfterAgent":
		out.ClearContext = out.ClearContext || sp.ClearContext
	}
	return false
}

// mayRewrite reports whether the hook may rewrite the input of a tool of the extension
// owner: its own extension's hooks, and the user's (settings files') hooks.
func (hk *Hook) mayRewrite(owner string) bool {
	return strings.HasSuffix(hk.Source, " settings") || (hk.Func != nil && hk.Source == ProgramSource) || (owner != "" && hk.Source == owner)
}

// joinToolConfig joins two hooks' tool configs: NONE wins, then ANY; the allowed names are
// the union.
func joinToolConfig(a, b *ToolConfig) *ToolConfig {
	if a == nil {
		c := *b
		c.Mode = strings.ToUpper(c.Mode)
		return &c
	}
	rank := map[string]int{"": 0, "AUTO": 1, "ANY": 2, "NONE": 3}
	if m := strings.ToUpper(b.Mode); rank[m] > rank[a.Mode] {
		a.Mode = m
	}
	for _, n := range b.AllowedFunctionNames {
		if !slices.Contains(a.AllowedFunctionNames, n) {
			a.AllowedFunctionNames = append(a.AllowedFunctionNames, n)
		}
	}
	return a
}

func (h *Hooks) runOne(ctx context.Context, hk *Hook, payload []byte) hookResult {
	ctx, cancel := context.WithTimeout(ctx, hk.Timeout)
	defer cancel()
	stdout, stderr := &limits.Buffer{Max: limits.HookOutput}, &limits.Buffer{Max: limits.HookOutput}
	var code int
	var err error
	if hk.Func != nil {
		code, err = runFunc(ctx, hk.Func, payload, stdout, stderr)
	} else {
		code, err = h.launcher.Run(ctx, launch.User, hk.spec, sandbox.Streams{Stdin: bytes.NewReader(payload), Stdout: stdout, Stderr: stderr})
	}
	var r hookResult
	switch {
	case ctx.Err() != nil:
		h.warn(hk, "timed out and was killed", "timeout", hk.Timeout)
		return r
	case err != nil:
		h.warn(hk, "did not run", "error", err)
		return r
	}
	switch code {
	case 0:
		text := bytes.TrimSpace(stdout.Bytes())
		if len(text) == 0 {
			return r
		}
		if err := json.Unmarshal(text, &r.said); err != nil {
			h.warn(hk, "printed what is not JSON on stdout", "error", err)
			return r
		}
		switch d := strings.ToLower(r.said.Decision); d {
		case "block", "deny":
			r.reason, r.blocked = r.said.Reason, true
			if r.reason == "" {
				r.reason = "denied"
			}
		case "ask":
			r.reason, r.ask = r.said.Reason, true
			if r.reason == "" {
				r.reason = "a hook asks"
			}
		}
		return r
	case 2:
		r.reason, r.blocked = strings.TrimSpace(stderr.String()), true
		if r.reason == "" {
			r.reason = "blocked (exit 2)"
		}
		return r
	}
	h.warn(hk, "failed", "exit status", code, "stderr", strings.TrimSpace(stderr.String()))
	return r
}

// runFunc runs an in-process hook as a command hook runs: bounded output, a panic reported
// as a failure. It runs in the caller's goroutine, as the program's tools do: its time limit
// reaches it through ctx, which it must honour (a hook that ignores it holds the turn, as a
// tool would).
func runFunc(ctx context.Context, fn HookFunc, payload []byte, stdout, stderr *limits.Buffer) (code int, err error) {
	defer func() {
		if p := recover(); p != nil {
			code, err = 0, fmt.Errorf("the hook panicked: %v", p)
		}
	}()
	code, out, errOut := fn(ctx, payload)
	stdout.Write(out)
	stderr.Write(errOut)
	return code, nil
}
