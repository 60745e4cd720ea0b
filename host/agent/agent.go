// Package agent owns the model loop: a session's history sent to a Gemini model with the
// catalog's tools as function declarations (ParametersJsonSchema) and the extensions'
// context as the system instruction; text streamed to the caller; the model's function calls
// run through the catalog (argument validation, policy and confirmation, sandboxed tool)
// with BeforeTool/AfterTool hooks around them; their FunctionResponses sent back, until the
// model answers without a call or the step limit is hit. Sessions persist as JSON under
// $GEM_HOME/sessions and can be resumed.
//
// Chosen where the spec is silent: at most 25 model requests per turn (MaxSteps); calls of one
// response run one after another, in order; a call the policy denies, a hook blocks or that
// fails is answered to the model as an error response (so it can adapt), never dropped;
// cancelling the context ends the turn after recording what was said so far.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/host/tools/genaiconv"
	"github.com/gemhost/gem/registry"
)

// DefaultModel is the model used when none is named.
const DefaultModel = "gemini-2.5-flash"

// DefaultMaxSteps bounds the model requests of one turn.
const DefaultMaxSteps = 25

// Events receive what happens during a turn; nil fields are skipped.
type Events struct {
	Text       func(delta string)
	ToolCall   func(id, name string, args json.RawMessage)
	ToolResult func(id, name string, res *tools.Result, err error)
}

// Agent runs turns.
type Agent struct {
	Client *genai.Client
	Model  string
	Tools  *tools.Catalog
	System string // the system instruction (context files, skills)
	Hooks  *Hooks // nil runs none
	// Skills the model may activate (activate_skill) or the user (/skill); an active skill's
	// SKILL.md joins the system instruction from the next request on.
	Skills   []Skill
	active   []Skill
	MaxSteps int
	Events   Events
	// CallOptions are passed to every tool call (host services).
	CallOptions tools.CallOptions
}

// Session is a conversation.
type Session struct {
	ID      string           `json:"id"`
	Model   string           `json:"model"`
	Created time.Time        `json:"created"`
	Updated time.Time        `json:"updated"`
	History []*genai.Content `json:"history"`
	path    string
}

// Path is the file the session is saved to (hooks get it as transcript_path).
func (s *Session) Path() string { return s.path }

// Stats count what a turn did.
type Stats struct {
	Requests  int           `json:"requests"`
	ToolCalls int           `json:"toolCalls"`
	ToolTime  time.Duration `json:"toolTimeNs"`
	Failed    int           `json:"failedToolCalls"`
}

// ErrStepLimit ends a turn whose model kept calling tools.
var ErrStepLimit = errors.New("the model was still calling tools at the step limit")

// StoppedError is a turn a hook ended ("continue": false), with its stop reason.
type StoppedError struct{ Reason string }

func (e *StoppedError) Error() string { return "a hook ended the turn: " + e.Reason }

// Turn sends prompt and runs the loop; it returns the model's final text. The BeforeAgent
// hooks may block the prompt, end the turn, or add context to it; AfterAgent hooks run at
// the end.
func (a *Agent) Turn(ctx context.Context, s *Session, prompt string) (string, Stats, error) {
	var st Stats
	before := a.Hooks.Run(ctx, "BeforeAgent", map[string]any{"session_id": s.ID, "transcript_path": s.path, "prompt": prompt})
	switch {
	case before.Blocked != nil:
		return "", st, fmt.Errorf("the prompt was blocked: %w", before.Blocked)
	case before.Stopped:
		return "", st, &StoppedError{Reason: before.Reason}
	}
	text, st, err := a.turn(ctx, s, prompt, before.Context, st)
	a.Hooks.Run(ctx, "AfterAgent", map[string]any{"session_id": s.ID, "transcript_path": s.path, "prompt": prompt, "prompt_response": text})
	return text, st, err
}

func (a *Agent) turn(ctx context.Context, s *Session, prompt string, extra []string, st Stats) (string, Stats, error) {
	sent := prompt
	if len(extra) > 0 {
		sent += "\n\n" + strings.Join(extra, "\n")
	}
	s.History = append(s.History, genai.NewContentFromText(sent, genai.RoleUser))
	decls := genaiconv.Declarations(a.Tools)
	if len(a.Skills) > 0 {
		decls = append(decls, activateSkillDecl)
	}
	config := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)}
	if len(decls) > 0 {
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	model := a.Model
	if model == "" {
		model = DefaultModel
	}
	max := a.MaxSteps
	if max <= 0 {
		max = DefaultMaxSteps
	}
	var final strings.Builder
	for step := 0; step < max; step++ {
		if system := a.systemInstruction(); system != "" {
			config.SystemInstruction = genai.NewContentFromText(system, genai.RoleUser)
		}
		a.Hooks.Run(ctx, "BeforeModel", map[string]any{"session_id": s.ID, "transcript_path": s.path, "model": model, "prompt": prompt, "step": step + 1})
		st.Requests++
		content, err := a.generateWithRetry(ctx, model, s.History, config)
		if content != nil && len(content.Parts) > 0 {
			s.History = append(s.History, content)
		}
		if err != nil {
			return final.String(), st, err
		}
		var calls []*genai.FunctionCall
		final.Reset()
		for _, p := range content.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall)
			} else if p.Text != "" && !p.Thought {
				final.WriteString(p.Text)
			}
		}
		a.Hooks.Run(ctx, "AfterModel", map[string]any{"session_id": s.ID, "transcript_path": s.path, "model": model, "text": final.String(), "function_calls": len(calls)})
		if len(calls) == 0 {
			return final.String(), st, nil
		}
		var parts []*genai.Part
		stop := ""
		for _, call := range calls {
			if ctx.Err() != nil {
				return final.String(), st, ctx.Err()
			}
			t0 := time.Now()
			resp := a.runCall(ctx, s, call, &st, &stop)
			st.ToolTime += time.Since(t0)
			parts = append(parts, &genai.Part{FunctionResponse: resp})
		}
		s.History = append(s.History, &genai.Content{Role: genai.RoleUser, Parts: parts})
		if stop != "" {
			return final.String(), st, &StoppedError{Reason: stop}
		}
	}
	return final.String(), st, fmt.Errorf("%w (%d requests): ask again to let it go on", ErrStepLimit, max)
}

// Retries are the waits before retrying a request the API refused for load (429, 500, 503)
// before it sent anything.
var Retries = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

// generateWithRetry is generate, retried on overload while nothing was received yet.
func (a *Agent) generateWithRetry(ctx context.Context, model string, history []*genai.Content, config *genai.GenerateContentConfig) (*genai.Content, error) {
	for attempt := 0; ; attempt++ {
		content, err := a.generate(ctx, model, history, config)
		var apiErr genai.APIError
		retryable := err != nil && len(content.Parts) == 0 && errors.As(err, &apiErr) && (apiErr.Code == 429 || apiErr.Code == 500 || apiErr.Code == 503)
		if !retryable || attempt >= len(Retries) {
			if err != nil {
				err = describeAPIError(err)
			}
			return content, err
		}
		select {
		case <-time.After(Retries[attempt]):
		case <-ctx.Done():
			return content, ctx.Err()
		}
	}
}

// generate streams one model response, emitting text as it comes.
func (a *Agent) generate(ctx context.Context, model string, history []*genai.Content, config *genai.GenerateContentConfig) (*genai.Content, error) {
	out := &genai.Content{Role: genai.RoleModel}
	for resp, err := range a.Client.Models.GenerateContentStream(ctx, model, history, config) {
		if err != nil {
			return out, err
		}
		if len(resp.Candidates) == 0 {
			if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
				return out, fmt.Errorf("the model refused the prompt: %s %s", resp.PromptFeedback.BlockReason, resp.PromptFeedback.BlockReasonMessage)
			}
			continue
		}
		c := resp.Candidates[0]
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				if p.Text != "" && !p.Thought && a.Events.Text != nil {
					a.Events.Text(p.Text)
				}
				out.Parts = appendPart(out.Parts, p)
			}
		}
		switch c.FinishReason {
		case "", genai.FinishReasonStop, genai.FinishReasonMaxTokens, genai.FinishReasonUnspecified:
		default:
			if len(out.Parts) == 0 {
				return out, fmt.Errorf("the model stopped without an answer (finish reason %s)", c.FinishReason)
			}
		}
	}
	if len(out.Parts) == 0 {
		return out, errors.New("the model sent an empty response (no text and no function call); try again")
	}
	return out, nil
}

// appendPart merges consecutive text chunks into one part, as the API expects them back.
func appendPart(parts []*genai.Part, p *genai.Part) []*genai.Part {
	if p.Text != "" && p.FunctionCall == nil && len(parts) > 0 {
		last := parts[len(parts)-1]
		if last.Text != "" && last.FunctionCall == nil && last.Thought == p.Thought && len(last.ThoughtSignature) == 0 {
			merged := *last
			merged.Text += p.Text
			merged.ThoughtSignature = p.ThoughtSignature
			parts[len(parts)-1] = &merged
			return parts
		}
	}
	return append(parts, p)
}

func describeAPIError(err error) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		hint := ""
		switch apiErr.Code {
		case 400:
			hint = " (the request was refused: check --model)"
		case 401, 403:
			hint = " (check GEMINI_API_KEY)"
		case 429:
			hint = " (rate limited: wait and try again)"
		}
		return fmt.Errorf("the Gemini API answered %d %s: %s%s", apiErr.Code, apiErr.Status, apiErr.Message, hint)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("talking to the Gemini API: %w", err)
}

// runCall runs one function call: BeforeTool hook, catalog (validation, policy, tool),
// AfterTool hook; every outcome becomes a FunctionResponse.
// runCall runs one function call; a hook that ends the turn sets *stop to its reason.
func (a *Agent) runCall(ctx context.Context, s *Session, call *genai.FunctionCall, st *Stats, stop *string) *genai.FunctionResponse {
	st.ToolCalls++
	args, err := genaiconv.Args(call)
	if err != nil {
		st.Failed++
		return genaiconv.Response(call.ID, call.Name, nil, fmt.Errorf("arguments: %w", err))
	}
	if a.Events.ToolCall != nil {
		a.Events.ToolCall(call.ID, call.Name, args)
	}
	if call.Name == "activate_skill" && len(a.Skills) > 0 {
		return a.activateSkillCall(call, args)
	}
	input := map[string]any{"session_id": s.ID, "transcript_path": s.path, "tool_name": call.Name, "tool_input": json.RawMessage(args)}
	if before := a.Hooks.Run(ctx, "BeforeTool", input); before.Blocked != nil || before.Stopped {
		st.Failed++
		var err error = before.Blocked
		if before.Stopped {
			err, *stop = errors.New(before.Reason), before.Reason
		}
		err = fmt.Errorf("blocked by a hook: %w", err)
		if a.Events.ToolResult != nil {
			a.Events.ToolResult(call.ID, call.Name, nil, err)
		}
		return genaiconv.Response(call.ID, call.Name, nil, err)
	}
	res, err := a.Tools.Call(ctx, call.Name, args, a.CallOptions)
	if err != nil || (res != nil && res.Error != nil) {
		st.Failed++
	}
	if a.Events.ToolResult != nil {
		a.Events.ToolResult(call.ID, call.Name, res, err)
	}
	out := map[string]any{"session_id": s.ID, "transcript_path": s.path, "tool_name": call.Name, "tool_input": json.RawMessage(args)}
	if err != nil {
		out["error"] = err.Error()
	} else {
		out["tool_response"] = res
	}
	after := a.Hooks.Run(ctx, "AfterTool", out)
	if after.Stopped {
		*stop = after.Reason
	}
	if len(after.Context) > 0 && res != nil {
		r := *res // the hooks' additional context goes to the model with the result
		r.Text += "\n\n" + strings.Join(after.Context, "\n")
		res = &r
	}
	return genaiconv.Response(call.ID, call.Name, res, err)
}

// Sessions stores sessions in a folder.
type Sessions struct{ Dir string }

// New starts a session.
func (ss Sessions) New(model string) *Session {
	now := time.Now().UTC()
	id := now.Format("20060102-150405") + fmt.Sprintf("-%04x", os.Getpid()&0xffff)
	return &Session{ID: id, Model: model, Created: now, Updated: now, path: filepath.Join(ss.Dir, id+".json")}
}

// Load reads a session by id, or the newest with "latest".
func (ss Sessions) Load(id string) (*Session, error) {
	if id == "latest" {
		files, _ := filepath.Glob(filepath.Join(ss.Dir, "*.json"))
		if len(files) == 0 {
			return nil, fmt.Errorf("no session to resume in %s", ss.Dir)
		}
		sort.Strings(files)
		id = strings.TrimSuffix(filepath.Base(files[len(files)-1]), ".json")
	}
	path := filepath.Join(ss.Dir, filepath.Base(id)+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w (gem sessions lists them)", id, err)
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("session %s is damaged: %w", path, err)
	}
	s.path = path
	return &s, nil
}

// List returns the sessions, newest first.
func (ss Sessions) List() ([]*Session, error) {
	files, _ := filepath.Glob(filepath.Join(ss.Dir, "*.json"))
	sort.Sort(sort.Reverse(sort.StringSlice(files)))
	var out []*Session
	for _, f := range files {
		if s, err := ss.Load(strings.TrimSuffix(filepath.Base(f), ".json")); err == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// Save writes the session atomically.
func (s *Session) Save() error {
	s.Updated = time.Now().UTC()
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return registry.WriteFileAtomic(s.path, data, 0o600)
}

// activateSkillDecl is the tool the model activates a skill with, as in Gemini CLI.
var activateSkillDecl = &genai.FunctionDeclaration{
	Name:        "activate_skill",
	Description: "Activates one of the skills listed in the system instruction: its instructions join the system instruction from the next step on, and are returned now.",
	ParametersJsonSchema: map[string]any{"type": "object", "required": []string{"name"},
		"properties": map[string]any{"name": map[string]any{"type": "string", "description": "the skill's name"}}},
}

// ActivateSkill makes the skill named name active; false when there is none.
func (a *Agent) ActivateSkill(name string) (Skill, bool) {
	for _, sk := range a.Skills {
		if sk.Name != name {
			continue
		}
		if !slices.ContainsFunc(a.active, func(x Skill) bool { return x.Name == name }) {
			a.active = append(a.active, sk)
		}
		return sk, true
	}
	return Skill{}, false
}

func (a *Agent) activateSkillCall(call *genai.FunctionCall, args json.RawMessage) *genai.FunctionResponse {
	var in struct {
		Name string `json:"name"`
	}
	json.Unmarshal(args, &in)
	sk, ok := a.ActivateSkill(in.Name)
	if !ok {
		var names []string
		for _, s := range a.Skills {
			names = append(names, s.Name)
		}
		return genaiconv.Response(call.ID, call.Name, nil, fmt.Errorf("no skill %q: the skills are %s", in.Name, strings.Join(names, ", ")))
	}
	return genaiconv.Response(call.ID, call.Name, &tools.Result{Text: "Skill " + sk.Name + " is active. Its instructions:\n\n" + sk.Text}, nil)
}

// systemInstruction is System with the active skills' instructions.
func (a *Agent) systemInstruction() string {
	var b strings.Builder
	b.WriteString(a.System)
	for _, sk := range a.active {
		fmt.Fprintf(&b, "\n\n--- Active skill: %s (%s) ---\n%s\n--- End of skill: %s ---", sk.Name, sk.Extension, strings.TrimRight(sk.Text, "\n"), sk.Name)
	}
	return b.String()
}
