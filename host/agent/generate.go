package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"
)

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
		span := startRequest(ctx, model)
		content, usage, err = a.generateWithRetry(ctx, model, s.History, &config)
		endRequest(span, usage, err)
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
