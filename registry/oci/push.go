package oci

import (
	"bytes"
	"context"
	"encoding/json"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
)

// Pushed is what Push put in the registry.
type Pushed struct {
	Ref       string            `json:"ref"`    // oci://registry/repository:tag
	Digest    string            `json:"digest"` // the index's
	Manifests []PushedPlatform  `json:"manifests"`
	Annotate  map[string]string `json:"annotations,omitempty"`
}

// PushedPlatform is one platform's manifest.
type PushedPlatform struct {
	Platform  string `json:"platform"` // os/arch, or "any platform"
	Digest    string `json:"digest"`
	Layer     string `json:"layer"`               // the archive's digest (what a signature signs)
	Signature string `json:"signature,omitempty"` // the referrer holding its bundle
}

// Push uploads layers (Pack's, or one archive as it is) as the extension name at version,
// then tags the index with ref's tag; bundles[i], when given, is layer i's Sigstore bundle,
// attached as a referrer of its manifest. Blobs the registry has are not sent again.
func (c *Client) Push(ctx context.Context, ref Ref, name, version string, layers []Layer, bundles [][]byte) (*Pushed, error) {
	repo, err := c.repository(ref)
	if err != nil {
		return nil, err
	}
	fail := func(op string, err error) (*Pushed, error) {
		return nil, &Error{Op: op, Ref: ref.String(), Err: err}
	}
	out := &Pushed{Ref: ref.String(), Annotate: map[string]string{ocispec.AnnotationTitle: name, ocispec.AnnotationVersion: version}}
	var index ocispec.Index
	index.SchemaVersion, index.MediaType = 2, ocispec.MediaTypeImageIndex
	index.ArtifactType, index.Annotations = ArtifactType, out.Annotate
	for i, l := range layers {
		layer := content.NewDescriptorFromBytes(LayerMediaType, l.Archive)
		layer.Annotations = map[string]string{ocispec.AnnotationTitle: name + ".tar.gz"}
		if err := pushOnce(ctx, repo, layer, l.Archive); err != nil {
			return fail("pushing a layer to", err)
		}
		m, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
			Layers:              []ocispec.Descriptor{layer},
			ManifestAnnotations: map[string]string{ocispec.AnnotationTitle: name, ocispec.AnnotationVersion: version, ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
		})
		if err != nil {
			return fail("pushing a manifest to", err)
		}
		m.Platform = l.Platform
		pp := PushedPlatform{Platform: platformString(l.Platform), Digest: m.Digest.String(), Layer: layer.Digest.String()}
		if i < len(bundles) && bundles[i] != nil {
			sig, err := c.attach(ctx, repo, m, bundles[i])
			if err != nil {
				return fail("attaching the signature in", err)
			}
			pp.Signature = sig.Digest.String()
		}
		index.Manifests = append(index.Manifests, m)
		out.Manifests = append(out.Manifests, pp)
	}
	data, err := json.Marshal(index)
	if err != nil {
		return nil, err
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageIndex, data)
	if err := repo.PushReference(ctx, desc, bytes.NewReader(data), ref.Reference.Reference); err != nil {
		return fail("pushing", err)
	}
	out.Digest = desc.Digest.String()
	return out, nil
}

// attach pushes bundle as a referrer of subject.
func (c *Client) attach(ctx context.Context, repo *remote.Repository, subject ocispec.Descriptor, bundle []byte) (ocispec.Descriptor, error) {
	b := content.NewDescriptorFromBytes(BundleArtifactType, bundle)
	if err := pushOnce(ctx, repo, b, bundle); err != nil {
		return ocispec.Descriptor{}, err
	}
	subject.Platform = nil
	return oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, BundleArtifactType, oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{b},
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
	})
}

func pushOnce(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, data []byte) error {
	if ok, err := repo.Exists(ctx, desc); err == nil && ok {
		return nil
	}
	err := repo.Push(ctx, desc, bytes.NewReader(data))
	if err != nil && !isAlreadyExists(err) {
		return err
	}
	return nil
}

func isAlreadyExists(err error) bool { return err != nil && errorsIs(err, errdef.ErrAlreadyExists) }
