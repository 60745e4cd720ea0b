// Package agent owns the model loop: a session's history sent to a Gemini model with the
// catalog's tools as function declarations (ParametersJsonSchema) and the extensions'
// context as the system instruction; text streamed to the caller; the model's function calls
// run through the catalog (argument validation, policy and confirmation, sandboxed tool)
// with Gemini CLI's hooks around every step (hooks.go); their FunctionResponses sent back,
// until the model answers without a call or the step limit is hit. Sessions persist as JSON
// under $GEM_HOME/sessions and can be resumed; chats are saved by tag (chats.go). Token
// counts come from the API's usage metadata; the history is compressed near the model's
// input limit (compress.go). Skills (context.go) and subagents (subagents.go) are Gemini
// CLI's, found where it finds them.
//
// Open (conversation.go) is the one composition of the model side: given a tool catalog and
// a client (NewClient) it loads hooks, prompt commands, context, skills and subagents,
// settles agent/tool name clashes, opens or resumes the session and runs `!{…}` through the
// sandbox. gem -p and gem shell use it and keep only flags and rendering; the SDK and gem acp
// use it the same way.
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
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/host/tools/genaiconv"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/prompt"
)

// DefaultModel is the model used when none is named.
const DefaultModel = "gemini-2.5-flash"

// DefaultMaxSteps bounds the model requests of one turn.
const DefaultMaxSteps = 25

// Events receive what happens during a turn; nil fields are skipped.
type Events struct {
	Text func(delta string)
	// Thought is a piece of the model's thinking, when it streams its thoughts.
	Thought    func(delta string)
	ToolCall   func(id, name string, args json.RawMessage)
	ToolResult func(id, name string, res *tools.Result, err error)
	// Compressed tells that the history was summarized (trigger auto or manual): contents
	// before and after.
	Compressed func(trigger string, before, after int)
}

// Agent runs turns.
type Agent struct {
	Client ModelClient
	Model  string
	Tools  *tools.Catalog
	System string // the system instruction (context files, skills)
	Hooks  *Hooks // nil runs none
	// Skills the model may activate (activate_skill) or the user (/skill); an active skill's
	// SKILL.md joins the system instruction from the next request on.
	Skills []Skill
	// Funcs are tools the program embedding the agent runs itself (the SDK's typed tools):
	// declared to the model and called through the catalog like its tools.
	Funcs []tools.Func
	// Instructions, when set, adds to the system instruction of every request (the SDK's
	// static and dynamic instructions, where context files stand); ctx is the turn's.
	Instructions func(ctx context.Context, s *Session) string
	MaxSteps     int
	Events       Events
	// CallOptions are passed to every tool call (host services).
	CallOptions tools.CallOptions
	// TokenLimit is the model's input limit (0: TokenLimitOf(Model)); the history is
	// compressed before a request once the last prompt reached CompressAt of it.
	TokenLimit int
	CompressAt float64 // 0: DefaultCompressAt
	// Retries are the waits before retrying an overloaded request (nil: DefaultRetries).
	Retries []time.Duration
	// Subagents the model may hand tasks to (as tools of their names); Depth is this
	// agent's nesting: 0 is the user's agent, 1 a subagent (which calls no subagents).
	Subagents   []*Subagent
	Depth       int
	only        *Subagent // a subagent's own tool subset
	temperature *float32
}

// Session is a conversation.
type Session struct {
	ID      string           `json:"id"`
	Model   string           `json:"model"`
	Created time.Time        `json:"created"`
	Updated time.Time        `json:"updated"`
	History []*genai.Content `json:"history"`
	// ActiveSkills are the skills activated in the conversation: their instructions join the
	// system instruction of every request from then on (kept with the session).
	ActiveSkills []string `json:"activeSkills,omitempty"`
	// Pending is the last turn when it waits for approvals (kept with the session, so
	// another process may decide them: ResumeTurn).
	Pending *PendingTurn `json:"pending,omitempty"`
	// ApprovalMode is the policy's mode when the conversation was last saved
	// (Conversation.Save); a client that resumes the session may restore it (gem acp does,
	// gem -p and the shell take their flag).
	ApprovalMode string `json:"approvalMode,omitempty"`
	// nextContext goes with the next prompt (SessionStart hooks' additionalContext).
	nextContext []string
	// attached are the files (images) that go with the next prompt (Attach).
	attached []*genai.Part
	// LastPromptTokens is the size of the last request, as the API counted it.
	LastPromptTokens int   `json:"lastPromptTokens,omitempty"`
	Usage            Usage `json:"usage"`
	path             string
}

// AttachMax is the largest file Attach takes (the Gemini API takes at most 20 MB of inline
// data in a request).
const AttachMax = 10 << 20

// attachable are the MIME types of the images the Gemini models read inline.
var attachable = []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}

// AttachError is a file Attach refuses.
type AttachError struct {
	MIMEType string
	Size     int
}

func (e *AttachError) Error() string {
	if !slices.Contains(attachable, e.MIMEType) {
		return fmt.Sprintf("an attachment of type %q: the model reads images of %s", e.MIMEType, strings.Join(attachable, ", "))
	}
	return fmt.Sprintf("an attachment of %d bytes: at most %d", e.Size, AttachMax)
}

// Image is an image attached to a prompt.
type Image struct {
	MIMEType string
	Data     []byte
}

// Attach adds images to the next prompt (sent inline, kept in the history as the model saw
// them): all of them, or none when one is refused.
func (s *Session) Attach(images ...Image) error {
	for _, im := range images {
		if !slices.Contains(attachable, im.MIMEType) || len(im.Data) > AttachMax {
			return &AttachError{MIMEType: im.MIMEType, Size: len(im.Data)}
		}
	}
	for _, im := range images {
		s.attached = append(s.attached, &genai.Part{InlineData: &genai.Blob{MIMEType: im.MIMEType, Data: im.Data}})
	}
	return nil
}

// Path is the file the session is saved to (hooks get it as transcript_path).
func (s *Session) Path() string { return s.path }

// Usage counts tokens as the API reports them (usage metadata).
type Usage struct {
	Prompt   int `json:"prompt"`
	Output   int `json:"output"`
	Cached   int `json:"cached,omitempty"`
	Thoughts int `json:"thoughts,omitempty"`
	Tool     int `json:"tool,omitempty"` // the prompt tokens of tool results (toolUsePromptTokenCount)
	Total    int `json:"total"`
}

func (u *Usage) plus(o Usage) {
	u.Prompt += o.Prompt
	u.Output += o.Output
	u.Cached += o.Cached
	u.Thoughts += o.Thoughts
	u.Tool += o.Tool
	u.Total += o.Total
}

func (u *Usage) add(m *genai.GenerateContentResponseUsageMetadata) {
	if m == nil {
		return
	}
	u.Prompt += int(m.PromptTokenCount)
	u.Output += int(m.CandidatesTokenCount)
	u.Cached += int(m.CachedContentTokenCount)
	u.Thoughts += int(m.ThoughtsTokenCount)
	u.Tool += int(m.ToolUsePromptTokenCount)
	u.Total += int(m.TotalTokenCount)
}

// Stats count what a turn did.
type Stats struct {
	Requests  int           `json:"requests"`
	ToolCalls int           `json:"toolCalls"`
	ToolTime  time.Duration `json:"toolTimeNs"`
	Failed    int           `json:"failedToolCalls"`
	Tokens    Usage         `json:"tokens"`
	// Models are the requests by model (a subagent may use another): Gemini CLI's stats
	// are kept by model.
	Models map[string]*ModelStats `json:"models,omitempty"`
}

// ModelStats are the requests made to one model.
type ModelStats struct {
	Requests int           `json:"requests"`
	Errors   int           `json:"errors"`
	Latency  time.Duration `json:"latencyNs"`
	Tokens   Usage         `json:"tokens"`
}

// model is m's entry, made on first use.
func (st *Stats) model(m string) *ModelStats {
	if st.Models == nil {
		st.Models = map[string]*ModelStats{}
	}
	if st.Models[m] == nil {
		st.Models[m] = &ModelStats{}
	}
	return st.Models[m]
}

// merge adds a subagent's stats.
func (st *Stats) merge(o Stats) {
	st.Requests += o.Requests
	st.ToolCalls += o.ToolCalls
	st.Failed += o.Failed
	st.Tokens.plus(o.Tokens)
	for name, m := range o.Models {
		mine := st.model(name)
		mine.Requests += m.Requests
		mine.Errors += m.Errors
		mine.Latency += m.Latency
		mine.Tokens.plus(m.Tokens)
	}
}

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
	if decls := a.declarations(); len(decls) > 0 {
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
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
	s.History = append(s.History, &genai.Content{Role: genai.RoleUser, Parts: parts})
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
	if decls := a.declarations(); len(decls) > 0 {
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	return a.loop(ctx, s, config, st)
}

// model is the model of the agent's requests.
func (a *Agent) model() string {
	if a.Model == "" {
		return DefaultModel
	}
	return a.Model
}

// request makes one model request with its hooks: BeforeToolSelection may narrow the
// tools, BeforeModel may change the model and generation settings, answer in the model's
// place, refuse or stop; AfterModel may replace the answer's text, refuse or stop.
func (a *Agent) request(ctx context.Context, s *Session, shared *genai.GenerateContentConfig, step int, st *Stats) (*genai.Content, error) {
	model := a.model()
	config := *shared // this request's own copy: hooks may change it
	// The hooks' view of the request is made only when a hook listens: it copies the
	// whole history's text.
	var req map[string]any
	request := func() map[string]any {
		if req == nil {
			req = stableRequest(model, s.History, &config)
		}
		return req
	}
	if a.Hooks.Has("BeforeToolSelection") {
		if sel := a.Hooks.Run(ctx, "BeforeToolSelection", hookInput(s, "llm_request", request())); sel.ToolConfig != nil {
			applyToolConfig(&config, sel.ToolConfig)
			req = nil
		}
	}
	bm := &Outcome{}
	if a.Hooks.Has("BeforeModel") {
		bm = a.Hooks.Run(ctx, "BeforeModel", hookInput(s, "llm_request", request(), "model", model, "step", step+1))
	}
	if a.Hooks.Has("AfterModel") {
		request() // what AfterModel is told was asked: the request before BeforeModel changed it
	}
	switch {
	case bm.Stopped:
		return nil, &StoppedError{Reason: bm.Reason}
	case bm.Blocked != nil:
		return nil, fmt.Errorf("the request was blocked: %w", bm.Blocked)
	}
	model = applyRequest(model, &config, bm.LLMRequest)
	var content *genai.Content
	if bm.LLMResponse != nil {
		content = syntheticResponse(bm.LLMResponse)
	} else {
		st.Requests++
		var usage *genai.GenerateContentResponseUsageMetadata
		var err error
		t0 := time.Now()
		content, usage, err = a.generateWithRetry(ctx, model, s.History, &config)
		ms := st.model(model)
		ms.Requests++
		ms.Latency += time.Since(t0)
		ms.Tokens.add(usage)
		if err != nil {
			ms.Errors++
		}
		st.Tokens.add(usage)
		s.Usage.add(usage)
		if usage != nil {
			s.LastPromptTokens = int(usage.PromptTokenCount)
		}
		if err != nil {
			return content, err
		}
	}
	am := &Outcome{}
	if a.Hooks.Has("AfterModel") {
		am = a.Hooks.Run(ctx, "AfterModel", hookInput(s, "llm_request", req, "llm_response", stableResponse(content), "model", model, "text", textOf(content)))
	}
	switch {
	case am.Stopped:
		return content, &StoppedError{Reason: am.Reason}
	case am.Blocked != nil:
		return nil, fmt.Errorf("the response was refused: %w", am.Blocked)
	case am.LLMResponse != nil:
		content = replaceText(content, syntheticResponse(am.LLMResponse))
	}
	return content, nil
}

// DefaultRetries are the waits before retrying a request the API refused for load (429,
// 500, 503) before it sent anything (Agent.Retries).
var DefaultRetries = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

func (a *Agent) retries() []time.Duration {
	if a.Retries != nil {
		return a.Retries
	}
	return DefaultRetries
}

// generateWithRetry is generate, retried on overload while nothing was received yet.
func (a *Agent) generateWithRetry(ctx context.Context, model string, history []*genai.Content, config *genai.GenerateContentConfig) (*genai.Content, *genai.GenerateContentResponseUsageMetadata, error) {
	for attempt := 0; ; attempt++ {
		content, usage, err := a.generate(ctx, model, history, config)
		var apiErr genai.APIError
		retryable := err != nil && len(content.Parts) == 0 && errors.As(err, &apiErr) && (apiErr.Code == 429 || apiErr.Code == 500 || apiErr.Code == 503)
		if !retryable || attempt >= len(a.retries()) {
			if err != nil {
				err = describeAPIError(err)
			}
			return content, usage, err
		}
		select {
		case <-time.After(a.retries()[attempt]):
		case <-ctx.Done():
			return content, nil, ctx.Err()
		}
	}
}

// generate streams one model response, emitting text as it comes; it returns the
// response's usage metadata (the last the stream sent).
func (a *Agent) generate(ctx context.Context, model string, history []*genai.Content, config *genai.GenerateContentConfig) (*genai.Content, *genai.GenerateContentResponseUsageMetadata, error) {
	out := &genai.Content{Role: genai.RoleModel}
	var usage *genai.GenerateContentResponseUsageMetadata
	for resp, err := range a.Client.GenerateContentStream(ctx, model, history, config) {
		if err != nil {
			return out, usage, err
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		if len(resp.Candidates) == 0 {
			if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
				return out, usage, fmt.Errorf("the model refused the prompt: %s %s", resp.PromptFeedback.BlockReason, resp.PromptFeedback.BlockReasonMessage)
			}
			continue
		}
		c := resp.Candidates[0]
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				switch {
				case p.Text != "" && !p.Thought && a.Events.Text != nil:
					a.Events.Text(p.Text)
				case p.Text != "" && p.Thought && a.Events.Thought != nil:
					a.Events.Thought(p.Text)
				}
				out.Parts = appendPart(out.Parts, p)
			}
		}
		switch c.FinishReason {
		case "", genai.FinishReasonStop, genai.FinishReasonMaxTokens, genai.FinishReasonUnspecified:
		default:
			if len(out.Parts) == 0 {
				return out, usage, fmt.Errorf("the model stopped without an answer (finish reason %s)", c.FinishReason)
			}
		}
	}
	if len(out.Parts) == 0 {
		return out, usage, ErrEmptyResponse
	}
	return out, usage, nil
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
		return &APIError{Kind: apiErrorKind(apiErr), Code: apiErr.Code, Status: apiErr.Status, Message: apiErr.Message, Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrEmptyResponse) {
		return err
	}
	return &APIError{Kind: APINetwork, Message: err.Error(), Err: err}
}

// ErrEmptyResponse is a model answer with neither text nor a function call.
var ErrEmptyResponse = errors.New("the model sent an empty response (no text and no function call); try again")

// APIError is a request the Gemini API refused (Code, Status and Message as it answered)
// or that did not reach it (Kind APINetwork). Kind says what failed, for the hint.
type APIError struct {
	Kind    APIErrorKind
	Code    int
	Status  string
	Message string
	Err     error
}

// APIErrorKind is what an API error is about.
type APIErrorKind string

// The kinds of API errors.
const (
	APIAuth    APIErrorKind = "auth"    // the key (or credentials) refused
	APIModel   APIErrorKind = "model"   // no such model, or not for this key
	APIQuota   APIErrorKind = "quota"   // rate limited or out of quota
	APIServer  APIErrorKind = "server"  // the API's own failure
	APIRequest APIErrorKind = "request" // the request refused otherwise
	APINetwork APIErrorKind = "network" // no answer: DNS, connection, proxy, TLS
)

func (e *APIError) Error() string {
	if e.Kind == APINetwork {
		return "talking to the Gemini API: " + e.Message
	}
	return fmt.Sprintf("the Gemini API answered %d %s: %s", e.Code, e.Status, e.Message)
}

func (e *APIError) Unwrap() error { return e.Err }

// apiErrorKind reads what an API error is about: a bad key is a 400 INVALID_ARGUMENT on
// the Gemini API ("API key not valid", reason API_KEY_INVALID), not a bad request.
func apiErrorKind(e genai.APIError) APIErrorKind {
	text := strings.ToLower(e.Message + " " + fmt.Sprint(e.Details))
	switch {
	case e.Code == 401 || e.Code == 403 || strings.Contains(text, "api key") || strings.Contains(text, "api_key_invalid"):
		return APIAuth
	case e.Code == 404 || (e.Code == 400 && strings.Contains(text, "model")):
		return APIModel
	case e.Code == 429:
		return APIQuota
	case e.Code >= 500:
		return APIServer
	}
	return APIRequest
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
	if t, ok := a.Tools.Lookup(call.Name); ok && !skill {
		owner = t.Extension
	}
	before := a.Hooks.RunTool(ctx, "BeforeTool", hookInput(s, "tool_name", call.Name, "tool_input", json.RawMessage(args)), owner)
	if before.Blocked != nil || before.Stopped {
		st.Failed++
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
	if skill {
		run := func(_ context.Context, args json.RawMessage) (*tools.Result, error) {
			return a.activateSkillCall(s, args)
		}
		res, err = a.Tools.CallFunc(ctx, tools.Func{Spec: activateSkillSpec, Extension: "gem", Run: run}, args, opts)
	} else if f, ok := a.fn(call.Name); ok {
		res, err = a.Tools.CallFunc(ctx, f, args, opts)
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

// Sessions stores sessions in a folder.
type Sessions struct{ Dir string }

// New starts a session.
func (ss Sessions) New(model string) *Session {
	now := time.Now().UTC()
	id := newSessionID(now)
	return &Session{ID: id, Model: model, Created: now, Updated: now, path: filepath.Join(ss.Dir, id+".json")}
}

// sessionIDs makes the ids of this process's sessions unique: a program (the SDK, gem acp)
// opens several in the same second.
var sessionIDs struct {
	sync.Mutex
	stamp string
	same  int
}

// newSessionID is the time, the process (a short pid) and, for a second session of the
// process in the same second, its number: names sort as the sessions were made.
func newSessionID(now time.Time) string {
	stamp := now.Format("20060102-150405") + fmt.Sprintf("-%04x", os.Getpid()&0xffff)
	sessionIDs.Lock()
	defer sessionIDs.Unlock()
	if stamp != sessionIDs.stamp {
		sessionIDs.stamp, sessionIDs.same = stamp, 0
		return stamp
	}
	sessionIDs.same++
	return fmt.Sprintf("%s-%03d", stamp, sessionIDs.same)
}

// Load reads a session by id, or the newest with "latest".
func (ss Sessions) Load(id string) (*Session, error) {
	if id == "latest" {
		files := ss.files()
		if len(files) == 0 {
			return nil, fmt.Errorf("no session to resume in %s", ss.Dir)
		}
		id = strings.TrimSuffix(filepath.Base(files[0]), ".json")
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

// files are the sessions' files, the last saved first (the name, which sorts as the
// sessions were made, breaks ties): "latest" is the session used last, not the one made
// last (a program may work in several).
func (ss Sessions) files() []string {
	files, _ := filepath.Glob(filepath.Join(ss.Dir, "*.json"))
	mtime := map[string]time.Time{}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			mtime[f] = st.ModTime()
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if !mtime[files[i]].Equal(mtime[files[j]]) {
			return mtime[files[i]].After(mtime[files[j]])
		}
		return files[i] > files[j]
	})
	return files
}

// List returns the sessions, the last saved first.
func (ss Sessions) List() ([]*Session, error) {
	var out []*Session
	for _, f := range ss.files() {
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
	return fsx.WriteFileAtomic(s.path, data, 0o600)
}

// activateSkillSpec is the tool the model activates a skill with, as in Gemini CLI: gem's
// own (policy rules name it with the extension "gem"), of kind read.
var activateSkillSpec = tools.Spec{
	Name:        "activate_skill",
	Description: "Activates one of the skills listed in the system instruction: its instructions join the system instruction from the next step on, and are returned now.",
	Kind:        tools.KindRead,
	InputSchema: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string","description":"the skill's name"}}}`),
}

// declOf is the model's declaration of a tool the agent runs itself.
func declOf(s tools.Spec) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: s.Name, Description: s.Description, ParametersJsonSchema: s.InputSchema}
}

// ActivateSkill makes the skill named name active in the conversation s; false when there
// is none.
func (a *Agent) ActivateSkill(s *Session, name string) (Skill, bool) {
	for _, sk := range a.Skills {
		if sk.Name != name {
			continue
		}
		if !slices.Contains(s.ActiveSkills, name) {
			s.ActiveSkills = append(s.ActiveSkills, name)
		}
		return sk, true
	}
	return Skill{}, false
}

// activateSkillCall is the activate_skill tool: it runs like every call (BeforeTool and
// AfterTool hooks, the call's events, a result paired with it), its backend the agent's
// skills.
func (a *Agent) activateSkillCall(s *Session, args json.RawMessage) (*tools.Result, error) {
	var in struct {
		Name string `json:"name"`
	}
	json.Unmarshal(args, &in)
	sk, ok := a.ActivateSkill(s, in.Name)
	if !ok {
		var names []string
		for _, s := range a.Skills {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("no skill %q: the skills are %s", in.Name, strings.Join(names, ", "))
	}
	return &tools.Result{Text: "Skill " + sk.Name + " is active. Its instructions:\n\n" + sk.Text}, nil
}

// sessionKey carries the session of a tool call in its context (SessionOf).
type sessionKey struct{}

// SessionOf is the session whose turn made the tool call running under ctx (nil outside a
// turn): the SDK's SessionContext reads it.
func SessionOf(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// fn is the Func named name, when this agent has one (a subagent only those its list allows).
func (a *Agent) fn(name string) (tools.Func, bool) {
	for _, f := range a.Funcs {
		if f.Spec.Name == name {
			return f, true
		}
	}
	return tools.Func{}, false
}

// systemInstruction is System with the program's instructions and the instructions of the
// skills active in s.
func (a *Agent) systemInstruction(ctx context.Context, s *Session) string {
	var b strings.Builder
	b.WriteString(a.System)
	if a.Instructions != nil {
		if extra := a.Instructions(ctx, s); extra != "" {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(extra)
		}
	}
	for _, sk := range a.Skills {
		if !slices.Contains(s.ActiveSkills, sk.Name) {
			continue
		}
		fmt.Fprintf(&b, "\n\n--- Active skill: %s (%s) ---\n%s\n--- End of skill: %s ---", sk.Name, sk.Extension, strings.TrimRight(sk.Text, "\n"), sk.Name)
	}
	return b.String()
}
