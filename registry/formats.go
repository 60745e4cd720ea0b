package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

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
	// InstallsInto is the provider whose roots gem installs it into: "gemini" for what Gemini
	// CLI loads too (its ~/.gemini/extensions, which it shares with gem), "native" (gem's own
	// roots) for what only gem reads — Gemini CLI warns about every folder of its root it
	// cannot load, at every command.
	InstallsInto string
	// VersionOptional: its manifest may name no version (Claude Code's, Antigravity's); the
	// extension's version is then the one its install recorded (InstallMetadata.Version),
	// else Unversioned.
	VersionOptional bool
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
	{ID: "gemini", Name: "Gemini CLI extension", ManifestFile: manifest.FileName, CommandFile: ".toml", InstallsInto: "gemini"},
	{ID: "claude", Name: "Claude Code plugin", ManifestFile: claude.ManifestFile, CommandFile: ".md", BinOnPath: true,
		InstallsInto: "native", VersionOptional: true,
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
		InstallsInto: "native", VersionOptional: true,
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

// Unversioned is the version of an extension whose manifest names none (where its format
// allows that) and whose install recorded none: a plugin from a local folder that is no git
// checkout, or linked. Claude Code says "unknown" there; gem says what it is.
const Unversioned = "unversioned"

// InstallRoot is the folder gem installs an extension of format f into at level: the root
// of level of the provider f installs into (FormatGemini's when f is nil); any level but
// the project's is the user's.
func (e Env) InstallRoot(level Level, f *Format) string {
	if f == nil {
		f = FormatGemini
	}
	if level != LevelProject {
		level = LevelUser
	}
	p := ProviderByID(Providers, f.InstallsInto)
	for _, r := range p.Roots {
		if r.Level == level {
			return e.Dir(r)
		}
	}
	return ""
}

// InstallRoots are every folder gem installs extensions of level into, each once.
func (e Env) InstallRoots(level Level) []string {
	var out []string
	for _, f := range Formats {
		if r := e.InstallRoot(level, f); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// ProviderOfRoot is the provider one of whose roots is root, or nil.
func (e Env) ProviderOfRoot(root string) *Provider {
	for i := range Providers {
		for _, r := range Providers[i].Roots {
			if e.Dir(r) == filepath.Clean(root) {
				return &Providers[i]
			}
		}
	}
	return nil
}

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
