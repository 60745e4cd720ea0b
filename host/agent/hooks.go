package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/limits"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// Events hooks may attach to.
var HookEvents = []string{"BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "SessionStart", "SessionEnd"}

// Hook is one command hook of an extension's hooks/hooks.json (Gemini CLI's format):
//
//	{"hooks": {"BeforeTool": [{"matcher": "run_shell_command|kill",
//	   "hooks": [{"type": "command", "command": "${extensionPath}/hooks/check.sh", "timeout": 5000}]}]}}
//
// The hook gets the event as JSON on stdin (hook_event_name, session_id, transcript_path (the
// session's saved file), cwd, timestamp and
// the event's fields: tool_name, tool_input, tool_response …). Exit 0 lets things go on
// (stdout may say {"decision": "block", "reason": …}); exit 2 blocks with stderr as the
// reason; any other exit is a warning. The default timeout is 60 s; a hook that overruns is
// killed and counts as a warning. Hooks run through the sandbox launcher with their
// extension's policy. BeforeTool and BeforeAgent can block. Besides decision and reason, a
// hook's stdout may carry Gemini CLI's other output fields: "continue": false ends the turn
// ("stopReason" says why), "systemMessage" is shown to the user, and
// "hookSpecificOutput": {"additionalContext": …} goes to the model (BeforeAgent: with the
// prompt; AfterTool: with the tool's result).
type Hook struct {
	Extension string
	Event     string
	Matcher   *regexp.Regexp // nil matches every tool
	Command   string
	Timeout   time.Duration
	spec      sandbox.Program
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
	Say func(msg string)
}

// warn logs a hook's trouble and tells the user.
func (h *Hooks) warn(hk *Hook, what string, args ...any) {
	h.Logger.Warn("hook "+what, append([]any{"hook", hk.Command}, args...)...)
	if h.Warn != nil {
		msg := fmt.Sprintf("%s hook of %s %s", hk.Event, hk.Extension, what)
		for i := 0; i+1 < len(args); i += 2 {
			msg += fmt.Sprintf(" (%v: %v)", args[i], args[i+1])
		}
		h.Warn(msg + ": check " + hk.Extension + "'s hooks/hooks.json")
	}
}

type hooksFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Name    string  `json:"name"`
			Type    string  `json:"type"`
			Command string  `json:"command"`
			Timeout float64 `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// LoadHooks reads the hooks of the enabled extensions of d.
func LoadHooks(env registry.Env, d *registry.Discovery, environ []string, readSecrets registry.SecretReader, logger hclog.Logger) (*Hooks, []error) {
	h := &Hooks{Cwd: env.Cwd, Logger: logger}
	if h.Logger == nil {
		h.Logger = hclog.NewNullLogger()
	}
	var errs []error
	root := commands.Workspace(env)
	platform := manifest.HostPlatforms(env.Getenv)[0]
	for _, x := range d.Effective() {
		if !x.Active() {
			continue
		}
		file := filepath.Join(x.Path, "hooks", "hooks.json")
		data, err := os.ReadFile(file)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var hf hooksFile
		if err := json.Unmarshal(data, &hf); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (fix the JSON; its hooks are skipped)", file, err))
			continue
		}
		exp := x.Expander(env, platform)
		childEnv, policy, err := commands.Program(env, x, commands.ProgramSpec{Root: root, Platform: platform, Environ: environ, ReadSecrets: readSecrets})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		}
		for event, groups := range hf.Hooks {
			if !slices.Contains(HookEvents, event) {
				errs = append(errs, fmt.Errorf("%s: unknown hook event %q (use %s)", file, event, strings.Join(HookEvents, ", ")))
				continue
			}
			for _, g := range groups {
				var re *regexp.Regexp
				if g.Matcher != "" && g.Matcher != "*" {
					if re, err = regexp.Compile("^(?:" + g.Matcher + ")$"); err != nil {
						errs = append(errs, fmt.Errorf("%s: %s matcher %q: %w", file, event, g.Matcher, err))
						continue
					}
				}
				for _, hk := range g.Hooks {
					if hk.Type != "" && hk.Type != "command" {
						errs = append(errs, fmt.Errorf("%s: %s hook type %q is not supported (only \"command\")", file, event, hk.Type))
						continue
					}
					timeout := 60 * time.Second
					if hk.Timeout > 0 {
						timeout = time.Duration(hk.Timeout * float64(time.Millisecond))
					}
					if err := commands.CheckCommandLine(x, file+": "+event+" hook command", hk.Command); err != nil {
						errs = append(errs, err)
						continue
					}
					cmd := exp.Expand(hk.Command)
					h.List = append(h.List, &Hook{Extension: x.Name, Event: event, Matcher: re, Command: cmd, Timeout: timeout,
						spec: sandbox.Program{Path: "/bin/sh", Args: []string{"-c", cmd}, Env: childEnv, Dir: root, Name: "hook " + event + " of " + x.Name, Policy: policy}})
				}
			}
		}
	}
	return h, errs
}

// BlockedError is a hook that blocked.
type BlockedError struct {
	Hook   *Hook
	Reason string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s hook of %s: %s", e.Hook.Event, e.Hook.Extension, e.Reason)
}

// Outcome is what the hooks of one event said, in their order.
type Outcome struct {
	Blocked  *BlockedError // a hook blocked (BeforeTool, BeforeAgent)
	Stopped  bool          // a hook said "continue": false: the turn ends
	Reason   string        // its stopReason
	Messages []string      // systemMessage lines, for the user
	Context  []string      // additionalContext, for the model
}

// hookOutput is what a hook may print on stdout (Gemini CLI's fields).
type hookOutput struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	Specific      struct {
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Run runs the hooks of event (for tool events, those whose matcher fits input's
// tool_name) and returns what they said; it is never nil.
func (h *Hooks) Run(ctx context.Context, event string, input map[string]any) *Outcome {
	out := &Outcome{}
	if h == nil {
		return out
	}
	tool, _ := input["tool_name"].(string)
	for _, hk := range h.List {
		if hk.Event != event || (hk.Matcher != nil && !hk.Matcher.MatchString(tool)) {
			continue
		}
		payload := map[string]any{"hook_event_name": event, "cwd": h.Cwd, "timestamp": time.Now().UTC().Format(time.RFC3339Nano)}
		for k, v := range input {
			payload[k] = v
		}
		said, reason, blocked := h.runOne(ctx, hk, payload)
		if said.SystemMessage != "" {
			out.Messages = append(out.Messages, said.SystemMessage)
			if h.Say != nil {
				h.Say(fmt.Sprintf("[%s hook of %s] %s", event, hk.Extension, said.SystemMessage))
			}
		}
		if c := said.Specific.AdditionalContext; c != "" {
			out.Context = append(out.Context, c)
		}
		if said.Continue != nil && !*said.Continue {
			out.Stopped, out.Reason = true, said.StopReason
			if out.Reason == "" {
				out.Reason = fmt.Sprintf("the %s hook of %s ended the turn", event, hk.Extension)
			}
			return out
		}
		if blocked && (event == "BeforeTool" || event == "BeforeAgent") {
			out.Blocked = &BlockedError{Hook: hk, Reason: reason}
			return out
		}
	}
	return out
}

func (h *Hooks) runOne(ctx context.Context, hk *Hook, payload map[string]any) (hookOutput, string, bool) {
	data, _ := json.Marshal(payload)
	ctx, cancel := context.WithTimeout(ctx, hk.Timeout)
	defer cancel()
	stdout, stderr := &limits.Buffer{Max: limits.HookOutput}, &limits.Buffer{Max: limits.HookOutput}
	code, err := sandbox.RunContext(ctx, hk.spec, sandbox.Streams{Stdin: bytes.NewReader(data), Stdout: stdout, Stderr: stderr}, 500*time.Millisecond)
	var out hookOutput
	switch {
	case ctx.Err() != nil:
		h.warn(hk, "timed out and was killed", "timeout", hk.Timeout)
		return out, "", false
	case err != nil:
		h.warn(hk, "did not run", "error", err)
		return out, "", false
	}
	switch code {
	case 0:
		if json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out) == nil && (out.Decision == "block" || out.Decision == "deny") {
			return out, out.Reason, true
		}
		return out, "", false
	case 2:
		reason := strings.TrimSpace(stderr.String())
		if reason == "" {
			reason = "blocked (exit 2)"
		}
		return out, reason, true
	}
	h.warn(hk, "failed", "exit status", code, "stderr", strings.TrimSpace(stderr.String()))
	return out, "", false
}
