package registry

import (
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/claude"
)

// Format is a layout of an extension folder gem reads: where its manifest sits. A folder
// is read in the first format whose manifest it holds; every format becomes gem's
// extension model (Extension.Manifest converts). Adding a format is adding an entry here,
// beside the providers, and its converter beside package manifest.
type Format struct {
	ID           string
	Name         string // as the user reads it: "Claude Code plugin"
	ManifestFile string // slash-separated, relative to the extension folder
}

// Formats are the formats gem reads, in the order a folder is tried.
var Formats = []*Format{
	{ID: "gemini", Name: "Gemini CLI extension", ManifestFile: manifest.FileName},
	{ID: "claude", Name: "Claude Code plugin", ManifestFile: claude.ManifestFile},
}

// FormatGemini is gem's own (Gemini CLI's) format.
var FormatGemini = Formats[0]

// FormatOf is the format of id, or nil.
func FormatOf(id string) *Format {
	for _, f := range Formats {
		if f.ID == id {
			return f
		}
	}
	return nil
}
