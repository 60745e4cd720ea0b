package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
	"github.com/gemhost/gem/registry/oci"
)

type extPushOptions struct {
	Source string `arg:"<folder|archive>" help:"an extension folder, or an archive of one"`
	Target string `arg:"<oci://registry/repository:tag>" help:"where to push it"`
	Bundle string `flag:"bundle" usage:"a Sigstore bundle of the archive, attached as its signature (default: the one beside it, <archive>.sigstore.json, .sigstore or .bundle)"`
	jsonOutput
}

func extPushCommand(f *Factory) *cli.Command {
	return verb(f, "push", "push an extension to an OCI registry: one manifest per platform it ships binaries for, its signature attached", extPush,
		"gem ext push ./my-ext oci://ghcr.io/acme/my-ext:v1.0.0",
		"gem ext push my-ext.tar.gz oci://127.0.0.1:5000/acme/my-ext:v1 (signed: my-ext.tar.gz.sigstore.json is attached)",
		"gem ext install oci://ghcr.io/acme/my-ext:v1.0.0 (on another machine)")
}

func extPush(ctx context.Context, s *session, o extPushOptions) error {
	ref, err := oci.ParseRef(o.Target)
	if err != nil {
		return usagef("%v", err)
	}
	p, err := pushContent(o)
	if err != nil {
		return err
	}
	c := &oci.Client{Home: s.env.Home, Getenv: s.env.Getenv}
	pushed, err := c.Push(ctx, ref, p.name, p.version, p.layers, p.bundles)
	if err != nil {
		return err
	}
	s.log.Info("pushed", "ref", pushed.Ref, "digest", pushed.Digest)
	return render(s, o.JSON, pushed, func() error {
		fmt.Fprintf(s.stdout, "Pushed %s %s to %s (%s).\n", p.name, p.version, pushed.Ref, pushed.Digest)
		for _, m := range pushed.Manifests {
			signed := "unsigned"
			if m.Signature != "" {
				signed = "signed"
			}
			fmt.Fprintf(s.stdout, "  %s: %s, %s\n", m.Platform, m.Digest, signed)
		}
		fmt.Fprintf(s.stdout, "Install it with: gem ext install %s\n", pushed.Ref)
		return nil
	})
}

// pushable is what gem ext push sends: the extension's name and version, its layers and
// the signatures to attach.
type pushable struct {
	name, version string
	layers        []oci.Layer
	bundles       [][]byte
}

// pushContent reads what o.Source pushes: a folder packed per platform, or an archive as it
// is (its signature signs these bytes), for every platform.
func pushContent(o extPushOptions) (pushable, error) {
	fi, err := os.Stat(o.Source)
	if err != nil {
		return pushable{}, err
	}
	if fi.IsDir() {
		if o.Bundle != "" {
			return pushable{}, usagef("--bundle signs an archive: gem ext pack the folder, sign the archive with cosign sign-blob --bundle, then push the archive")
		}
		x, ls, err := oci.Pack(o.Source)
		if err != nil {
			return pushable{}, err
		}
		return pushable{name: x.Name, version: x.Version, layers: ls}, nil
	}
	if !install.IsArchive(o.Source) {
		return pushable{}, fmt.Errorf("%s is not a folder or an archive (.tar.gz, .tgz)", o.Source)
	}
	if !strings.HasSuffix(o.Source, ".tar.gz") && !strings.HasSuffix(o.Source, ".tgz") {
		return pushable{}, fmt.Errorf("%s: only a .tar.gz or .tgz archive can be pushed (an OCI layer is a tar+gzip)", o.Source)
	}
	data, err := os.ReadFile(o.Source)
	if err != nil {
		return pushable{}, err
	}
	x, err := install.Inspect(o.Source)
	if err != nil {
		return pushable{}, err
	}
	p := pushable{name: x.Name, version: x.Version, layers: []oci.Layer{{Archive: data}}}
	bundle := o.Bundle
	if bundle == "" {
		bundle, _ = install.BundleBeside(o.Source)
	}
	if bundle != "" {
		b, err := os.ReadFile(bundle)
		if err != nil {
			return pushable{}, fmt.Errorf("--bundle: %w", err)
		}
		p.bundles = [][]byte{b}
	}
	return p, nil
}

type extPackOptions struct {
	Folder string `arg:"<folder>" help:"an extension folder"`
	Output string `flag:"output,o" usage:"the archive to write (.tar.gz; default <name>-<version>.tar.gz)"`
	jsonOutput
}

func extPackCommand(f *Factory) *cli.Command {
	return verb(f, "pack", "pack an extension folder into a reproducible .tar.gz (the same folder, the same bytes): to sign, publish or push", extPack,
		"gem ext pack ./my-ext (writes my-ext-1.0.0.tar.gz)",
		"gem ext pack ./my-ext -o dist/my-ext.tar.gz && cosign sign-blob --bundle dist/my-ext.tar.gz.sigstore.json dist/my-ext.tar.gz",
		"gem ext push dist/my-ext.tar.gz oci://ghcr.io/acme/my-ext:v1 (its signature attached)")
}

// packed is what gem ext pack wrote.
type packed struct {
	Path    string `json:"path"`
	Name    string `json:"name"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

func extPack(ctx context.Context, s *session, o extPackOptions) error {
	x, err := registry.LoadFolder(o.Folder)
	if err != nil {
		return err
	}
	layer, err := oci.PackFolder(o.Folder)
	if err != nil {
		return err
	}
	out := o.Output
	if out == "" {
		out = x.Name + "-" + x.Version + ".tar.gz"
	}
	if !strings.HasSuffix(out, ".tar.gz") && !strings.HasSuffix(out, ".tgz") {
		return usagef("-o %s: the archive is a .tar.gz", out)
	}
	if err := fsx.WriteFileAtomic(out, layer.Archive, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(layer.Archive)
	res := packed{Path: out, Name: x.Name, Version: x.Version, SHA256: hex.EncodeToString(sum[:])}
	return render(s, o.JSON, res, func() error {
		_, err := fmt.Fprintf(s.stdout, "Packed %s %s into %s (sha256 %s).\n", res.Name, res.Version, res.Path, res.SHA256)
		return err
	})
}
