package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/antigravity"
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
	// Convert makes the gemini-extension.json equivalent of its manifest (data), reading
	// the extension's other files through the folder; the notes say what became of each
	// component, hooks included. Nil for gem's own format.
	Convert func(data []byte, own Folder) ([]byte, []manifest.Note, error)
	// Hooks is its hooks in gem's hooks.json format, nil when it has none; nil for a format
	// whose hooks are hooks/hooks.json already.
	Hooks func(data []byte, own Folder) ([]byte, error)
}

// Folder reads an extension's own files, never out of its folder: Read a file, List the
// files of a folder (slash-separated paths relative to the extension's folder).
type Folder struct {
	Read func(rel string) ([]byte, error)
	List func(dir string) ([]string, error)
}

// Formats are the formats gem reads, in the order a folder is tried.
var Formats = []*Format{
	{ID: "gemini", Name: "Gemini CLI extension", ManifestFile: manifest.FileName, CommandFile: ".toml"},
	{ID: "claude", Name: "Claude Code plugin", ManifestFile: claude.ManifestFile, CommandFile: ".md", BinOnPath: true,
		Convert: func(data []byte, own Folder) ([]byte, []manifest.Note, error) {
			doc, notes, err := claude.Convert(data, own.Read)
			if _, hooks, herr := claude.HooksOf(data, own.Read); herr == nil {
				notes = append(notes, hooks...)
			}
			return doc, notes, err
		},
		Hooks: func(data []byte, own Folder) ([]byte, error) {
			doc, _, err := claude.HooksOf(data, own.Read)
			return doc, err
		}},
	// An Antigravity plugin's manifest is at its root or in .antigravity-plugin/: one
	// format read from either place.
	antigravityFormat(antigravity.AltManifestFile),
	antigravityFormat(antigravity.ManifestFile),
}

func antigravityFormat(file string) *Format {
	return &Format{ID: "antigravity", Name: "Antigravity plugin", ManifestFile: file, CommandFile: ".toml",
		Convert: func(data []byte, own Folder) ([]byte, []manifest.Note, error) {
			doc, notes, err := antigravity.Convert(data, own.Read, own.List)
			if _, hooks, herr := antigravity.Hooks(own.Read); herr == nil {
				notes = append(notes, hooks...)
			}
			return doc, notes, err
		},
		Hooks: func(_ []byte, own Folder) ([]byte, error) {
			doc, _, err := antigravity.Hooks(own.Read)
			return doc, err
		}}
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
	if f := x.format(); f.Hooks != nil {
		data, err := x.ReadOwn(f.ManifestFile)
		if err != nil {
			return nil, err
		}
		doc, err := f.Hooks(data, x.own())
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

// own is the extension's folder as its format's converter reads it.
func (x *Extension) own() Folder {
	return Folder{Read: x.ReadOwn, List: x.listOwn}
}

// listOwn names the files of a folder of the extension (dir slash-separated, relative to
// its folder): none when it is missing or not a folder of its own (a link out).
func (x *Extension) listOwn(dir string) ([]string, error) {
	full := filepath.Join(x.Path, filepath.FromSlash(dir))
	if fi, err := os.Lstat(full); err != nil || !fi.IsDir() {
		return nil, nil
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out, nil
}
