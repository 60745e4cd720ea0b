package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/suggest"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/claude"
	"github.com/gemhost/gem/registry/lockfile"
)

// Extension is one discovered extension. Discovery reads each manifest once and decodes
// only what listing needs (name, version, description); the full manifest is decoded on
// first use of Manifest, and install metadata on first use of Install.
type Extension struct {
	Name    string // manifest name, else the folder name
	Version string // manifest version when it is a string (else see VersionRecorded)
	// VersionRecorded: the manifest names no version (optional in its format) and Version is
	// the one its install recorded (InstallMetadata.Version), else Unversioned.
	VersionRecorded bool
	Description     string   // manifest description when it is a string
	CommandNames    []string // names of the manifest's executable commands, sorted
	CommandBinaries []string // their binary templates, in the same order
	BinaryWarnings  []string // "Binary not found for command …", with Options.CheckBinaries
	Dir             string   // the folder found under the root
	Path            string   // the extension path: Dir, or the linked source folder
	ManifestPath    string   // absolute path of the manifest that was read
	Format          *Format  // the layout it was read in (FormatGemini for gemini-extension.json)
	Level           Level
	Provider        *Provider
	Root            string // the root folder it was found in

	Shadowed   bool
	ShadowedBy *Extension // the winner, when shadowed

	Enabled   bool
	EnabledBy string // the enablement rule that decided, or "default"
	// Synthetic: made by gem from the user's own settings (their mcpServers), not found on
	// disk; what the user wrote there is their consent.
	Synthetic bool

	// Blocked says why none of its programs run here (untrusted folder, no consent, bad
	// name); Active combines it with Shadowed and Enabled.
	Blocked Block
	// Conflict: a project extension shadowed by a user one of the same name (in an
	// untrusted folder, or not agreed to, a cloned repository's extension must not take an
	// installed one's place; or lower in the discovery order).
	Conflict bool

	lazy atomic.Pointer[lazyState] // made on first use: listing 1,000 extensions never needs it
}

// lazyState is what an Extension reads only when asked.
type lazyState struct {
	manifestOnce sync.Once
	manifest     *manifest.Manifest
	loadProblems manifest.Problems
	installOnce  sync.Once
	install      *InstallMetadata
	consentMu    sync.Mutex
	consent      ConsentState // "" until read
	consented    *manifest.Manifest
	agreedVars   []string        // host variables the agreed manifest names
	pin          *lockfile.Entry // what the agreed install pinned (its receipt's Pin)
	notes        []manifest.Note // what converting another format's manifest did
}

func (x *Extension) state() *lazyState {
	if s := x.lazy.Load(); s != nil {
		return s
	}
	x.lazy.CompareAndSwap(nil, &lazyState{})
	return x.lazy.Load()
}

// Manifest returns the parsed manifest, read again and decoded in full on first use
// (discovery keeps only the head, so listing 1,000 extensions holds little memory). If the
// file changed into invalid JSON since discovery, the manifest is empty and LoadProblems
// says why.
func (x *Extension) Manifest() *manifest.Manifest {
	st := x.state()
	st.manifestOnce.Do(func() {
		data, err := readFile(x.ManifestPath)
		if err != nil {
			st.manifest, _ = manifest.Load(map[string]any{})
			st.loadProblems = manifest.Problems{{Severity: manifest.Error, Want: "cannot read " + x.ManifestPath + ": " + err.Error()}}
			return
		}
		if f := x.format(); f.Convert != nil {
			var doc []byte
			if f.CommandFile == ".md" {
				defer func() { st.notes = append(st.notes, x.commandNotes()...) }()
			}
			if doc, st.notes, err = x.convert(data); err != nil {
				st.manifest, _ = manifest.Load(map[string]any{})
				st.loadProblems = manifest.Problems{{Severity: manifest.Error, Want: "Invalid JSON in " + x.ManifestPath + ": " + err.Error()}}
				return
			}
			data = doc
		}
		m, problems, err := manifest.Parse(data)
		if err != nil {
			m, _ = manifest.Load(map[string]any{})
			problems = manifest.Problems{{Severity: manifest.Error, Want: "Invalid JSON in " + x.ManifestPath + ": " + err.Error()}}
		}
		st.manifest, st.loadProblems = m, problems
	})
	return st.manifest
}

// ManifestText is the manifest as gem reads it: gemini-extension.json's text, or for
// another format the gemini-extension.json it converts to (what consent and receipts keep,
// so a changed .mcp.json of a Claude Code plugin asks again).
func (x *Extension) ManifestText() ([]byte, error) {
	data, err := readFile(x.ManifestPath)
	if err != nil || x.format().Convert == nil {
		return data, err
	}
	doc, _, err := x.convert(data)
	return doc, err
}

// convert is another format's manifest (data) as gemini-extension.json, with the version
// gem gives it when it names none (VersionRecorded), and what became of each component.
func (x *Extension) convert(data []byte) ([]byte, []manifest.Note, error) {
	doc, notes, err := x.format().Convert(data, x.own())
	if err != nil || !x.VersionRecorded || x.Version == "" {
		return doc, notes, err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(doc, &fields) != nil {
		return doc, notes, nil
	}
	fields["version"], _ = json.Marshal(x.Version)
	if doc, err = json.MarshalIndent(fields, "", "  "); err != nil {
		return nil, nil, err
	}
	became := x.Version + ", recorded at install (its marketplace entry's version, else its git commit's)"
	if x.Version == Unversioned {
		became = Unversioned + ": its install recorded none (no marketplace entry's version, no git commit)"
	}
	return doc, append([]manifest.Note{{Component: "version", Became: "none in " + path.Base(x.format().ManifestFile) + ": " + became}}, notes...), nil
}

// recordedVersion gives x, when its manifest names no version and its format allows that,
// the version meta recorded, else Unversioned.
func (x *Extension) recordedVersion(meta *InstallMetadata) {
	if x.Version != "" || !x.format().VersionOptional {
		return
	}
	x.Version, x.VersionRecorded = Unversioned, true
	if meta != nil && meta.Version != "" {
		x.Version = meta.Version
	}
}

// FormatNotes says what reading another format's manifest as gem's did: each component
// converted, and each dropped with the reason (none for a Gemini extension).
// A folder that carries several formats' manifests is one extension, read in the first
// format of Formats it holds; the others are said here, not read.
func (x *Extension) FormatNotes() []manifest.Note {
	x.Manifest()
	notes := x.state().notes
	seen := map[string]bool{x.format().ID: true}
	for _, f := range Formats {
		if seen[f.ID] || x.Path == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(x.Path, filepath.FromSlash(f.ManifestFile))); err == nil && fi.Mode().IsRegular() {
			seen[f.ID] = true
			notes = append(slices.Clip(notes), manifest.Note{Component: f.ManifestFile,
				Became: "the folder is also " + article(f.Name) + ": read once, as " + article(x.format().Name) + " (its manifest comes first)", Dropped: true})
		}
	}
	return notes
}

// commandNotes are what became of a Claude Code plugin's commands/**/*.md: each a prompt
// command, and what of it gem does not apply.
func (x *Extension) commandNotes() []manifest.Note {
	var notes []manifest.Note
	root := filepath.Join(x.Path, "commands")
	filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || filepath.Ext(path) != ".md" {
			return nil
		}
		rel, _ := filepath.Rel(x.Path, path)
		rel = filepath.ToSlash(rel)
		data, err := x.ReadOwn(rel)
		if err != nil {
			return nil
		}
		name := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(rel, "commands/"), ".md"), "/", ":")
		notes = append(notes, manifest.Note{Component: rel, Became: "prompt command /" + name})
		_, _, dropped := claude.Command(data)
		for _, d := range dropped {
			notes = append(notes, manifest.Note{Component: rel, Became: d, Dropped: true})
		}
		return nil
	})
	return notes
}

// article is name with "a" or "an" before it.
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// ReadOwn reads a file of the extension by its slash-separated path inside its folder:
// never out of it (no .., no link out), at most 1 MiB.
func (x *Extension) ReadOwn(rel string) ([]byte, error) {
	return fsx.ReadBeneath(x.Path, filepath.FromSlash(rel), 1<<20)
}

// LoadProblems returns the type problems found while reading the manifest's fields.
func (x *Extension) LoadProblems() manifest.Problems {
	x.Manifest()
	return x.state().loadProblems
}

// Install returns .gemini-extension-install.json of the extension's folder, or nil.
func (x *Extension) Install() *InstallMetadata {
	st := x.state()
	st.installOnce.Do(func() { st.install, _ = ReadInstallMetadata(x.Dir) })
	return st.install
}

// Linked reports whether the extension was installed with `link`.
func (x *Extension) Linked() bool { i := x.Install(); return i != nil && i.Type == "link" }

// Qualify is the name of a marketplace's plugin installed beside another extension of its
// name: plugin@marketplace, as Claude Code names every plugin. Its folder has that name, and
// discovery gives a folder named "<manifest name>@…" that name (Gemini CLI's names hold no
// "@", so no extension of its own takes it).
func Qualify(name, marketplace string) string { return name + "@" + marketplace }

// BaseName is name without the marketplace that qualifies it (Qualify).
func BaseName(name string) string {
	base, _, _ := strings.Cut(name, "@")
	return base
}

// head is what discovery decodes of every manifest.
type head struct {
	Name        any `json:"name"`
	Version     any `json:"version"`
	Description any `json:"description"`
	Commands    map[string]struct {
		Binary string `json:"binary"` // a non-string is a type error, tolerated here
	} `json:"commands"`
}

// setHead decodes data's head into x (name with the folder-name fallback). It returns a
// syntax error for invalid JSON.
func (x *Extension) setHead(data []byte, folder string) error {
	var h head
	if err := json.Unmarshal(data, &h); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			_, _, perr := manifest.Parse(data) // for the position and hint
			if perr == nil {
				perr = err
			}
			return perr
		}
	}
	x.Name = folder
	switch n := h.Name.(type) {
	case string:
		x.Name = n
	case float64:
		x.Name = strconv.FormatFloat(n, 'f', -1, 64)
	case bool:
		x.Name = strconv.FormatBool(n)
	}
	if base, _, ok := strings.Cut(folder, "@"); ok && base == x.Name {
		x.Name = folder // installed under its qualified name (Qualify)
	}
	x.Version, _ = h.Version.(string)
	x.Description, _ = h.Description.(string)
	if len(h.Commands) > 0 && (x.Format == nil || x.Format == FormatGemini) { // only gem's format declares executable commands
		x.CommandNames = make([]string, 0, len(h.Commands))
		for c := range h.Commands {
			x.CommandNames = append(x.CommandNames, c)
		}
		slices.Sort(x.CommandNames)
		x.CommandBinaries = make([]string, len(x.CommandNames))
		for i, c := range x.CommandNames {
			x.CommandBinaries[i] = h.Commands[c].Binary
		}
	}
	return nil
}

// Discovery is the result of scanning every root: all items in priority and scan order
// (shadowed ones included, marked), and the warnings to show the user.
type Discovery struct {
	All      []*Extension
	Warnings []string
	Env      Env
}

// Effective returns the extensions that are not shadowed, in discovery order.
func (d *Discovery) Effective() []*Extension {
	out := make([]*Extension, 0, len(d.All))
	for _, x := range d.All {
		if !x.Shadowed {
			out = append(out, x)
		}
	}
	return out
}

// NotFoundError: no effective extension has that name here. Similar is the name the user
// probably meant, or "".
type NotFoundError struct{ Name, Similar string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no extension named %q here", e.Name) }

// Get returns the effective extension with that name, or a *NotFoundError.
func (d *Discovery) Get(name string) (*Extension, error) {
	if x := d.Find(name); x != nil {
		return x, nil
	}
	var names []string
	for _, x := range d.Effective() {
		names = append(names, x.Name)
	}
	return nil, &NotFoundError{Name: name, Similar: suggest.Closest(name, names)}
}

// Find returns the effective extension with that name, or nil.
func (d *Discovery) Find(name string) *Extension {
	for _, x := range d.All {
		if !x.Shadowed && x.Name == name {
			return x
		}
	}
	return nil
}

type candidate struct {
	rootDir  *dirHandle
	index    *rootIndex
	dir      string
	name     string // folder name
	root     string
	level    Level
	provider *Provider
}

// Discover scans the roots of every provider (highest priority first, each in its scan order),
// loads each direct child's manifest, applies shadowing and then enablement for env.Cwd.
func Discover(env Env, providers []Provider) *Discovery {
	return DiscoverWith(env, providers, Options{})
}

// Options tune a discovery.
type Options struct {
	// CheckBinaries looks for every command's binary (Extension.BinaryWarnings), in the
	// parallel scan, relative to the open root folder: `gem ext list` warns about missing ones.
	CheckBinaries bool
}

// DiscoverWith is Discover with options.
func DiscoverWith(env Env, providers []Provider, opt Options) *Discovery {
	ordered := slices.Clone(providers)
	slices.SortStableFunc(ordered, func(a, b Provider) int { return b.Priority - a.Priority })

	d := &Discovery{Env: env}
	var cands []candidate
	var handles []*dirHandle
	var indexes []*rootIndex
	defer func() {
		for _, h := range handles {
			h.Close()
		}
	}()
	seenRoot := map[string]bool{}
	for i := range ordered {
		p := &ordered[i]
		for _, r := range p.Roots {
			root := env.Dir(r)
			if seenRoot[root] {
				continue
			}
			seenRoot[root] = true
			h, err := openDir(root)
			if err != nil {
				continue // a missing or unreadable root is silently empty
			}
			handles = append(handles, h)
			ix := loadRootIndex(indexPath(env, root))
			indexes = append(indexes, ix)
			before := len(cands)
			cands = appendChildren(cands, h, r.Level, p)
			for i := before; i < len(cands); i++ {
				cands[i].index = ix
			}
		}
	}

	items := make([]*Extension, len(cands))
	warns := make([]string, len(cands))
	hits := make([]bool, len(cands))
	store := make([]Extension, len(cands)) // one allocation for every item
	load := func(i int) {
		items[i], warns[i], hits[i] = loadCandidate(cands[i], &store[i])
		if opt.CheckBinaries && items[i] != nil && len(items[i].CommandNames) > 0 {
			items[i].BinaryWarnings = items[i].missingCommandBinaries(env, cands[i].rootDir, cands[i].name)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(cands)/64+1)
	if workers <= 1 {
		for i := range cands {
			load(i)
		}
	} else {
		var wg sync.WaitGroup
		var next atomic.Int64
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(cands) {
						return
					}
					load(i)
				}
			}()
		}
		wg.Wait()
	}

	now := time.Now()
	for _, ix := range indexes {
		if !ix.changed() {
			continue
		}
		var hitFolders []string
		for i, c := range cands {
			if c.index == ix && hits[i] {
				hitFolders = append(hitFolders, c.name)
			}
		}
		ix.save(now, hitFolders)
	}

	for i, x := range items {
		if warns[i] != "" {
			d.Warnings = append(d.Warnings, warns[i])
		}
		if x != nil {
			d.All = append(d.All, x)
		}
	}
	applyShadowing(env, d.All)
	d.Warnings = append(d.Warnings, applyEnablement(env, d.All)...)
	applyTrust(env, d.All)
	return d
}

// appendChildren lists the direct child folders of root (symlinks to folders included,
// hidden ones kept). A missing or unreadable root is silently empty.
func appendChildren(cands []candidate, h *dirHandle, level Level, p *Provider) []candidate {
	root := h.path
	entries, err := os.ReadDir(root)
	if err != nil {
		return cands
	}
	for _, e := range entries {
		t := e.Type()
		if t&fs.ModeSymlink != 0 {
			fi, err := os.Stat(filepath.Join(root, e.Name()))
			if err != nil || !fi.IsDir() {
				continue
			}
		} else if !t.IsDir() {
			continue
		}
		cands = append(cands, candidate{rootDir: h, dir: root + string(filepath.Separator) + e.Name(), name: e.Name(), root: root, level: level, provider: p})
	}
	return cands
}

// loadCandidate reads one child folder into x. It returns nil for a folder to skip, a
// warning for invalid JSON, and whether the discovery index answered.
func loadCandidate(c candidate, x *Extension) (_ *Extension, warning string, hit bool) {
	x.Dir, x.Path, x.Level, x.Provider, x.Root = c.dir, c.dir, c.level, c.provider, c.root
	x.Format = FormatGemini
	rel := c.name + "/" + manifest.FileName
	id, statOK := c.rootDir.stat(rel)
	for _, f := range Formats[1:] { // a folder without gemini-extension.json: another format's?
		if statOK {
			break
		}
		if fid, ok := c.rootDir.stat(c.name + "/" + f.ManifestFile); ok {
			x.Format, rel, id, statOK = f, c.name+"/"+f.ManifestFile, fid, true
		}
	}
	x.ManifestPath = c.dir + string(filepath.Separator) + filepath.FromSlash(x.Format.ManifestFile)
	if statOK && c.index != nil {
		if e, hit := c.index.lookup(c.name, id); hit {
			x.Name, x.Version, x.Description = e.name, e.version, e.description
			for i := 0; i+1 < len(e.commands); i += 2 {
				x.CommandNames = append(x.CommandNames, e.commands[i])
				x.CommandBinaries = append(x.CommandBinaries, e.commands[i+1])
			}
			x.recordedVersionIn(c)
			return x, "", true
		}
	}
	data, err := c.rootDir.readSmall(rel)
	if err == nil && statOK && c.index != nil {
		if err := x.setHead(data, c.name); err != nil {
			return nil, "Invalid JSON in " + x.ManifestPath + ": " + err.Error(), false
		}
		var cmds []string
		for i, n := range x.CommandNames {
			cmds = append(cmds, n, x.CommandBinaries[i])
		}
		c.index.store(c.name, indexEntry{id: id, name: x.Name, version: x.Version, description: x.Description, commands: cmds})
		x.recordedVersionIn(c) // the manifest's own version is what the index keeps
		return x, "", false
	}
	if err != nil {
		// No manifest in the folder: a linked extension keeps only its install metadata.
		meta, merr := readInstallMetadata(c.rootDir, c.name+"/"+InstallMetadataFile)
		if merr != nil {
			var se *manifest.SyntaxError
			if errors.As(merr, &se) {
				return nil, fmt.Sprintf("Invalid JSON in %s: %v", filepath.Join(c.dir, InstallMetadataFile), se), false
			}
		}
		if meta == nil || meta.Type != "link" || meta.Source == "" {
			if !errors.Is(err, fs.ErrNotExist) {
				// There, but not readable (permissions): skipped, and said so.
				return nil, fmt.Sprintf("cannot read %s: %v: the extension in %s is skipped until its permissions let you read it", x.ManifestPath, errors.Unwrap(err), c.dir), false
			}
			return nil, "", false // no manifest: not an extension
		}
		st := x.state()
		st.installOnce.Do(func() { st.install = meta })
		x.Path = meta.Source
		for _, f := range Formats {
			x.Format, x.ManifestPath = f, filepath.Join(x.Path, filepath.FromSlash(f.ManifestFile))
			if data, err = os.ReadFile(x.ManifestPath); err == nil {
				break
			}
		}
		if err != nil {
			x.Format, x.ManifestPath = FormatGemini, filepath.Join(x.Path, manifest.FileName)
			return nil, fmt.Sprintf("Linked extension %s: its source %s has no readable %s; link it again, or uninstall %s",
				c.dir, x.Path, manifest.FileName, c.name), false
		}
	}
	if err := x.setHead(data, c.name); err != nil {
		return nil, "Invalid JSON in " + x.ManifestPath + ": " + err.Error(), false
	}
	x.recordedVersionIn(c)
	return x, "", false
}

// recordedVersionIn is recordedVersion with the install metadata of c's folder (read only
// when the manifest names no version).
func (x *Extension) recordedVersionIn(c candidate) {
	if x.Version != "" || !x.format().VersionOptional {
		return
	}
	meta, _ := readInstallMetadata(c.rootDir, c.name+"/"+InstallMetadataFile)
	x.recordedVersion(meta)
}
