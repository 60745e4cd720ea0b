// Package payload owns what MCP servers' package launchers fetch when they start: reading
// the package from an npx, uvx or docker/podman run command line, resolving it to a version
// and its hash (npm view; a PEP 691 index; the image's registry, image.go), pinning the
// launcher's arguments to it (gem.lock's payloads), and carrying npm packages with their
// dependency trees in bundles (npmtree.go).
// It is the engine's: it reaches the network (net/http), which the light front never links.
package payload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// Package is what a package launcher's command line fetches when it starts: npx's package
// (the first argument that is not a flag, or --package's value), uvx's (the first argument
// that is not a flag, or --from's value).
type Package struct {
	Type     string // "npm" or "pypi"
	Name     string // @scope/name; a PyPI project's name as written
	Range    string // the version or range asked for ("latest" when none)
	Index    int    // the argument that names it
	Registry string // --registry's (npx) or --index-url's / --default-index's (uvx) value
	Extras   string // a PyPI requirement's extras, "[a,b]"
	From     bool   // uvx: named by --from (pinned as name==version, else name@version)
	Op       string // uvx: how the version was written ("@" or "=="), kept when pinned
	Digest   string // an image already given by digest (sha256 hex)
}

// Spec is how the package is asked for: name@range.
func (p Package) Spec() string { return p.Name + "@" + p.Range }

// npxValueFlags are npx/npm exec flags that take a value (the next argument).
var npxValueFlags = []string{"--registry", "--cache", "--userconfig", "--prefix", "-c", "--call", "--workspace", "-w", "--node-options"}

// PackageOf finds the package a command line fetches (ok false: it fetches none gem pins:
// not npx, uvx or docker/podman run, or the package is a local path, a URL or a git
// reference).
func PackageOf(command string, args []string) (Package, bool) {
	switch filepath.Base(command) {
	case "uvx":
		return uvxPackageOf(args)
	case "docker", "podman":
		return imagePackageOf(args)
	case "npx":
	default:
		return Package{}, false
	}
	pkg := Package{Type: "npm", Index: -1}
	first := launcherArgs(args, append([]string{"--package", "-p"}, npxValueFlags...), func(name, value string, at int) {
		switch {
		case (name == "--package" || name == "-p") && pkg.Index < 0:
			pkg.Index, pkg.Name = at, value
		case name == "--registry":
			pkg.Registry = value
		}
	})
	if pkg.Index < 0 && first >= 0 {
		pkg.Index, pkg.Name = first, args[first]
	}
	if pkg.Index < 0 {
		return Package{}, false
	}
	name, rng := splitNPMSpec(pkg.Name)
	if name == "" || strings.ContainsAny(name, ":\\") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") ||
		strings.Count(name, "/") > 1 || (strings.Contains(name, "/") && !strings.HasPrefix(name, "@")) {
		return Package{}, false // a path, a URL, a git or GitHub reference: not a registry package
	}
	pkg.Name, pkg.Range = name, rng
	if pkg.Range == "" {
		pkg.Range = "latest"
	}
	return pkg, true
}

// launcherArgs walks a launcher's flags up to its first argument that is not one (returned;
// -1: none): each flag goes to flag with its value — after "=", or the next argument for
// the flags in valueFlags — and the index of the argument that holds it.
func launcherArgs(args, valueFlags []string, flag func(name, value string, at int)) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return i
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue && slices.Contains(valueFlags, name) && i+1 < len(args) {
			i++
			value = args[i]
		}
		flag(name, value, i)
	}
	return -1
}

// splitNPMSpec splits name@range ("@scope/name@1.2" too).
func splitNPMSpec(s string) (name, rng string) {
	at := strings.LastIndex(s, "@")
	if at <= 0 {
		return s, ""
	}
	return s[:at], s[at+1:]
}

// PinArgs is args with the package at its pinned version (name@version): what the launcher is
// given, so a server never starts @latest of whatever the registry serves that day.
func PinArgs(args []string, pkg Package, version string) []string {
	out := slices.Clone(args)
	if pkg.Type == "pypi" {
		return pinUVX(out, pkg, version)
	}
	a := out[pkg.Index]
	if strings.HasPrefix(a, "--package=") || strings.HasPrefix(a, "-p=") {
		flag, _, _ := strings.Cut(a, "=")
		out[pkg.Index] = flag + "=" + pkg.Name + "@" + version
		return out
	}
	out[pkg.Index] = pkg.Name + "@" + version
	return out
}

// Pin is args with the package at what pin records: name@version (npm, PyPI), or an image
// at its digest.
func Pin(args []string, pkg Package, pin lockfile.Payload) []string {
	if pkg.Type == "oci" {
		if pin.SHA256 == "" {
			return args
		}
		return pinImage(slices.Clone(args), pkg, pin.Version, pin.SHA256)
	}
	return PinArgs(args, pkg, pin.Version)
}

// Resolved is a package version with its registry's integrity.
type Resolved struct {
	Version   string
	Integrity string // sha512-… (npm's dist.integrity)
	SHA256    string // PyPI: the sha256 of the release's file list (FilesDigest)
}

// ResolveNPM asks npm which version spec means and its integrity (npm view, with the user's
// environment: their registry, proxy and CA settings), the highest when a range matches
// several.
func ResolveNPM(ctx context.Context, environ []string, pkg Package) (Resolved, error) {
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
		pkg, ok := PackageOf(s.Command, s.Args)
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
