package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/errdef"
)

// FileMediaType is a layer of a files artifact: one plain file, named by its title.
const FileMediaType = "application/vnd.gem.file.v1"

// maxFiles bounds how many files one files artifact may hold.
const maxFiles = 20000

// PutFiles stores the files names of dir as one artifact of artifactType under tag (a layer
// per file, titled with its name): what a bundle carries beside extensions (the payloads of
// their MCP servers). Reproducible: the same files give the same digest.
func (l *Layout) PutFiles(ctx context.Context, tag, artifactType, dir string, names []string) error {
	if l.w == nil {
		return fmt.Errorf("%s is open to read only", l.Path)
	}
	if len(names) > maxFiles {
		return fmt.Errorf("%s: %d files, more than %d", tag, len(names), maxFiles)
	}
	var layers []ocispec.Descriptor
	for _, name := range names {
		if !plainName(name) {
			return fmt.Errorf("%s: %q is not a plain file name", tag, name)
		}
		desc, err := putFile(ctx, l.w, filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("writing %s to %s: %w", name, l.Path, err)
		}
		desc.Annotations = map[string]string{ocispec.AnnotationTitle: name}
		layers = append(layers, desc)
	}
	m, err := oras.PackManifest(ctx, l.w, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{
		Layers: layers, ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
	})
	if err != nil {
		return err
	}
	return l.w.Tag(ctx, m, tag)
}

// putFile streams file into the store as a FileMediaType blob.
func putFile(ctx context.Context, w oras.Target, file string) (ocispec.Descriptor, error) {
	f, err := os.Open(file)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	defer f.Close()
	d, err := digest.SHA256.FromReader(f)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc := ocispec.Descriptor{MediaType: FileMediaType, Digest: d, Size: fi.Size()}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ocispec.Descriptor{}, err
	}
	if err := w.Push(ctx, desc, f); err != nil && !isAlreadyExists(err) {
		return ocispec.Descriptor{}, err
	}
	return desc, nil
}

// GetFiles fetches the files artifact of artifactType tagged tag into dir, each checked
// against its digest, and returns their names (*NotFoundError: the layout has none).
func (l *Layout) GetFiles(ctx context.Context, tag, artifactType, dir string) ([]string, error) {
	return getFiles(ctx, l.r, l.Path+":"+tag, tag, artifactType, dir)
}

func getFiles(ctx context.Context, repo oras.ReadOnlyGraphTarget, name, reference, artifactType, dir string) ([]string, error) {
	fail := func(op string, err error) ([]string, error) {
		if errors.Is(err, errdef.ErrNotFound) {
			return nil, &NotFoundError{Ref: name}
		}
		return nil, &Error{Op: op, Ref: name, Err: err}
	}
	desc, err := repo.Resolve(ctx, reference)
	if err != nil {
		return fail("resolving", err)
	}
	var m ocispec.Manifest
	if err := fetchJSON(ctx, repo, desc, &m); err != nil {
		return fail("reading the manifest of", err)
	}
	if m.ArtifactType != artifactType {
		return nil, &NotExtensionError{Ref: name, Got: m.ArtifactType}
	}
	if len(m.Layers) > maxFiles {
		return nil, &Error{Op: "reading", Ref: name, Err: fmt.Errorf("it holds %d files, more than %d", len(m.Layers), maxFiles)}
	}
	seen := map[string]bool{}
	var names []string
	for _, l := range m.Layers {
		title := l.Annotations[ocispec.AnnotationTitle]
		if l.MediaType != FileMediaType || !plainName(title) || seen[title] {
			return nil, &Error{Op: "reading", Ref: name, Err: fmt.Errorf("its layer %s is not a plain file of its own name (%q)", l.Digest, title)}
		}
		if l.Size > maxLayer {
			return nil, &Error{Op: "reading", Ref: name, Err: fmt.Errorf("its file %s is larger than 1 GiB", title)}
		}
		seen[title] = true
		if err := fetchTo(ctx, repo, l, filepath.Join(dir, title)); err != nil {
			return fail("pulling "+title+" of", err)
		}
		names = append(names, title)
	}
	return names, nil
}

// plainName: a file name with no folder, not hidden, that no file system reads as another.
func plainName(name string) bool {
	return name != "" && len(name) <= 255 && !strings.HasPrefix(name, ".") && filepath.Base(name) == name &&
		!strings.ContainsAny(name, "/\\\x00:")
}

// Has: the layout holds something tagged tag.
func (l *Layout) Has(ctx context.Context, tag string) bool {
	_, err := l.r.Resolve(ctx, tag)
	return err == nil
}
