package sdk_test

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemhost/gem/sdk"
)

// scripted is a program's own Model: each request gets the next of its replies (one
// response each), and is kept.
type scripted struct {
	replies  [][]*genai.Part
	requests [][]*genai.Content
	models   []string
}

func (m *scripted) Name() string { return "scripted-1" }

func (m *scripted) GenerateContentStream(_ context.Context, model string, contents []*genai.Content, _ *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.requests, m.models = append(m.requests, contents), append(m.models, model)
		if len(m.replies) == 0 {
			yield(nil, errors.New("the script has no reply left"))
			return
		}
		parts := m.replies[0]
		m.replies = m.replies[1:]
		yield(&genai.GenerateContentResponse{
			Candidates:    []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}, FinishReason: genai.FinishReasonStop}},
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 2, TotalTokenCount: 12},
		}, nil)
	}
}

// TestOwnModel: a program's Model stands in for Gemini — no server, no API key: the agent
// sends it the prompt, runs the tool it calls, and sends back the tool's response.
func TestOwnModel(t *testing.T) {
	_, getenv := fakeModel(t) // a home only: the fake is never asked
	noKey := func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") || k == "GEM_GEMINI_BASE_URL" {
			return ""
		}
		return getenv(k)
	}
	m := &scripted{replies: [][]*genai.Part{
		{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "count_words", Args: map[string]any{"text": "one two"}}}},
		{{Text: "Two words."}},
	}}
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: noKey, Settings: sdk.NoSettings,
		Model: m, Tools: []sdk.Tool{countWords}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, _ := a.Session(ctx)
	res, err := s.Send(ctx, "count 'one two'")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Two words." || len(res.ToolCalls) != 1 || res.ToolCalls[0].Output != `{"words":2}` || res.Usage.TotalTokens != 24 {
		t.Errorf("result %+v", res)
	}
	if s.Model() != "scripted-1" || len(m.models) != 2 || m.models[0] != "scripted-1" {
		t.Errorf("model %q, requests to %v", s.Model(), m.models)
	}
	if len(m.requests) != 2 || m.requests[0][0].Parts[0].Text != "count 'one two'" {
		t.Fatalf("requests %v", m.requests)
	}
	last := m.requests[1][len(m.requests[1])-1]
	if r := last.Parts[0].FunctionResponse; r == nil || r.Name != "count_words" {
		t.Errorf("the second request does not answer the call: %+v", last.Parts[0])
	}
}

// TestGeminiBackends: Options.Model takes any genai client configuration — the Gemini API
// with a key and base URL, the environment's key, Vertex AI's project and location, a
// client of the program's — and each request reaches the endpoint that configuration names.
func TestGeminiBackends(t *testing.T) {
	const vertexPath = "/v1beta1/projects/proj-1/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent"
	for _, tc := range []struct {
		name      string
		model     func(url string) sdk.Model
		wantModel string
		wantPath  string
		wantKey   string
	}{
		{"the environment's key", func(string) sdk.Model { return nil }, "gemini-2.5-flash", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "test-key"},
		{"Gemini API key and base URL", func(url string) sdk.Model {
			return sdk.Gemini("gemini-2.5-pro", &genai.ClientConfig{APIKey: "own-key", HTTPOptions: genai.HTTPOptions{BaseURL: url}})
		}, "gemini-2.5-pro", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", "own-key"},
		{"Vertex AI project and location", func(url string) sdk.Model {
			return sdk.Gemini("gemini-2.5-pro", &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "proj-1", Location: "us-central1",
				HTTPClient: &http.Client{}, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
		}, "gemini-2.5-pro", vertexPath, ""},
		{"an injected client", func(url string) sdk.Model {
			c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "injected", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
			if err != nil {
				t.Fatal(err)
			}
			return sdk.GeminiClient("gemini-2.0-flash", c)
		}, "gemini-2.0-flash", "/v1beta/models/gemini-2.0-flash:streamGenerateContent", "injected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, getenv := fakeModel(t, chunks(text("Hi.")))
			ctx := context.Background()
			a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings, Model: tc.model(srv.URL)})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s, _ := a.Session(ctx)
			if res, err := s.Send(ctx, "hello"); err != nil || res.Text != "Hi." {
				t.Fatalf("send: %+v, %v", res, err)
			}
			if s.Model() != tc.wantModel {
				t.Errorf("model %q, want %q", s.Model(), tc.wantModel)
			}
			req := srv.Requests[0]
			if req.Path != tc.wantPath || req.APIKey != tc.wantKey || !strings.Contains(string(req.Body), "hello") {
				t.Errorf("request %s (key %q), want %s (key %q): %s", req.Path, req.APIKey, tc.wantPath, tc.wantKey, req.Body)
			}
		})
	}
	_, getenv := fakeModel(t)
	noKey := func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") {
			return ""
		}
		return getenv(k)
	}
	if _, err := sdk.NewAgent(context.Background(), sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: noKey, Settings: sdk.NoSettings}); !errors.Is(err, sdk.ErrNoAPIKey) {
		t.Errorf("no model and no key: %v, want ErrNoAPIKey", err)
	}
}
