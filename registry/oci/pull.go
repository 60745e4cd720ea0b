package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
)

var errorsIs = errors.Is

// Pulled is an extension's layer for one platform, fetched and checked against its digest.
type Pulled struct {
	Zip      bool   // the layer is a zip (else a tar+gzip)
	Digest   string // what the reference resolved to (the index's, or the manifest's)
	Manifest string // the platform manifest's digest
	Layer    string // the layer's digest (sha256:…)
	Name     string
	Version  string
	// Bundles are the Sigstore bundles attached to the manifest as referrers.
	Bundles [][]byte
}

// maxBlob bounds a layer or a bundle's size (as archives are bounded).
const (
	maxLayer     = 1 << 30
	maxManifest  = 4 << 20
	maxReferrers = 16
)

// Pull fetches ref's layer for goos/goarch into file (the manifest with that platform, else
// one with none), and the signatures attached to it.
func (c *Client) Pull(ctx context.Context, ref Ref, goos, goarch, file string) (*Pulled, error) {
	repo, err := c.repository(ref)
	if err != nil {
		return nil, err
	}
	return pull(ctx, repo, ref.String(), ref.Reference.Reference, goos, goarch, file)
}

// pull fetches the layer of reference (a tag or digest of repo, named name in errors).
func pull(ctx context.Context, repo oras.ReadOnlyGraphTarget, name, reference, goos, goarch, file string) (*Pulled, error) {
	ref := struct{ s string }{name}
	fail := func(op string, err error) (*Pulled, error) {
		if errors.Is(err, errdef.ErrNotFound) {
			return nil, &NotFoundError{Ref: ref.s}
		}
		return nil, &Error{Op: op, Ref: ref.s, Err: err}
	}
	top, err := repo.Resolve(ctx, reference)
	if err != nil {
		return fail("resolving", err)
	}
	out := &Pulled{Digest: top.Digest.String()}
	desc := top
	if top.MediaType == ocispec.MediaTypeImageIndex {
		var index ocispec.Index
		if err := fetchJSON(ctx, repo, top, &index); err != nil {
			return fail("reading the index of", err)
		}
		out.Name, out.Version = index.Annotations[ocispec.AnnotationTitle], index.Annotations[ocispec.AnnotationVersion]
		var any *ocispec.Descriptor
		var have []string
		found := false
		for i, m := range index.Manifests {
			have = append(have, platformString(m.Platform))
			switch {
			case m.Platform == nil && any == nil:
				any = &index.Manifests[i]
			case m.Platform != nil && m.Platform.OS == goos && m.Platform.Architecture == goarch:
				desc, found = m, true
			}
		}
		if !found && any != nil {
			desc, found = *any, true
		}
		if !found {
			sort.Strings(have)
			return nil, &NoPlatformError{Ref: ref.s, Platform: goos + "/" + goarch, Platforms: have}
		}
	}
	var m ocispec.Manifest
	if err := fetchJSON(ctx, repo, desc, &m); err != nil {
		return fail("reading the manifest of", err)
	}
	if m.ArtifactType != ArtifactType || len(m.Layers) != 1 || m.Layers[0].MediaType != LayerMediaType && m.Layers[0].MediaType != LayerMediaTypeZip {
		return nil, &NotExtensionError{Ref: ref.s, Got: m.ArtifactType}
	}
	out.Zip = m.Layers[0].MediaType == LayerMediaTypeZip
	if out.Name == "" {
		out.Name, out.Version = m.Annotations[ocispec.AnnotationTitle], m.Annotations[ocispec.AnnotationVersion]
	}
	out.Manifest, out.Layer = desc.Digest.String(), m.Layers[0].Digest.String()
	if m.Layers[0].Size > maxLayer {
		return nil, &Error{Op: "pulling", Ref: ref.s, Err: errors.New("its layer is larger than 1 GiB")}
	}
	if err := fetchTo(ctx, repo, m.Layers[0], file); err != nil {
		return fail("pulling the layer of", err)
	}
	out.Bundles = bundles(ctx, repo, desc)
	return out, nil
}

// Resolve is the digest ref names now (a tag moves).
func (c *Client) Resolve(ctx context.Context, ref Ref) (string, error) {
	repo, err := c.repository(ref)
	if err != nil {
		return "", err
	}
	d, err := repo.Resolve(ctx, ref.Reference.Reference)
	if err != nil {
		if errors.Is(err, errdef.ErrNotFound) {
			return "", &NotFoundError{Ref: ref.String()}
		}
		return "", &Error{Op: "resolving", Ref: ref.String(), Err: err}
	}
	return d.Digest.String(), nil
}

// bundles are the Sigstore bundles attached to desc (none when the registry cannot list
// referrers: the install then finds it unsigned).
func bundles(ctx context.Context, repo oras.ReadOnlyGraphTarget, desc ocispec.Descriptor) [][]byte {
	var out [][]byte
	// Filtered here, not by the registry: some filter on the config's type, not the artifact's.
	refs, _ := registry.Referrers(ctx, repo, desc, "")
	if len(refs) > maxReferrers { // a hostile registry must not make gem fetch without end
		refs = refs[:maxReferrers]
	}
	{
		for _, r := range refs {
			var m ocispec.Manifest
			if fetchJSON(ctx, repo, r, &m) != nil || m.ArtifactType != BundleArtifactType {
				continue
			}
			for _, l := range m.Layers {
				if l.MediaType != BundleArtifactType || l.Size > 1<<20 {
					continue
				}
				if data, err := content.FetchAll(ctx, repo, l); err == nil {
					out = append(out, data)
				}
			}
		}
	}
	return out
}

func fetchJSON(ctx context.Context, repo content.Fetcher, desc ocispec.Descriptor, v any) error {
	if desc.Size > maxManifest {
		return errors.New("the manifest is larger than 4 MiB")
	}
	data, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return err
	}
	return decode(data, v)
}

// fetchTo streams desc into file, checking its size and digest.
func fetchTo(ctx context.Context, repo content.Fetcher, desc ocispec.Descriptor, file string) error {
	rc, err := repo.Fetch(ctx, desc)
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	vr := content.NewVerifyReader(rc, desc)
	_, err = io.Copy(out, vr)
	if err == nil {
		err = vr.Verify()
	}
	if errors.Is(err, content.ErrTrailingData) || errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("its bytes are not those its digest %s names (changed or corrupted): %w", desc.Digest, err)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
