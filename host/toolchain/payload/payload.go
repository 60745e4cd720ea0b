// Package payload owns what MCP servers' package launchers fetch when they start: the
// package host/toolchain/launcher reads off an npx, uvx or docker/podman run command line,
// resolved to a version and its hash (npm view; a PEP 691 index; the image's registry,
// image.go) and recorded as gem.lock's payloads, and npm packages carried with their
// dependency trees in bundles (npmtree.go). Pinning a launcher's arguments to the lock, as a
// server starts, is launcher's (the agent links that, not this).
// It is the engine's: it reaches the network (net/http), which the light front never links.
package payload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/toolchain/launcher"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// Resolved is a package version with its registry's integrity.
type Resolved struct {
	Version   string
	Integrity string // sha512-… (npm's dist.integrity)
	SHA256    string // PyPI: the sha256 of the release's file list (FilesDigest)
}

// ResolveNPM asks npm which version spec means and its integrity (npm view, with the user's
// environment: their registry, proxy and CA settings), the highest when a range matches
// several.
func ResolveNPM(ctx context.Context, environ []string, pkg launcher.Package) (Resolved, error) {
	// One retry, soon: an offline machine says so in seconds, not after npm's minute of retries.
	args := []string{"view", pkg.Spec(), "version", "dist.integrity", "--json", "--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=3000"}
	if pkg.Registry != "" {
		args = append(args, "--registry", pkg.Registry)
	}
	out, err := npmCommand(ctx, environ, "", args...)
	if errors.Is(err, ErrNoNPM) {
		return Resolved{}, err
	}
	if err != nil {
		return Resolved{}, fmt.Errorf("%s: %w", pkg.Spec(), err)
	}
	type view struct {
		Version   string `json:"version"`
		Integrity string `json:"dist.integrity"`
	}
	var one view
	if err := json.Unmarshal(out, &one); err != nil {
		var many []view
		if err := json.Unmarshal(out, &many); err != nil || len(many) == 0 {
			return Resolved{}, fmt.Errorf("npm view %s: unexpected answer %q", pkg.Spec(), strings.TrimSpace(string(out)))
		}
		one = many[len(many)-1]
	}
	if one.Version == "" || one.Integrity == "" {
		return Resolved{}, fmt.Errorf("npm view %s: no version or integrity in %q", pkg.Spec(), strings.TrimSpace(string(out)))
	}
	return Resolved{Version: one.Version, Integrity: one.Integrity}, nil
}

// ErrNoNPM: npm is not on the PATH, so an npm package cannot be resolved.
var ErrNoNPM = errors.New("npm is not installed (or not on PATH)")

// Payloads resolves what x's MCP servers' launchers fetch (npm and PyPI packages), pinned: each at the
// version locked records for its server when locked is given (so a changed integrity is
// found), else at the version its command line asks for. A server whose launcher fetches
// nothing gem pins is left out. A package that cannot be resolved (no npm, offline) is left
// unpinned with a warning, unless the lock pins it: then it cannot be checked, an error.
// Those in held (a bundle or a mirror carries them) are taken as they are: InstallNPM checks
// their files against that pin.
func Payloads(ctx context.Context, environ []string, x *registry.Extension, locked *lockfile.Entry, held []lockfile.Payload, warn func(string)) ([]lockfile.Payload, error) {
	var out []lockfile.Payload
	for _, s := range x.Manifest().MCPServers {
		pkg, ok := launcher.PackageOf(s.Command, s.Args)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(held, func(p lockfile.Payload) bool { return p.Server == s.Name && p.Name == pkg.Name }); i >= 0 {
			out = append(out, held[i]) // carried by a bundle or a mirror: checked when installed
			continue
		}
		if p, ok := locked.Payload(s.Name); ok && p.Name == pkg.Name {
			pkg.Range = p.Version
		}
		resolve := ResolveNPM
		switch pkg.Type {
		case "pypi":
			resolve = ResolvePyPI
		case "oci":
			resolve = ResolveImage
		}
		r, err := resolve(ctx, environ, pkg)
		if err != nil {
			if _, ok := locked.Payload(s.Name); ok {
				return nil, fmt.Errorf("server %s: its locked package %s cannot be checked: %w", s.Name, pkg.Spec(), err)
			}
			if warn != nil {
				warn(fmt.Sprintf("server %s of %s: %s is not pinned (%v); it runs what the registry serves when it starts", s.Name, x.Name, pkg.Spec(), err))
			}
			continue
		}
		out = append(out, lockfile.Payload{Server: s.Name, Type: pkg.Type, Name: pkg.Name, Version: r.Version, Integrity: r.Integrity, SHA256: r.SHA256})
	}
	return out, nil
}
