package install

import (
	"os"
	"path/filepath"

	"github.com/gemhost/gem/registry"
)

// Where an extension is installed (its format's root) and what may stand in its way there:
// see the package doc.

// root is the folder gem installs extensions of format f into at scope ("" is the user's):
// Gemini CLI's for its own format, gem's for the formats only gem reads
// (registry.Env.InstallRoot). Every fetch is staged beside Gemini CLI's (f nil), then moved
// beside its format's (relocate).
func (in *Installer) root(scope registry.Level, f *registry.Format) string {
	return in.Env.InstallRoot(scope, f)
}

// cleanStaleAll removes what killed runs left in the staging folders of every root of scope.
func (in *Installer) cleanStaleAll(scope registry.Level) {
	for _, root := range in.Env.InstallRoots(scope) {
		cleanStale(root)
	}
}

// drop removes the staging folders of prep.
func (prep *prepared) drop() {
	dropStaging(prep.staging)
	if prep.moved != "" {
		dropStaging(prep.moved)
	}
}

// relocate moves the staged extension beside the root its format installs into when it was
// staged beside another (a Claude Code plugin is fetched beside Gemini CLI's root and
// installs into gem's), so that the final rename stays on one filesystem; across
// filesystems it is copied.
func (in *Installer) relocate(prep *prepared, scope registry.Level) error {
	root := in.root(scope, prep.x.Format)
	if stagingDir(root) == filepath.Dir(prep.staging) {
		return nil
	}
	staging, err := newStaging(root)
	if err != nil {
		return err
	}
	prep.moved = staging
	dir := filepath.Join(staging, "tree")
	if err := os.Rename(prep.f.Dir, dir); err != nil {
		if err := copyTree(prep.f.Dir, dir, nil); err != nil {
			return err
		}
	}
	x, err := registry.LoadFolder(dir)
	if err != nil {
		return err
	}
	x.Version, x.VersionRecorded = prep.x.Version, prep.x.VersionRecorded
	prep.f.Dir, prep.x = dir, x
	return nil
}

// clash is why an extension named name from meta may not go to dest: one of that name is
// there (exists), or other is at the same level in another root. Nil when nothing clashes.
// One from the same source is an *AlreadyInstalledError (update it), another's a
// *NameClashError.
func clash(name, dest string, exists bool, other *registry.Extension, level registry.Level, meta registry.InstallMetadata) error {
	dir, installed := dest, registry.InstallMetadata{}
	switch {
	case exists:
		if m, _ := registry.ReadInstallMetadata(dest); m != nil {
			installed = *m
		}
	case other != nil && other.Level == level:
		dir = other.Dir
		if m := other.Install(); m != nil {
			installed = *m
		}
	default:
		return nil
	}
	if installed.Source == meta.Source && installed.Source != "" {
		return &AlreadyInstalledError{Name: name, Path: dir}
	}
	e := &NameClashError{Name: name, Path: dir, InstalledSource: installed.Source, Source: meta.Source}
	e.Qualified, _ = qualifiedName(name, meta)
	return e
}

// qualifiedName is name qualified by the marketplace meta's plugin came from:
// name@marketplace (registry.Qualify).
func qualifiedName(name string, meta registry.InstallMetadata) (string, error) {
	_, market, ok := SplitPluginRef(meta.Source)
	if meta.Type != "marketplace" || !ok {
		return "", &NotQualifiableError{Name: name, Source: meta.Source}
	}
	return registry.Qualify(name, market), nil
}

// sameNameElsewhere is an extension named name in another folder than dest: at level first
// (it clashes), else at the other level (one shadows the other), else nil.
func (in *Installer) sameNameElsewhere(name, dest string, level registry.Level) *registry.Extension {
	var other *registry.Extension
	for _, x := range registry.Discover(in.Env, registry.Providers).All {
		if x.Name != name || x.Dir == dest {
			continue
		}
		if x.Level == level {
			return x
		}
		if other == nil {
			other = x
		}
	}
	return other
}
