package agent

// gem speaks the Gemini API's streamGenerateContent itself (REST, v1beta, server-sent
// events) for the requests it makes, with genai's types: genai's own path marshals each
// request three times (its types to JSON, to a map, through its converters, to JSON again)
// and each streamed chunk twice more, about 1 ms of a turn gem otherwise answers in less
// (BenchmarkPromptFirstChunk; gem acp's first chunk, #28). The wire format is the API's:
// contents, systemInstruction, tools and toolConfig at the top, sampling settings in
// generationConfig; a chunk is a GenerateContentResponse as JSON on a "data:" line; an error
// is {"error": {code, message, status, details}}, returned as genai.APIError as genai does.
// A request gem's encoder does not cover — another backend (Vertex AI), HTTP options genai
// applies (extra body, headers), or a config field other than those gem sets — goes through
// genai unchanged (TestWireMatchesGenai checks both paths send the same JSON).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"google.golang.org/genai"
)

// wireRequest is a streamGenerateContent request body.
type wireRequest struct {
	Contents          []*genai.Content  `json:"contents"`
	SystemInstruction *genai.Content    `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool     `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig `json:"toolConfig,omitempty"`
	GenerationConfig  *wireGeneration   `json:"generationConfig,omitempty"`
}

// wireGeneration is the request's generationConfig: the sampling settings gem sets.
type wireGeneration struct {
	Temperature     *float32 `json:"temperature,omitempty"`
	TopP            *float32 `json:"topP,omitempty"`
	TopK            *float32 `json:"topK,omitempty"`
	MaxOutputTokens int32    `json:"maxOutputTokens,omitempty"`
}

// wireCovers reports whether gem's encoder sends config as genai would: only the fields gem
// sets (and AutomaticContinuation, which never leaves the client).
func wireCovers(config *genai.GenerateContentConfig) bool {
	if config == nil {
		return true
	}
	rest := *config
	rest.SystemInstruction, rest.Tools, rest.ToolConfig = nil, nil, nil
	rest.Temperature, rest.TopP, rest.TopK, rest.MaxOutputTokens = nil, nil, nil, 0
	rest.AutomaticContinuation = nil
	if !reflect.ValueOf(rest).IsZero() {
		return false
	}
	// Tools: function declarations with JSON Schemas (genai converts its own Schema type),
	// or Google Search grounding as it is by default (google_web_search).
	for _, t := range config.Tools {
		if t != nil && reflect.DeepEqual(*t, genai.Tool{GoogleSearch: &genai.GoogleSearch{}}) {
			continue
		}
		if t == nil || !onlyDeclarations(t) {
			return false
		}
		for _, d := range t.FunctionDeclarations {
			if d == nil || d.Parameters != nil || d.Response != nil {
				return false
			}
		}
	}
	return true
}

// onlyDeclarations: t holds function declarations and nothing else.
func onlyDeclarations(t *genai.Tool) bool {
	rest := *t
	rest.FunctionDeclarations = nil
	return reflect.ValueOf(rest).IsZero()
}

// wireClient is where and how the Gemini API is reached: c's configuration (ok false: a
// backend or options gem's encoder does not cover).
func wireClient(c *genai.Client) (base *url.URL, key string, hc *http.Client, ok bool) {
	cfg := c.ClientConfig()
	o := cfg.HTTPOptions
	if cfg.Backend != genai.BackendGeminiAPI || cfg.APIKey == "" || o.ExtraBody != nil || o.ExtrasRequestProvider != nil ||
		len(o.Headers) > 0 || o.Timeout != nil || o.RetryOptions != nil || o.BaseURL == "" || o.APIVersion == "" {
		return nil, "", nil, false
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil {
		return nil, "", nil, false
	}
	hc = cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return u.JoinPath(o.APIVersion), cfg.APIKey, hc, true
}

// wireModel is the model's resource name, as genai names it for the Gemini API.
func wireModel(model string) (string, error) {
	if model == "" || strings.ContainsAny(model, "?&") || strings.Contains(model, "..") {
		return "", fmt.Errorf("invalid model name %q", model)
	}
	if strings.HasPrefix(model, "models/") || strings.HasPrefix(model, "tunedModels/") {
		return model, nil
	}
	return "models/" + model, nil
}

// generateStream streams model's answer to contents: through gem's own encoder when it
// covers the request, else through genai.
func generateStream(ctx context.Context, c *genai.Client, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	base, key, hc, ok := wireClient(c)
	if !ok || !wireCovers(config) {
		return c.Models.GenerateContentStream(ctx, model, contents, config)
	}
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		body, err := wireBody(contents, config)
		if err != nil {
			yield(nil, err)
			return
		}
		name, err := wireModel(model)
		if err != nil {
			yield(nil, err)
			return
		}
		u := base.JoinPath(name + ":streamGenerateContent")
		u.RawQuery = "alt=sse"
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
		if err != nil {
			yield(nil, err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-goog-api-key", key)
		resp, err := hc.Do(req)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			yield(nil, wireAPIError(resp))
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 64<<20) // a chunk with an image is large
		for sc.Scan() {
			prefix, data, _ := bytes.Cut(sc.Bytes(), []byte(":"))
			if string(prefix) != "data" {
				continue
			}
			r, err := wireResponse(data)
			if !yield(r, err) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// wireBody is the request body of contents and config.
func wireBody(contents []*genai.Content, config *genai.GenerateContentConfig) ([]byte, error) {
	r := wireRequest{Contents: contents}
	if config != nil {
		r.SystemInstruction, r.Tools, r.ToolConfig = config.SystemInstruction, config.Tools, config.ToolConfig
		// genai sends generationConfig whenever there is a config, empty or not.
		r.GenerationConfig = &wireGeneration{Temperature: config.Temperature, TopP: config.TopP, TopK: config.TopK, MaxOutputTokens: config.MaxOutputTokens}
	}
	if r.Contents == nil {
		r.Contents = []*genai.Content{}
	}
	return json.Marshal(r)
}

// wireResponse reads one streamed chunk: a response, or the error the API sent in its place.
func wireResponse(data []byte) (*genai.GenerateContentResponse, error) {
	if bytes.Contains(data, []byte(`"error"`)) {
		var e struct {
			Error *genai.APIError `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != nil {
			return nil, *e.Error
		}
	}
	r := new(genai.GenerateContentResponse)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("reading the model's answer %.200q: %w", data, err)
	}
	if bytes.Contains(data, []byte(`"citationSources"`)) {
		// The REST name of genai's Citations.
		var c struct {
			Candidates []struct {
				CitationMetadata *struct {
					CitationSources []*genai.Citation `json:"citationSources"`
				} `json:"citationMetadata"`
			} `json:"candidates"`
		}
		if json.Unmarshal(data, &c) == nil {
			for i, cand := range c.Candidates {
				if i < len(r.Candidates) && cand.CitationMetadata != nil {
					r.Candidates[i].CitationMetadata = &genai.CitationMetadata{Citations: cand.CitationMetadata.CitationSources}
				}
			}
		}
	}
	return r, nil
}

// wireAPIError is the error a refused request answers, as genai reads it.
func wireAPIError(resp *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading the API's error: %w", err)
	}
	var e struct {
		Error *genai.APIError `json:"error"`
	}
	switch {
	case len(body) == 0:
		return genai.APIError{Code: resp.StatusCode, Status: resp.Status}
	case json.Unmarshal(body, &e) == nil && e.Error != nil:
		return *e.Error
	default:
		return genai.APIError{Code: resp.StatusCode, Status: resp.Status, Message: string(body)}
	}
}
