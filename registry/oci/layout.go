package oci

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	orasoci "oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"
)

// LockArtifactType is the artifact holding the gem.lock of a bundle (tag LockTag).
const (
	LockArtifactType = "application/vnd.gem.lock.v1+json"
	LockTag          = "gem.lock"
)

// MirrorTag is the tag a mirror or a bundle gives an extension: the hash of its files (the
// lock's h1 for a platform) in hex, so what a lock pins is found by what it pins.
func MirrorTag(h1 string) (string, error) {
	sum, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h1, "h1:"))
	if err != nil || !strings.HasPrefix(h1, "h1:") || len(sum) != 32 {
		return "", fmt.Errorf("%q is not an h1: hash", h1)
	}
	return "h1-" + hex.EncodeToString(sum), nil
}

// Layout is a store holding extensions (and files artifacts) by tag: an OCI image layout — a
// folder (written by CreateLayout), or a folder or .tar of one opened to read (OpenLayout) —
// or a registry repository opened to read (Client.Open).
type Layout struct {
	Path string
	r    oras.ReadOnlyGraphTarget
	w    *orasoci.Store
}

// CreateLayout makes an empty layout in the folder dir to write to.
func CreateLayout(dir string) (*Layout, error) {
	s, err := orasoci.New(dir)
	if err != nil {
		return nil, err
	}
	return &Layout{Path: dir, r: s, w: s}, nil
}

// OpenLayout opens the layout at path (a folder or a tar of one) to read.
func OpenLayout(ctx context.Context, path string) (*Layout, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var s oras.ReadOnlyGraphTarget
	if fi.IsDir() {
		s, err = orasoci.NewFromFS(ctx, os.DirFS(path))
	} else {
		s, err = orasoci.NewFromTar(ctx, path)
	}
	if err != nil {
		return nil, &LayoutError{Path: path, Err: err}
	}
	return &Layout{Path: path, r: s}, nil
}

// Open opens ref's repository to read as a Layout (Pull, Has, GetFiles by tag), with the
// user's credentials.
func (c *Client) Open(ref Ref) (*Layout, error) {
	repo, err := c.repository(ref)
	if err != nil {
		return nil, err
	}
	return &Layout{Path: ref.Repository(), r: repo}, nil
}

// LayoutError is a file that is not an OCI image layout.
type LayoutError struct {
	Path string
	Err  error
}

func (e *LayoutError) Error() string {
	return fmt.Sprintf("%s is not an OCI image layout: %v", e.Path, e.Err)
}
func (e *LayoutError) Unwrap() error { return e.Err }

// Push writes an extension to the layout under tag (as Client.Push does to a registry).
func (l *Layout) Push(ctx context.Context, tag, name, version string, layers []Layer, bundles [][]byte) (*Pushed, error) {
	if l.w == nil {
		return nil, fmt.Errorf("%s is open to read only", l.Path)
	}
	out, err := push(ctx, l.w, tag, name, version, layers, bundles)
	if err != nil {
		return nil, fmt.Errorf("writing %s to %s: %w", name, l.Path, err)
	}
	out.Ref = l.Path + ":" + tag
	return out, nil
}

// Pull fetches the extension tagged tag for goos/goarch into file.
func (l *Layout) Pull(ctx context.Context, tag, goos, goarch, file string) (*Pulled, error) {
	return pull(ctx, l.r, l.Path+":"+tag, tag, goos, goarch, file)
}

// PutLock stores a lock file's bytes under LockTag.
func (l *Layout) PutLock(ctx context.Context, data []byte) error {
	if l.w == nil {
		return fmt.Errorf("%s is open to read only", l.Path)
	}
	layer := content.NewDescriptorFromBytes("application/json", data)
	if err := pushOnce(ctx, l.w, layer, data); err != nil {
		return err
	}
	m, err := oras.PackManifest(ctx, l.w, oras.PackManifestVersion1_1, LockArtifactType, oras.PackManifestOptions{
		Layers: []ocispec.Descriptor{layer}, ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
	})
	if err != nil {
		return err
	}
	return l.w.Tag(ctx, m, LockTag)
}

// Lock returns the lock file's bytes stored under LockTag.
func (l *Layout) Lock(ctx context.Context) ([]byte, error) {
	desc, err := l.r.Resolve(ctx, LockTag)
	if errors.Is(err, errdef.ErrNotFound) {
		return nil, &LayoutError{Path: l.Path, Err: errors.New("it holds no gem.lock")}
	}
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := fetchJSON(ctx, l.r, desc, &m); err != nil {
		return nil, err
	}
	if m.ArtifactType != LockArtifactType || len(m.Layers) != 1 || m.Layers[0].Size > maxManifest {
		return nil, &LayoutError{Path: l.Path, Err: errors.New("its gem.lock is not one gem wrote")}
	}
	return content.FetchAll(ctx, l.r, m.Layers[0])
}

// WriteTar writes the layout folder dir as a tar at file (reproducible, as writeTar):
// staged beside it and renamed into place.
func WriteTar(dir, file string) error {
	files, err := listFiles(dir)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".gem-bundle-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeTar(tmp, dir, files, func(string) bool { return true }); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
