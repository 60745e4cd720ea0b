package settings

import "fmt"

// WebSearchAlias is the model alias of google_web_search's requests in Gemini CLI's model
// configuration (modelConfigs): the tool asks for the alias, not the session's model.
const WebSearchAlias = "web-search"

// DefaultWebSearchModel is the model Gemini CLI 0.61's built-in web-search alias resolves to
// (it extends gemini-3-flash-base).
const DefaultWebSearchModel = "gemini-3-flash-preview"

// builtinAliases are the built-in aliases of Gemini CLI 0.61 a custom web-search alias may
// extend, with the model each resolves to ("" : none of its own, its parent's).
var builtinAliases = map[string]modelAlias{
	"base":                  {},
	"chat-base":             {Extends: "base"},
	"gemini-2.5-flash-base": {Extends: "base", ModelConfig: modelConfig{Model: "gemini-2.5-flash"}},
	"gemini-3-flash-base":   {Extends: "base", ModelConfig: modelConfig{Model: "gemini-3-flash-preview"}},
	"gemini-3.5-flash-base": {Extends: "base", ModelConfig: modelConfig{Model: "gemini-3.5-flash"}},
	WebSearchAlias:          {Extends: "gemini-3-flash-base"},
}

type modelConfig struct {
	Model string `json:"model"`
}

type modelAlias struct {
	Extends     string      `json:"extends"`
	ModelConfig modelConfig `json:"modelConfig"`
}

type modelOverride struct {
	Match struct {
		Model         string `json:"model"`
		OverrideScope string `json:"overrideScope"`
	} `json:"match"`
	ModelConfig modelConfig `json:"modelConfig"`
}

// modelConfigs is Gemini CLI's modelConfigs key, as far as gem reads it: which model the
// web-search alias names.
type modelConfigs struct {
	CustomAliases   map[string]modelAlias `json:"customAliases"`
	Overrides       []modelOverride       `json:"overrides"`
	CustomOverrides []modelOverride       `json:"customOverrides"`
}

// resolveAlias is the model alias name resolves to among custom (which replace built-in
// aliases of their name, as in Gemini CLI) and the built-in ones: its own model, else its
// parent's; "" when none in the chain names one. A cycle is an error.
func resolveAlias(name string, custom map[string]modelAlias) (string, error) {
	seen, child := map[string]bool{}, ""
	for name != "" {
		if seen[name] {
			return "", fmt.Errorf("alias %q extends itself", name)
		}
		seen[name] = true
		a, ok := custom[name]
		if !ok {
			a, ok = builtinAliases[name]
		}
		if !ok {
			return "", fmt.Errorf("alias %q extends %q, which is no alias", child, name)
		}
		if a.ModelConfig.Model != "" {
			return a.ModelConfig.Model, nil
		}
		child, name = name, a.Extends
	}
	return "", nil
}

// webSearchModel is the model one file's modelConfigs give the web-search alias, and the
// key that set it ("" when the file does not): an override matching the alias (the last
// of overrides then customOverrides) wins over a custom alias.
func (m modelConfigs) webSearchModel() (model, key string, err error) {
	for _, list := range []struct {
		key string
		o   []modelOverride
	}{{"modelConfigs.overrides", m.Overrides}, {"modelConfigs.customOverrides", m.CustomOverrides}} {
		for _, o := range list.o {
			if o.Match.Model == WebSearchAlias && o.Match.OverrideScope == "" && o.ModelConfig.Model != "" {
				model, key = o.ModelConfig.Model, list.key
			}
		}
	}
	if model != "" {
		return model, key, nil
	}
	if _, ok := m.CustomAliases[WebSearchAlias]; !ok {
		return "", "", nil
	}
	key = "modelConfigs.customAliases." + WebSearchAlias
	model, err = resolveAlias(WebSearchAlias, m.CustomAliases)
	if err != nil {
		return "", key, err
	}
	return model, key, nil
}

// mergeModelConfigs applies one file's modelConfigs.
func (s *Settings) mergeModelConfigs(path string, m modelConfigs) {
	model, key, err := m.webSearchModel()
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s: %v: skipped (web search uses %s)", path, key, err, DefaultWebSearchModel))
		return
	}
	if model == "" {
		return
	}
	s.WebSearchModel = model
	s.setOne(key, path, "modelConfigs.overrides", "modelConfigs.customOverrides", "modelConfigs.customAliases."+WebSearchAlias)
}
