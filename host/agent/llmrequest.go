package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools/genaiconv"
)

// declarations are the tools offered to the model: the catalog's (a subagent's: those its
// list allows), activate_skill when there are skills, the tools of the skills active in s,
// the subagents (not to a subagent).
func (a *Agent) declarations(s *Session) []*genai.FunctionDeclaration {
	decls := genaiconv.Declarations(a.Tools)
	if a.only != nil {
		decls = slices.DeleteFunc(decls, func(d *genai.FunctionDeclaration) bool { return !a.only.allows(d.Name) })
	}
	for _, f := range a.Funcs {
		if a.only == nil || a.only.allows(f.Spec.Name) {
			decls = append(decls, declOf(f.Spec))
		}
	}
	if len(a.Skills) > 0 {
		decls = append(decls, declOf(activateSkillSpec))
	}
	if a.webSearch() {
		decls = append(decls, declOf(webSearchSpec))
	}
	skillTools, _ := a.activeSkillTools(s)
	for _, t := range skillTools {
		decls = append(decls, declOf(t.Spec))
	}
	if a.Depth == 0 {
		for _, sa := range a.Subagents {
			decls = append(decls, declOf(sa.spec()))
		}
	}
	return decls
}

// stableRequest is a request in Gemini CLI's stable hook format (LLMRequest): the model, the
// text of the messages, the generation settings and the tool config.
func stableRequest(model string, history []*genai.Content, config *genai.GenerateContentConfig) map[string]any {
	var messages []map[string]any
	if config.SystemInstruction != nil {
		messages = append(messages, map[string]any{"role": "system", "content": textOf(config.SystemInstruction)})
	}
	for _, c := range history {
		if t := textOf(c); t != "" {
			messages = append(messages, map[string]any{"role": c.Role, "content": t})
		}
	}
	gen := map[string]any{}
	if config.Temperature != nil {
		gen["temperature"] = *config.Temperature
	}
	if config.TopP != nil {
		gen["topP"] = *config.TopP
	}
	if config.TopK != nil {
		gen["topK"] = *config.TopK
	}
	if config.MaxOutputTokens != 0 {
		gen["maxOutputTokens"] = config.MaxOutputTokens
	}
	req := map[string]any{"model": model, "messages": messages, "config": gen}
	if tc := config.ToolConfig; tc != nil && tc.FunctionCallingConfig != nil {
		req["toolConfig"] = map[string]any{"mode": string(tc.FunctionCallingConfig.Mode), "allowedFunctionNames": tc.FunctionCallingConfig.AllowedFunctionNames}
	}
	return req
}

// textOf is the text of a content's parts (thoughts left out).
func textOf(c *genai.Content) string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// stableResponse is a response in the stable hook format (LLMResponse).
func stableResponse(c *genai.Content) map[string]any {
	var parts []string
	if c != nil {
		for _, p := range c.Parts {
			if p.Text != "" && !p.Thought {
				parts = append(parts, p.Text)
			}
		}
	}
	return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}}}}
}

// syntheticResponse reads a hook's llm_response: the first candidate's parts, as strings or
// {"text": …} objects.
func syntheticResponse(raw json.RawMessage) *genai.Content {
	var r struct {
		Candidates []struct {
			Content struct {
				Parts []json.RawMessage `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	out := &genai.Content{Role: genai.RoleModel}
	if json.Unmarshal(raw, &r) != nil || len(r.Candidates) == 0 {
		return out
	}
	for _, p := range r.Candidates[0].Content.Parts {
		var text string
		if json.Unmarshal(p, &text) != nil {
			var obj struct {
				Text string `json:"text"`
			}
			json.Unmarshal(p, &obj)
			text = obj.Text
		}
		if text != "" {
			out.Parts = append(out.Parts, genai.NewPartFromText(text))
		}
	}
	return out
}

// replaceText is c with its text parts replaced by those of with (its function calls kept).
func replaceText(c, with *genai.Content) *genai.Content {
	out := &genai.Content{Role: genai.RoleModel, Parts: with.Parts}
	if c != nil {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				out.Parts = append(out.Parts, p)
			}
		}
	}
	return out
}

// applyToolConfig narrows the request's tools as BeforeToolSelection hooks said: NONE
// offers none; a list of names keeps only those (and with ANY the model must call one).
func applyToolConfig(config *genai.GenerateContentConfig, tc *ToolConfig) {
	fc := &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}
	switch tc.Mode {
	case "NONE":
		fc.Mode = genai.FunctionCallingConfigModeNone
	case "ANY":
		fc.Mode = genai.FunctionCallingConfigModeAny
		fc.AllowedFunctionNames = tc.AllowedFunctionNames
	}
	if len(tc.AllowedFunctionNames) > 0 && len(config.Tools) > 0 {
		var kept []*genai.FunctionDeclaration
		for _, d := range config.Tools[0].FunctionDeclarations {
			if slices.Contains(tc.AllowedFunctionNames, d.Name) {
				kept = append(kept, d)
			}
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: kept}}
		if len(kept) == 0 {
			config.Tools, fc.AllowedFunctionNames = nil, nil
			fc.Mode = genai.FunctionCallingConfigModeNone
		}
	}
	config.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
}

// applyRequest applies a BeforeModel hook's llm_request: its model and generation settings
// (temperature, topP, topK, maxOutputTokens); it returns the model to ask.
func applyRequest(model string, config *genai.GenerateContentConfig, req map[string]any) string {
	if req == nil {
		return model
	}
	if m, ok := req["model"].(string); ok && m != "" {
		model = m
	}
	gen, _ := req["config"].(map[string]any)
	num := func(k string) (float64, bool) { v, ok := gen[k].(float64); return v, ok }
	if v, ok := num("temperature"); ok {
		config.Temperature = genai.Ptr(float32(v))
	}
	if v, ok := num("topP"); ok {
		config.TopP = genai.Ptr(float32(v))
	}
	if v, ok := num("topK"); ok {
		config.TopK = genai.Ptr(float32(v))
	}
	if v, ok := num("maxOutputTokens"); ok {
		config.MaxOutputTokens = int32(v)
	}
	return model
}
