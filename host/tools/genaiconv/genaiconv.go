// Package genaiconv converts the host's tools and their results to the Gemini API's types
// (google.golang.org/genai): a tool becomes a FunctionDeclaration whose ParametersJsonSchema
// is the tool's raw JSON Schema, and a result becomes a FunctionResponse whose Response map
// has "output" (the model text, plus "structured" when the tool gave some) or "error", the
// keys the Gemini API documents, and the result's Media as the response's parts (inline
// data: the API's multimodal function responses; MediaSiblings moves them beside the
// response for models that do not take them inside). It lives apart from package tools so that only the agent
// links the genai module.
package genaiconv

import (
	"bytes"
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
)

// Declaration is the FunctionDeclaration of t, under its catalog name.
func Declaration(t *tools.Tool) *genai.FunctionDeclaration {
	// The schema goes as its JSON text (genai encodes it as is): parsing it into maps on
	// every request, for genai to encode again, cost more than the rest of the turn.
	var schema any = json.RawMessage(`{"type":"object"}`)
	if in := bytes.TrimSpace(t.Spec.InputSchema); len(in) > 0 && in[0] == '{' && json.Valid(in) {
		schema = json.RawMessage(in)
	}
	return &genai.FunctionDeclaration{Name: t.Name, Description: t.Spec.Description, ParametersJsonSchema: schema}
}

// Declarations converts every tool of r, in the catalog's order.
func Declarations(r *tools.Catalog) []*genai.FunctionDeclaration {
	list := r.List()
	out := make([]*genai.FunctionDeclaration, 0, len(list))
	for _, t := range list {
		out = append(out, Declaration(t))
	}
	return out
}

// Response is the FunctionResponse answering the model's call id of tool name. callErr is a
// failure of the call itself (invalid arguments, crash, timeout), which the model also sees
// as an error so it can correct itself.
func Response(id, name string, res *tools.Result, callErr error) *genai.FunctionResponse {
	resp := map[string]any{}
	switch {
	case callErr != nil:
		resp["error"] = callErr.Error()
	case res.Error != nil:
		resp["error"] = res.Error.Summary()
		if res.Text != "" {
			resp["output"] = res.Text
		}
	default:
		resp["output"] = res.Text
		if len(res.Structured) > 0 {
			var v any
			if json.Unmarshal(res.Structured, &v) == nil {
				resp["structured"] = v
			}
		}
	}
	fr := &genai.FunctionResponse{ID: id, Name: name, Response: resp}
	if callErr == nil && res != nil {
		for _, m := range res.Media {
			fr.Parts = append(fr.Parts, genai.NewFunctionResponsePartFromBytes(m.Data, m.MIMEType))
		}
	}
	return fr
}

// MediaSiblings is parts (a turn's function responses) for model: Gemini 3 models take
// media inside a function response; older ones only as parts of their own, so there each
// response's media moves out to inline data parts after the responses (Gemini CLI's
// choice: supportsMultimodalFunctionResponse).
func MediaSiblings(model string, parts []*genai.Part) []*genai.Part {
	if strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3") {
		return parts
	}
	var out, media []*genai.Part
	for _, p := range parts {
		if p == nil || p.FunctionResponse == nil || len(p.FunctionResponse.Parts) == 0 {
			out = append(out, p)
			continue
		}
		fr := *p.FunctionResponse
		for _, m := range fr.Parts {
			if m.InlineData != nil {
				media = append(media, &genai.Part{InlineData: &genai.Blob{MIMEType: m.InlineData.MIMEType, Data: m.InlineData.Data}})
			}
		}
		fr.Parts = nil
		out = append(out, &genai.Part{FunctionResponse: &fr})
	}
	return append(out, media...)
}

// Args decodes a FunctionCall's arguments back to the JSON the catalog validates.
func Args(call *genai.FunctionCall) (json.RawMessage, error) {
	if call.Args == nil {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(call.Args)
}
