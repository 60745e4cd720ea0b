package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
	// CommandFile is how its prompt commands under commands/ end: ".toml" (Gemini CLI's),
	// ".md" (Claude Code's, read with manifest/claude.Command).
	CommandFile string
	// BinOnPath: its bin/ folder goes first on its own programs' PATH (Claude Code's).
	BinOnPath bool
}

// Formats are the formats gem reads, in the order a folder is tried.
var Formats = []*Format{
	{ID: "gemini", Name: "Gemini CLI extension", ManifestFile: manifest.FileName, CommandFile: ".toml"},
	{ID: "claude", Name: "Claude Code plugin", ManifestFile: claude.ManifestFile, CommandFile: ".md", BinOnPath: true},
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

// format is the format x was read in (FormatGemini for one made otherwise: settings).
func (x *Extension) format() *Format {
	if x.Format == nil {
		return FormatGemini
	}
	return x.Format
}

// Hooks is the extension's hooks file in gem's format (hooks/hooks.json; another format's
// converted), and nil when it has none. An error names the file.
func (x *Extension) Hooks() ([]byte, error) {
	if x.format().ID == "claude" {
		plugin, err := x.ReadOwn(x.Format.ManifestFile)
		if err != nil {
			return nil, err
		}
		doc, _, err := claude.HooksOf(plugin, x.ReadOwn)
		if err != nil {
			err = fmt.Errorf("%s: %w", x.Path, err)
		}
		return doc, err
	}
	data, err := os.ReadFile(filepath.Join(x.Path, "hooks", "hooks.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
