package registry

import "path/filepath"

// Level says whether an extension belongs to the user or to the project (the cwd).
type Level string

const (
	LevelUser    Level = "user"
	LevelProject Level = "project"
)

// Base names the folder a root is relative to.
type Base string

const (
	BaseCwd        Base = "cwd"         // the current directory (the project root; no walk up)
	BaseGemHome    Base = "gem-home"    // $GEM_HOME or ~/.gem
	BaseGeminiHome Base = "gemini-home" // $GEMINI_CLI_HOME or ~ (the folder holding .gemini)
)

// RootSpec is one root of a provider, as data.
type RootSpec struct {
	Base  Base
	Path  string // relative to Base
	Level Level
}

// Provider is a source of extensions: an id, a display name, a priority (higher wins on
// duplicate names) and its roots in scan order.
type Provider struct {
	ID         string
	Name       string
	Priority   int
	Roots      []RootSpec
	Enablement RootSpec // where its extension-enablement.json lives
}

// Providers is the table of providers gem ships. Adding a provider (another agent's layout)
// is adding an entry here.
var Providers = []Provider{
	{
		ID: "native", Name: "gem", Priority: 100,
		Roots: []RootSpec{
			{Base: BaseCwd, Path: ".gem/extensions", Level: LevelProject},
			{Base: BaseGemHome, Path: "extensions", Level: LevelUser},
		},
		Enablement: RootSpec{Base: BaseGemHome, Path: "extension-enablement.json"},
	},
	{
		ID: "gemini", Name: "Gemini CLI", Priority: 60,
		Roots: []RootSpec{
			{Base: BaseGeminiHome, Path: ".gemini/extensions", Level: LevelUser},
			{Base: BaseCwd, Path: ".gemini/extensions", Level: LevelProject},
		},
		Enablement: RootSpec{Base: BaseGeminiHome, Path: ".gemini/extensions/extension-enablement.json"},
	},
	{
		// Antigravity (agy) installs plugins here; gem reads them as it reads Gemini CLI's
		// extensions (a plugin of the project's .agents/plugins under the same folder trust
		// and consent). gem keeps their enablement in its own home, never in agy's config.
		ID: "antigravity", Name: "Antigravity", Priority: 50,
		Roots: []RootSpec{
			{Base: BaseGeminiHome, Path: ".gemini/config/plugins", Level: LevelUser},
			{Base: BaseCwd, Path: ".agents/plugins", Level: LevelProject},
		},
		Enablement: RootSpec{Base: BaseGemHome, Path: "antigravity-enablement.json"},
	},
}

// Dir resolves a root spec against an environment.
func (e Env) Dir(r RootSpec) string {
	var base string
	switch r.Base {
	case BaseCwd:
		base = e.Cwd
	case BaseGemHome:
		base = e.GemHome
	case BaseGeminiHome:
		base = e.GeminiHome
	}
	return filepath.Join(base, filepath.FromSlash(r.Path))
}

// ProviderByID returns the provider with that id from the table, or nil.
func ProviderByID(providers []Provider, id string) *Provider {
	for i := range providers {
		if providers[i].ID == id {
			return &providers[i]
		}
	}
	return nil
}
