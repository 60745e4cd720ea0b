package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/oci"
)

// PayloadCarrier carries MCP servers' payloads (what their launchers fetch when they start,
// pinned in the lock) in bundles and mirrors, so that a server installed from one starts with
// no registry. The engine's host/toolchain/payload gives it (npm packages with their whole
// dependency tree); nil: bundles carry extensions only, and servers fetch their packages
// when they start.
type PayloadCarrier interface {
	// Tag and ArtifactType are where p is kept in a bundle or a mirror ("": not carried).
	Tag(p lockfile.Payload) string
	ArtifactType(p lockfile.Payload) string
	// Pack fetches p (a payload of x's server) with all it needs to run into dir, and
	// returns the files written and the digest of what they hold (lockfile.Payload.Tree).
	Pack(ctx context.Context, x *registry.Extension, p lockfile.Payload, dir string) ([]string, string, error)
	// Install installs p from the files Pack wrote (in dir) where its launcher finds it; it
	// checks them against p (the lock's pin, its Tree included) first.
	Install(ctx context.Context, p lockfile.Payload, dir string) error
}

// carried is a payload a mirror holds for an extension it serves: get fetches its files.
type carried struct {
	payload lockfile.Payload
	from    string
	get     func(ctx context.Context, dir string) error
}

// carriedBy lists the payloads of e the mirror store holds.
func (in *Installer) carriedBy(ctx context.Context, e *lockfile.Entry, from string, store *oci.Layout) []carried {
	if in.Carrier == nil {
		return nil
	}
	var out []carried
	for _, p := range e.Payloads {
		tag, typ := in.Carrier.Tag(p), in.Carrier.ArtifactType(p)
		// Only a payload whose whole tree the lock pins (gem ext bundle wrote it): else a
		// mirror could choose its dependencies.
		if tag == "" || p.Tree == "" || !store.Has(ctx, tag) {
			continue
		}
		out = append(out, carried{payload: p, from: from, get: func(ctx context.Context, dir string) error {
			_, err := store.GetFiles(ctx, tag, typ, dir)
			return err
		}})
	}
	return out
}

// heldPayloads are the payloads f's mirror carries: taken as the lock pins them (not asked
// of a registry), their files checked against that pin when installed.
func heldPayloads(f *Fetched) []lockfile.Payload {
	var out []lockfile.Payload
	for _, c := range f.carried {
		out = append(out, c.payload)
	}
	return out
}

// PayloadError is a payload a bundle or a mirror carries that could not be installed.
type PayloadError struct {
	Payload lockfile.Payload
	From    string
	Err     error
}

func (e *PayloadError) Error() string {
	return fmt.Sprintf("installing %s from %s: %v", e.Payload, e.From, e.Err)
}
func (e *PayloadError) Unwrap() error { return e.Err }

// installCarried installs the payloads f's mirror carries (after consent, before the
// extension is put in place: a payload that fails leaves the extension as it was).
func (in *Installer) installCarried(ctx context.Context, f *Fetched, staging string) error {
	for i, c := range f.carried {
		dir := filepath.Join(staging, fmt.Sprintf("payload-%d", i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
		err := c.get(ctx, dir)
		if err == nil {
			err = in.Carrier.Install(ctx, c.payload, dir)
		}
		os.RemoveAll(dir)
		if err != nil {
			return &PayloadError{Payload: c.payload, From: c.from, Err: err}
		}
		fmt.Fprintf(in.Out, "%s: installed %s from %s\n", c.payload.Server, c.payload, c.from)
	}
	return nil
}

// bundlePayloads writes the payloads of e (x's lock entry) the carrier carries to layout,
// each once, and pins each one's tree in e (the bundle's lock); the report says what was
// carried and what was not.
func (in *Installer) bundlePayloads(ctx context.Context, layout *oci.Layout, x *registry.Extension, e *lockfile.Entry, rep *BundleReport) error {
	e.Payloads = slices.Clone(e.Payloads)
	for i, p := range e.Payloads {
		tag := ""
		if in.Carrier != nil {
			tag = in.Carrier.Tag(p)
		}
		if tag == "" {
			rep.NotCarried = append(rep.NotCarried, x.Name+": "+p.String())
			continue
		}
		if tree, ok := rep.trees[tag]; ok { // another extension's server pins the same package
			e.Payloads[i].Tree = tree
			continue
		}
		dir, err := os.MkdirTemp(filepath.Dir(layout.Path), ".gem-payload-")
		if err != nil {
			return err
		}
		names, tree, err := in.Carrier.Pack(ctx, x, p, dir)
		if err == nil {
			err = layout.PutFiles(ctx, tag, in.Carrier.ArtifactType(p), dir, names)
		}
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("its payload %s: %w", p, err)
		}
		if p.Tree != "" && p.Tree != tree {
			return fmt.Errorf("its payload %s: %w", p, &lockfile.MismatchError{Name: x.Name, Field: "dependency tree of " + p.Name + "@" + p.Version + " (server " + p.Server + ")", Locked: p.Tree, Got: tree})
		}
		e.Payloads[i].Tree = tree
		if rep.trees == nil {
			rep.trees = map[string]string{}
		}
		rep.trees[tag] = tree
		rep.Payloads = append(rep.Payloads, p.Type+" "+p.Name+"@"+p.Version)
	}
	return nil
}
