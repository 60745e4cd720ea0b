package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/gemhost/gem/manifest"
)

// Extension is one discovered extension.
type Extension struct {
	Name         string             // manifest name, else the folder name
	Dir          string             // the folder found under the root
	Path         string             // the extension path: Dir, or the linked source folder
	ManifestPath string             // absolute path of the manifest that was read
	Manifest     *manifest.Manifest // parsed document
	LoadProblems manifest.Problems  // type problems found while reading fields
	Level        Level
	Provider     *Provider
	Root         string           // the root folder it was found in
	Install      *InstallMetadata // .gemini-extension-install.json, when present

	Shadowed   bool
	ShadowedBy *Extension // the winner, when shadowed

	Enabled   bool
	EnabledBy string // the enablement rule that decided, or "default"
}

// Linked reports whether the extension was installed with `link`.
func (x *Extension) Linked() bool { return x.Install != nil && x.Install.Type == "link" }

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
	dir      string
	name     string // folder name
	root     string
	level    Level
	provider *Provider
}

// Discover scans the roots of every provider (highest priority first, each in its scan order),
// loads each direct child's manifest, applies shadowing and then enablement for env.Cwd.
func Discover(env Env, providers []Provider) *Discovery {
	ordered := slices.Clone(providers)
	slices.SortStableFunc(ordered, func(a, b Provider) int { return b.Priority - a.Priority })

	d := &Discovery{Env: env}
	var cands []candidate
	seenRoot := map[string]bool{}
	for i := range ordered {
		p := &ordered[i]
		for _, r := range p.Roots {
			root := env.Dir(r)
			if seenRoot[root] {
				continue
			}
			seenRoot[root] = true
			cands = appendChildren(cands, root, r.Level, p)
		}
	}

	items := make([]*Extension, len(cands))
	warns := make([]string, len(cands))
	load := func(i int) { items[i], warns[i] = loadCandidate(cands[i]) }
	workers := min(runtime.GOMAXPROCS(0), len(cands)/64+1)
	if workers <= 1 {
		for i := range cands {
			load(i)
		}
	} else {
		var wg sync.WaitGroup
		var next int
		var mu sync.Mutex
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= len(cands) {
						return
					}
					load(i)
				}
			}()
		}
		wg.Wait()
	}

	winners := make(map[string]*Extension, len(items))
	for i, x := range items {
		if warns[i] != "" {
			d.Warnings = append(d.Warnings, warns[i])
		}
		if x == nil {
			continue
		}
		if w, ok := winners[x.Name]; ok {
			x.Shadowed, x.ShadowedBy = true, w
		} else {
			winners[x.Name] = x
		}
		d.All = append(d.All, x)
	}
	d.Warnings = append(d.Warnings, applyEnablement(env, d.All)...)
	return d
}

// appendChildren lists the direct child folders of root (symlinks to folders included,
// hidden ones kept). A missing or unreadable root is silently empty.
func appendChildren(cands []candidate, root string, level Level, p *Provider) []candidate {
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
		cands = append(cands, candidate{dir: filepath.Join(root, e.Name()), name: e.Name(), root: root, level: level, provider: p})
	}
	return cands
}

// loadCandidate reads one child folder. It returns nil for a folder to skip, and a warning
// for invalid JSON.
func loadCandidate(c candidate) (*Extension, string) {
	x := &Extension{Dir: c.dir, Path: c.dir, Level: c.level, Provider: c.provider, Root: c.root}
	meta, err := ReadInstallMetadata(c.dir)
	if err != nil {
		var se *manifest.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Sprintf("Invalid JSON in %s: %v", filepath.Join(c.dir, InstallMetadataFile), se)
		}
	}
	x.Install = meta
	if meta != nil && meta.Type == "link" && meta.Source != "" {
		x.Path = meta.Source
	}
	x.ManifestPath = filepath.Join(x.Path, manifest.FileName)
	data, err := os.ReadFile(x.ManifestPath)
	if err != nil {
		if x.Linked() {
			return nil, fmt.Sprintf("Linked extension %s: its source %s has no readable %s; link it again or run `gem ext uninstall %s`",
				c.dir, x.Path, manifest.FileName, c.name)
		}
		return nil, ""
	}
	m, problems, err := manifest.Parse(data)
	if err != nil {
		return nil, "Invalid JSON in " + x.ManifestPath + ": " + err.Error()
	}
	x.Manifest, x.LoadProblems = m, problems
	x.Name = c.name
	if m.NameSet {
		x.Name = m.Name
	}
	return x, ""
}
