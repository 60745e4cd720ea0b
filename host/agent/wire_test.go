package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"
)

// wireServer records each request's body and whether genai sent it (genai adds its
// x-goog-api-client header; gem's encoder does not), and answers with reply.
type wireServer struct {
	mu     sync.Mutex
	bodies []string
	genai  []bool
	paths  []string
	status int
	reply  string
}

func (s *wireServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.genai = append(s.genai, r.Header.Get("x-goog-api-client") != "")
	s.paths = append(s.paths, r.URL.Path+"?"+r.URL.RawQuery+" key="+r.Header.Get("x-goog-api-key"))
	status, reply := s.status, s.reply
	s.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		io.WriteString(w, reply)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, reply)
}

func wireTestClient(t *testing.T, s *wireServer) *genai.Client {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// normalJSON decodes a body with numbers as float32 (genai widens float32 settings through
// float64: 0.2 becomes 0.20000000298023224), so both encodings compare by value.
func normalJSON(t *testing.T, s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case float64:
			return float64(float32(x))
		}
		return v
	}
	return walk(v)
}

func collect(seq func(func(*genai.GenerateContentResponse, error) bool)) ([]*genai.GenerateContentResponse, error) {
	var out []*genai.GenerateContentResponse
	for r, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// TestWireMatchesGenai: gem's encoder sends what genai sends for the requests gem makes
// (every kind of part and setting it uses), reads streamed answers and errors as genai
// does, and leaves to genai what it does not cover.
func TestWireMatchesGenai(t *testing.T) {
	ctx := context.Background()
	history := []*genai.Content{
		genai.NewContentFromText("list the files", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "thinking", Thought: true, ThoughtSignature: []byte{1, 2, 3}},
			{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "ls", Args: map[string]any{"path": ".", "depth": 2}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "ls", Response: map[string]any{"output": "a\nb"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("\x89PNG")}}, {Text: "and this"}}},
	}
	temp, topP, topK := float32(0.2), float32(0.9), float32(40)
	for _, tc := range []struct {
		name   string
		config *genai.GenerateContentConfig
		ours   bool
	}{
		{"no config", nil, true},
		{"everything gem sets", &genai.GenerateContentConfig{
			AutomaticContinuation: genai.Ptr(false),
			SystemInstruction:     genai.NewContentFromText("you are gem", genai.RoleUser),
			Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "ls", Description: "lists",
				ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}}}},
			ToolConfig:  &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{"ls"}}},
			Temperature: &temp, TopP: &topP, TopK: &topK, MaxOutputTokens: 100,
		}, true},
		{"a setting gem's encoder does not cover", &genai.GenerateContentConfig{Seed: genai.Ptr(int32(7)), Temperature: &temp}, false},
		{"a declaration with genai's own Schema", &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "ls",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"p": {Type: genai.TypeString}}}}}}}}, false},
		{"google search grounding (google_web_search)", &genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}}}, true},
		{"google search with settings", &genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{SearchTypes: &genai.SearchTypes{}}}}}, false},
		{"a tool other than functions", &genai.GenerateContentConfig{Tools: []*genai.Tool{{CodeExecution: &genai.ToolCodeExecution{}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &wireServer{reply: "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]}}]}\r\n\r\n"}
			c := wireTestClient(t, s)
			if _, err := collect(c.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, tc.config)); err != nil {
				t.Fatal(err)
			}
			got, err := collect(generateStream(ctx, c, "gemini-2.5-flash", history, tc.config))
			if err != nil || len(got) != 1 || got[0].Candidates[0].Content.Parts[0].Text != "Hi" {
				t.Fatalf("%v %v", got, err)
			}
			if s.genai[1] == tc.ours {
				t.Fatalf("sent by genai: %v, want gem's encoder: %v", s.genai[1], tc.ours)
			}
			if s.paths[0] != s.paths[1] {
				t.Errorf("genai asked %s, gem %s", s.paths[0], s.paths[1])
			}
			if a, b := normalJSON(t, s.bodies[0]), normalJSON(t, s.bodies[1]); !reflect.DeepEqual(a, b) {
				t.Errorf("genai sent\n%s\ngem sent\n%s", s.bodies[0], s.bodies[1])
			}
		})
	}

	answers := []struct {
		name, reply string
		status      int
	}{
		{"chunks, usage, citations", "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"a\"}]},\"citationMetadata\":{\"citationSources\":[{\"uri\":\"https://x\",\"startIndex\":1}]}}],\"modelVersion\":\"m\"}\r\n\r\n" +
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"ls\",\"args\":{\"p\":1}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":2,\"totalTokenCount\":5}}\r\n\r\n", 0},
		{"grounding metadata", "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Go 1.26 is out.\"}]},\"finishReason\":\"STOP\",\"groundingMetadata\":{\"webSearchQueries\":[\"go release\"],\"groundingChunks\":[{\"web\":{\"uri\":\"https://go.dev/doc\",\"title\":\"go.dev\"}}],\"groundingSupports\":[{\"segment\":{\"startIndex\":0,\"endIndex\":15,\"text\":\"Go 1.26 is out.\"},\"groundingChunkIndices\":[0],\"confidenceScores\":[0.9]}]}}]}\r\n\r\n", 0},
		{"an error in the stream", "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}\r\n\r\ndata: {\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n", 0},
		{"a refused request", `{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}`, 400},
		{"a refusal that is not JSON", "quota exceeded", 429},
		{"an empty refusal", "", 500},
	}
	for _, tc := range answers {
		t.Run(tc.name, func(t *testing.T) {
			s := &wireServer{reply: tc.reply, status: tc.status}
			c := wireTestClient(t, s)
			want, wantErr := collect(c.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, nil))
			got, gotErr := collect(generateStream(ctx, c, "gemini-2.5-flash", history, nil))
			for _, r := range append(want, got...) {
				r.SDKHTTPResponse = nil // genai's own: the headers
			}
			if !reflect.DeepEqual(want, got) {
				w, _ := json.Marshal(want)
				g, _ := json.Marshal(got)
				t.Errorf("genai read %s\ngem read %s", w, g)
			}
			var wa, ga genai.APIError
			if errors.As(wantErr, &wa) != errors.As(gotErr, &ga) || !reflect.DeepEqual(wa, ga) {
				t.Errorf("genai: %v\ngem: %v", wantErr, gotErr)
			}
			if (wantErr == nil) != (gotErr == nil) {
				t.Errorf("genai: %v, gem: %v", wantErr, gotErr)
			}
		})
	}
	if _, err := wireModel("a?b"); err == nil {
		t.Error("a model name with ? was taken")
	}
	if m, _ := wireModel("tunedModels/x"); m != "tunedModels/x" || !strings.HasPrefix(must(wireModel("gemini")), "models/") {
		t.Error("model names")
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// TestWireDefaultClient: the client gem makes for the real API (no base URL given) is one
// gem's encoder covers, aimed at the Gemini API's v1beta.
func TestWireDefaultClient(t *testing.T) {
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI})
	if err != nil {
		t.Fatal(err)
	}
	base, key, _, ok := wireClient(c)
	if !ok || base.String() != "https://generativelanguage.googleapis.com/v1beta" || key != "k" {
		t.Fatalf("ok %v, base %v", ok, base)
	}
	vertex := &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "p", Location: "us-central1", APIKey: "k"}
	if vc, err := genai.NewClient(context.Background(), vertex); err == nil {
		if _, _, _, ok := wireClient(vc); ok {
			t.Error("a Vertex AI client went through gem's encoder")
		}
	}
}

// FuzzWireResponse: any chunk the API (or something in its place) streams is read into a
// response or an error, never a panic; citations land in their candidate.
func FuzzWireResponse(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]},"citationMetadata":{"citationSources":[{"uri":"u"}]}}]}`))
	f.Add([]byte(`{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`))
	f.Add([]byte(`{"candidates":[],"citationSources":1,"error":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := wireResponse(data)
		if (r == nil) == (err == nil) {
			t.Fatalf("response %v and error %v", r, err)
		}
	})
}

// BenchmarkWire: one streamed request with a coding agent's usual load (a conversation, a
// system prompt, 20 tool declarations) to the first chunk, through gem's encoder and through
// genai's, in one run against the same local server: wire-vs-genai is the ratio.
func BenchmarkWire(b *testing.B) {
	s := &wireServer{reply: "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]}}]}\r\n\r\n"}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	if err != nil {
		b.Fatal(err)
	}
	var decls []*genai.FunctionDeclaration
	for i := range 20 {
		decls = append(decls, &genai.FunctionDeclaration{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("does a thing ", 20),
			ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": "a path"}, "n": map[string]any{"type": "integer"}}, "required": []any{"path"}}})
	}
	config := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(strings.Repeat("You are gem. ", 200), genai.RoleUser), Tools: []*genai.Tool{{FunctionDeclarations: decls}}}
	history := []*genai.Content{genai.NewContentFromText("list the files", genai.RoleUser), genai.NewContentFromText("Here they are.", genai.RoleModel), genai.NewContentFromText("and now?", genai.RoleUser)}
	ctx := context.Background()
	first := func(seq func(func(*genai.GenerateContentResponse, error) bool)) {
		for _, err := range seq {
			if err != nil {
				b.Fatal(err)
			}
			break
		}
	}
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		first(generateStream(ctx, c, "gemini-2.5-flash", history, config))
		ours += time.Since(t0)
		t0 = time.Now()
		first(c.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, config))
		theirs += time.Since(t0)
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N), "wire-us")
	b.ReportMetric(float64(theirs.Microseconds())/float64(b.N), "genai-us")
	b.ReportMetric(float64(ours)/float64(theirs), "wire-vs-genai")
}
