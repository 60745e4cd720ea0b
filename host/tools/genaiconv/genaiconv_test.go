package genaiconv

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
)

// decoded is a schema as its JSON decodes.
func decoded(schema any) any {
	data, _ := json.Marshal(schema)
	var v any
	json.Unmarshal(data, &v)
	return v
}

func TestDeclaration(t *testing.T) {
	schema := `{"type":"object","properties":{"text":{"type":"string","description":"what"}},"required":["text"],"additionalProperties":false}`
	tests := []struct {
		name, schema string
		want         any
	}{
		{"echo", schema, map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "what"}}, "required": []any{"text"}, "additionalProperties": false}},
		{"broken", `not json`, map[string]any{"type": "object"}},
		{"empty", ``, map[string]any{"type": "object"}},
		{"not an object", `[1]`, map[string]any{"type": "object"}},
	}
	for _, tt := range tests {
		tl := &tools.Tool{Name: tt.name, Spec: tools.Spec{Description: "d " + tt.name, InputSchema: json.RawMessage(tt.schema)}}
		d := Declaration(tl)
		if d.Name != tt.name || d.Description != "d "+tt.name || !reflect.DeepEqual(decoded(d.ParametersJsonSchema), tt.want) || d.Parameters != nil {
			t.Errorf("%s: %+v", tt.name, d)
		}
		// It serialises as the Gemini API expects: parametersJsonSchema, raw.
		data, _ := json.Marshal(d)
		var back map[string]any
		json.Unmarshal(data, &back)
		if !reflect.DeepEqual(back["parametersJsonSchema"], tt.want) {
			t.Errorf("%s: wire form %s", tt.name, data)
		}
	}
}

func TestResponse(t *testing.T) {
	tests := []struct {
		name    string
		res     *tools.Result
		callErr error
		want    map[string]any
	}{
		{"text", &tools.Result{Text: "hi"}, nil, map[string]any{"output": "hi"}},
		{"structured", &tools.Result{Text: "2", Structured: json.RawMessage(`{"n":2}`)}, nil, map[string]any{"output": "2", "structured": map[string]any{"n": float64(2)}}},
		{"tool error", &tools.Result{Error: &tools.ResultError{Type: "not_found", Message: "no job 3"}}, nil, map[string]any{"error": "not_found: no job 3"}},
		{"call error", nil, errors.New("invalid arguments for echo: \"text\" is required"), map[string]any{"error": "invalid arguments for echo: \"text\" is required"}},
	}
	for _, tt := range tests {
		r := Response("call-1", "echo", tt.res, tt.callErr)
		if r.ID != "call-1" || r.Name != "echo" || !reflect.DeepEqual(r.Response, tt.want) {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}

func TestArgs(t *testing.T) {
	got, err := Args(&genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "x", "times": 2}})
	if err != nil || string(got) != `{"text":"x","times":2}` {
		t.Fatalf("%s %v", got, err)
	}
	if got, _ := Args(&genai.FunctionCall{Name: "jobs"}); string(got) != "{}" {
		t.Fatalf("no args: %s", got)
	}
}

// TestResponseMedia: a result's media go as the response's inline data parts, and stay
// inside for Gemini 3 models, beside the responses for older ones.
func TestResponseMedia(t *testing.T) {
	res := &tools.Result{Text: "[image/png pic.png, 3 bytes: attached]", Media: []tools.Media{{MIMEType: "image/png", Data: []byte("png")}}}
	r := Response("c1", "read_file", res, nil)
	if len(r.Parts) != 1 || r.Parts[0].InlineData.MIMEType != "image/png" || string(r.Parts[0].InlineData.Data) != "png" {
		t.Fatalf("%+v", r.Parts)
	}
	data, _ := json.Marshal(r)
	if want := `"parts":[{"inlineData":{"mimeType":"image/png","data":"cG5n"}}]`; !bytes.Contains(data, []byte(want)) {
		t.Errorf("wire form %s", data)
	}
	if r := Response("c1", "read_file", res, errors.New("x")); len(r.Parts) != 0 {
		t.Errorf("a failed call carries media: %+v", r.Parts)
	}
	plain := &genai.Part{FunctionResponse: &genai.FunctionResponse{Name: "glob", Response: map[string]any{"output": "a"}}}
	tests := []struct {
		model  string
		inside bool
	}{
		{"gemini-3-pro-preview", true},
		{"models/gemini-3-flash", true},
		{"gemini-2.5-flash", false},
	}
	for _, tt := range tests {
		got := MediaSiblings(tt.model, []*genai.Part{{FunctionResponse: r}, plain})
		switch {
		case tt.inside && (len(got) != 2 || len(got[0].FunctionResponse.Parts) != 1):
			t.Errorf("%s: %+v", tt.model, got)
		case !tt.inside && (len(got) != 3 || len(got[0].FunctionResponse.Parts) != 0 || got[1] != plain || got[2].InlineData == nil || string(got[2].InlineData.Data) != "png"):
			t.Errorf("%s: %+v", tt.model, got)
		}
	}
	if len(r.Parts) != 1 {
		t.Error("MediaSiblings changed the response it was given")
	}
}
