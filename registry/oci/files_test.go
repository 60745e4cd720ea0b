package oci

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
)

// TestFiles: a files artifact written to a layout reads back whole from the folder and from
// its tar; a changed file, another artifact type and names that are not plain are refused.
func TestFiles(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	files := map[string]string{"package-lock.json": `{"lockfileVersion": 3}`, "0a1b.tgz": "tarball bytes", "ffee.tgz": "other"}
	var names []string
	for n, data := range files {
		os.WriteFile(filepath.Join(src, n), []byte(data), 0o644)
		names = append(names, n)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	l, err := CreateLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	const typ = "application/vnd.gem.test.v1"
	if err := l.PutFiles(ctx, "npm-x", typ, src, names); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../x", ".hidden", "a/b", ""} {
		if err := l.PutFiles(ctx, "bad", typ, src, []string{bad}); err == nil || !strings.Contains(err.Error(), "not a plain file name") {
			t.Errorf("PutFiles(%q) = %v, want a refusal", bad, err)
		}
	}
	tarFile := filepath.Join(t.TempDir(), "b.tar")
	if err := WriteTar(dir, tarFile); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, tarFile} {
		r, err := OpenLayout(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		got, err := r.GetFiles(ctx, "npm-x", typ, out)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(got) != len(files) {
			t.Errorf("%s: got %v", path, got)
		}
		for n, data := range files {
			if b, _ := os.ReadFile(filepath.Join(out, n)); string(b) != data {
				t.Errorf("%s: %s = %q, want %q", path, n, b, data)
			}
		}
		var nf *NotFoundError
		if _, err := r.GetFiles(ctx, "npm-missing", typ, out); !errors.As(err, &nf) {
			t.Errorf("a missing tag: %v, want NotFoundError", err)
		}
		if _, err := r.GetFiles(ctx, "npm-x", "application/other", out); err == nil {
			t.Error("another artifact type was read")
		}
	}

	// a layer whose bytes changed in the folder is refused, naming its digest
	blobs, _ := filepath.Glob(filepath.Join(dir, "blobs", "sha256", "*"))
	for _, b := range blobs {
		if data, _ := os.ReadFile(b); string(data) == "tarball bytes" {
			os.WriteFile(b, []byte("tarball bytez"), 0o644)
		}
	}
	r, _ := OpenLayout(ctx, dir)
	if _, err := r.GetFiles(ctx, "npm-x", typ, t.TempDir()); err == nil || !strings.Contains(err.Error(), "are not those its digest") {
		t.Errorf("a changed file: %v, want a digest error", err)
	}

	// a hostile manifest naming a file outside the folder is refused before anything is written
	w, _ := CreateLayout(filepath.Join(t.TempDir(), "hostile"))
	os.WriteFile(filepath.Join(src, "x"), []byte("x"), 0o644)
	desc, err := putFile(ctx, w.w, filepath.Join(src, "x"))
	if err != nil {
		t.Fatal(err)
	}
	desc.Annotations = map[string]string{ocispec.AnnotationTitle: "../escape"}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: typ, Layers: []ocispec.Descriptor{desc}}
	m.SchemaVersion = 2
	m.Config = ocispec.DescriptorEmptyJSON
	data, _ := json.Marshal(m)
	pushOnce(ctx, w.w, ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data)
	md := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(data), Size: int64(len(data))}
	if err := pushOnce(ctx, w.w, md, data); err != nil {
		t.Fatal(err)
	}
	w.w.Tag(ctx, md, "evil")
	out := t.TempDir()
	if _, err := w.GetFiles(ctx, "evil", typ, filepath.Join(out, "in")); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("a title with ../: %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(out, "escape")); err == nil {
		t.Error("a file was written outside the folder")
	}
}

// TestOpenRegistry: a registry repository opened as a store (a mirror at oci://…) serves an
// extension and a files artifact by tag, as a layout does, the files checked.
func TestOpenRegistry(t *testing.T) {
	ctx := context.Background()
	host := registryServer(t, true, "", "")
	c := &Client{}
	ref, err := ParseRef("oci://" + host + "/mirror/tools:latest")
	if err != nil {
		t.Fatal(err)
	}
	x, layers, err := Pack(extension(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, ref.At("h1-abc"), x.Name, x.Version, layers, nil); err != nil {
		t.Fatal(err)
	}
	// a files artifact, written to a layout and copied to the registry as a mirror's owner would
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "a.tgz"), []byte("tarball"), 0o644)
	l, err := CreateLayout(filepath.Join(t.TempDir(), "layout"))
	if err != nil {
		t.Fatal(err)
	}
	const typ = "application/vnd.gem.test.v1"
	if err := l.PutFiles(ctx, "npm-x", typ, src, []string{"a.tgz"}); err != nil {
		t.Fatal(err)
	}
	repo, err := c.repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oras.Copy(ctx, l.w, "npm-x", repo, "npm-x", oras.DefaultCopyOptions); err != nil {
		t.Fatal(err)
	}

	store, err := c.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	if !store.Has(ctx, "npm-x") || store.Has(ctx, "npm-none") {
		t.Fatal("Has")
	}
	out := t.TempDir()
	if names, err := store.GetFiles(ctx, "npm-x", typ, out); err != nil || len(names) != 1 {
		t.Fatalf("GetFiles: %v %v", names, err)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "a.tgz")); string(data) != "tarball" {
		t.Fatalf("a.tgz = %q", data)
	}
	pulled, err := store.Pull(ctx, "h1-abc", "linux", "amd64", filepath.Join(t.TempDir(), "layer"))
	if err != nil || pulled.Name != x.Name {
		t.Fatalf("Pull: %+v %v", pulled, err)
	}
	var nf *NotFoundError
	if _, err := store.Pull(ctx, "h1-none", "linux", "amd64", filepath.Join(t.TempDir(), "layer")); !errors.As(err, &nf) {
		t.Fatalf("a missing tag: %v", err)
	}
}
