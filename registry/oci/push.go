package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
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
	out, err := push(ctx, repo, ref.Reference.Reference, name, version, layers, bundles)
	if err != nil {
		return nil, &Error{Op: "pushing to", Ref: ref.String(), Err: err}
	}
	out.Ref = ref.String()
	return out, nil
}

// push writes the extension's index, manifests, layers and signatures to target, tagged tag.
func push(ctx context.Context, repo oras.Target, tag, name, version string, layers []Layer, bundles [][]byte) (*Pushed, error) {
	fail := func(op string, err error) (*Pushed, error) {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	out := &Pushed{Annotate: map[string]string{ocispec.AnnotationTitle: name, ocispec.AnnotationVersion: version}}
	var index ocispec.Index
	index.SchemaVersion, index.MediaType = 2, ocispec.MediaTypeImageIndex
	index.ArtifactType, index.Annotations = ArtifactType, out.Annotate
	for i, l := range layers {
		mt, ext := LayerMediaType, ".tar.gz"
		if l.Zip {
			mt, ext = LayerMediaTypeZip, ".zip"
		}
		layer := content.NewDescriptorFromBytes(mt, l.Archive)
		layer.Annotations = map[string]string{ocispec.AnnotationTitle: name + ext}
		if err := pushOnce(ctx, repo, layer, l.Archive); err != nil {
			return fail("pushing a layer", err)
		}
		m, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
			Layers:              []ocispec.Descriptor{layer},
			ManifestAnnotations: map[string]string{ocispec.AnnotationTitle: name, ocispec.AnnotationVersion: version, ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
		})
		if err != nil {
			return fail("pushing a manifest", err)
		}
		m.Platform = l.Platform
		pp := PushedPlatform{Platform: platformString(l.Platform), Digest: m.Digest.String(), Layer: layer.Digest.String()}
		if i < len(bundles) && bundles[i] != nil {
			sig, err := attach(ctx, repo, m, bundles[i])
			if err != nil {
				return fail("attaching the signature", err)
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
	if err := pushOnce(ctx, repo, desc, data); err != nil {
		return fail("pushing the index", err)
	}
	if err := repo.Tag(ctx, desc, tag); err != nil {
		return fail("tagging the index", err)
	}
	out.Digest = desc.Digest.String()
	return out, nil
}

// attach pushes bundle as a referrer of subject.
func attach(ctx context.Context, repo oras.Target, subject ocispec.Descriptor, bundle []byte) (ocispec.Descriptor, error) {
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

func pushOnce(ctx context.Context, repo oras.Target, desc ocispec.Descriptor, data []byte) error {
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
