package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/oci"
)

// Mirror is a place that holds locked extensions by the hash of their files, as Terraform's
// provider mirrors hold providers: an OCI image layout (a folder, or the .tar gem ext bundle
// writes) or an OCI registry repository (oci://registry/repository). It serves the sources
// matching Include (globs on the source; none: every source) and not Exclude. What a mirror
// gives is checked as the origin's would be (the lock's h1 and archive sha256, the
// signature): a mirror can withhold an extension, never change one.
type Mirror struct {
	Location string   `json:"location"`
	Include  []string `json:"include,omitempty"`
	Exclude  []string `json:"exclude,omitempty"`
	Origin   string   `json:"origin,omitempty"` // where it is configured (GEM_MIRROR, a settings file)
}

func (m Mirror) serves(source string) bool {
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, source); ok {
				return true
			}
		}
		return false
	}
	return (len(m.Include) == 0 || match(m.Include)) && !match(m.Exclude)
}

// mirrorSource is a locked extension fetched from a mirror, as its origin recorded.
type mirrorSource struct {
	in       *Installer
	f        *Fetcher
	m        Mirror
	e        *lockfile.Entry
	platform string
	tag      string
}

func (s *mirrorSource) Fetch(ctx context.Context, staging string, _ Options) (*Fetched, error) {
	p := manifest.HostPlatforms(s.f.Getenv)[0]
	file := filepath.Join(staging, "download")
	var store *oci.Layout
	var err error
	if oci.IsRef(s.m.Location) {
		var ref oci.Ref
		if ref, err = oci.ParseRef(s.m.Location); err == nil {
			store, err = s.f.oci().Open(ref)
		}
	} else {
		store, err = oci.OpenLayout(ctx, s.m.Location)
	}
	if err != nil {
		return nil, err
	}
	pulled, err := store.Pull(ctx, s.tag, manifest.GoOS(p.OS), manifest.GoArch(p.Arch), file)
	if err != nil {
		return nil, err
	}
	ext := ".tar.gz"
	if pulled.Zip {
		ext = ".zip"
	}
	if err := os.Rename(file, file+ext); err != nil {
		return nil, err
	}
	file += ext
	if s.f.Progress != nil {
		fmt.Fprintf(s.f.Progress, "fetched %s from the mirror %s\n", s.e.Source, s.m.Location)
	}
	dir, err := s.f.unpack(file, filepath.Join(staging, "tree"))
	if err != nil {
		return nil, err
	}
	locked := s.e.Platforms[s.platform]
	f := &Fetched{
		Dir:  dir,
		Meta: registry.InstallMetadata{Source: s.e.Source, Type: s.e.Type, Ref: s.e.Ref, ReleaseTag: s.e.ReleaseTag},
		// The commit and digest are the lock's: the files' h1 (and an archive's sha256) is
		// what shows they are what it pinned.
		Commit: s.e.Commit, Digest: s.e.Digest, Asset: locked.Asset,
	}
	if locked.SHA256 != "" { // the origin's archive, kept as published: its bytes are pinned too
		f.Archive = file
	}
	for _, b := range pulled.Bundles {
		f.Bundles = append(f.Bundles, Bundle{Data: b, From: "the mirror " + s.m.Location})
	}
	f.carried = s.in.carriedBy(ctx, s.e, "the mirror "+s.m.Location, store)
	return f, nil
}

func (s *mirrorSource) Newer(context.Context, *registry.Extension, registry.InstallMetadata) (bool, string, error) {
	return true, "", nil
}

// mirrorsFor are the sources of the mirrors that serve e for this platform, in order.
func (in *Installer) mirrorsFor(e *lockfile.Entry) []Source {
	if e == nil || len(in.Mirrors) == 0 {
		return nil
	}
	platform := Platform(in.Env.Getenv)
	p := e.Platforms[platform]
	if p == nil || p.H1 == "" {
		return nil // found by the hash of its files: without one, only its origin has it
	}
	tag, err := oci.MirrorTag(p.H1)
	if err != nil {
		return nil
	}
	f, _ := in.Sources.(*Fetcher)
	if f == nil {
		return nil
	}
	var out []Source
	for _, m := range in.Mirrors {
		if m.serves(e.Source) {
			out = append(out, &mirrorSource{in: in, f: f, m: m, e: e, platform: platform, tag: tag})
		}
	}
	return out
}

// fetchLocked fetches a locked extension from the first mirror that has it (errNoMirror:
// none has it; the caller fetches from the origin).
func (in *Installer) fetchLocked(ctx context.Context, opt Options, staging string) (*Fetched, *registry.Extension, manifest.Problems, error) {
	for _, src := range in.mirrorsFor(opt.Locked) {
		f, x, problems, err := in.fetchChecked(ctx, src, opt, staging, "fetched")
		if err == nil {
			return f, x, problems, nil
		}
		var nf *oci.NotFoundError
		var nl *oci.LayoutError
		if !errors.As(err, &nf) && !errors.As(err, &nl) {
			return nil, nil, nil, err
		}
		emptyFolder(staging)
	}
	return nil, nil, nil, errNoMirror
}

var errNoMirror = errors.New("no mirror has it")

func emptyFolder(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// BundleReport is what gem ext bundle wrote.
type BundleReport struct {
	Path       string   `json:"path"`
	Platform   string   `json:"platform"`
	Extensions []string `json:"extensions"`
	// Payloads are the MCP servers' packages carried (npm name@version, with their trees);
	// NotCarried those left to be fetched when the server starts (a PyPI package).
	Payloads   []string          `json:"payloads,omitempty"`
	NotCarried []string          `json:"notCarried,omitempty"`
	trees      map[string]string // the tree of each payload carried, by its tag
}

// Bundle writes the extensions lock pins (BundleLock chooses them) to an OCI image layout at out (a
// folder, or a .tar of one): each fetched from its origin as gem ext sync would (checked
// against the lock, its signature verified), an archive kept as it was published with its
// signature attached, a git checkout packed, tagged by the hash of its files (MirrorTag);
// and the lock of what it holds (oci.LockTag). It installs with no access to the origins
// (InstallBundle, or as a mirror). For this platform (GEM_PLATFORM/GEM_ARCH choose another).
func (in *Installer) Bundle(ctx context.Context, lock *lockfile.File, out string) (*BundleReport, error) {
	names := lock.Names()
	l, err := in.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	// Written beside out and renamed into place: a killed gem leaves no half-written bundle.
	if _, err := os.Stat(out); err == nil && !strings.HasSuffix(out, ".tar") {
		return nil, fmt.Errorf("%s exists: give a new folder, or a .tar", out)
	}
	dir, err := os.MkdirTemp(filepath.Dir(out), ".gem-bundle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tarred := strings.HasSuffix(out, ".tar")
	layout, err := oci.CreateLayout(dir)
	if err != nil {
		return nil, err
	}
	platform := Platform(in.Env.Getenv)
	held := lockfile.New()
	rep := &BundleReport{Path: out, Platform: platform}
	for _, name := range names {
		if err := in.bundleOne(ctx, layout, name, lock.Extensions[name], platform, held, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rep.Extensions = append(rep.Extensions, name)
	}
	data, err := held.Marshal()
	if err != nil {
		return nil, err
	}
	if err := layout.PutLock(ctx, data); err != nil {
		return nil, err
	}
	if tarred {
		err = oci.WriteTar(dir, out)
	} else {
		err = os.Rename(dir, out)
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// bundleOne fetches e as the lock pins it and writes it to layout.
func (in *Installer) bundleOne(ctx context.Context, layout *oci.Layout, name string, e *lockfile.Entry, platform string, held *lockfile.File, rep *BundleReport) error {
	opt := LockedOptions(e, false)
	opt.Scope = registry.LevelUser
	in.cleanStaleAll(opt.Scope)
	prep, err := in.prepare(ctx, opt, func() (Source, error) {
		return in.Sources.Installed(registry.InstallMetadata{Source: e.Source, Type: e.Type, Ref: e.Ref})
	})
	if prep != nil {
		defer prep.drop()
	}
	if err != nil {
		return err
	}
	var layer oci.Layer
	if prep.f.Archive != "" {
		if layer.Archive, err = os.ReadFile(prep.f.Archive); err != nil {
			return err
		}
		layer.Zip = strings.HasSuffix(strings.ToLower(prep.f.Archive), ".zip")
	} else if layer, err = oci.PackFolder(prep.f.Dir); err != nil {
		return err
	}
	tag, err := oci.MirrorTag(prep.pin.Platforms[platform].H1)
	if err != nil {
		return err
	}
	var bundles [][]byte
	if len(prep.f.Bundles) > 0 {
		bundles = [][]byte{prep.f.Bundles[0].Data}
	}
	if _, err := layout.Push(ctx, tag, prep.x.Name, prep.x.Version, []oci.Layer{layer}, bundles); err != nil {
		return err
	}
	merged, err := lockfile.Merge(name, e, prep.pin)
	if err != nil {
		return err
	}
	if err := in.bundlePayloads(ctx, layout, prep.x, merged, rep); err != nil {
		return err
	}
	held.Extensions[name] = merged
	return nil
}

// InstallBundle installs every extension of a bundle (gem ext bundle's layout) as its lock
// pins it, from the bundle alone, as gem ext sync does.
func (in *Installer) InstallBundle(ctx context.Context, path string, opt SyncOptions) ([]*Result, error) {
	layout, err := oci.OpenLayout(ctx, path)
	if err != nil {
		return nil, err
	}
	data, err := layout.Lock(ctx)
	if err != nil {
		return nil, err
	}
	lock, err := lockfile.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the gem.lock of %s: %w", path, err)
	}
	abs, _ := filepath.Abs(path)
	in.Mirrors = append([]Mirror{{Location: abs, Origin: "the bundle"}}, in.Mirrors...)
	opt.Named = true // the user named the bundle
	return in.Sync(ctx, lock, opt)
}
