package install

import (
	"slices"
	"strings"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// sandboxes are the consent lines of m's sandbox blocks: each path by the real path it grants
// (roots, registry.ManifestRoots), with the template the manifest wrote when they differ.
func sandboxes(m *manifest.Manifest, roots []registry.Root, home string) []string {
	var out []string
	// shown is a path as it is granted: its real path, with the template when they differ.
	shown := func(field, asked string) string {
		i := slices.IndexFunc(roots, func(r registry.Root) bool { return r.Field == field && r.Asked == asked })
		if i < 0 {
			return asked
		}
		r := roots[i]
		s := registry.Tilde(home, r.Real)
		if s != asked {
			s += " (asked as " + asked + ")"
		}
		if r.Named {
			s += " (" + r.What() + ", granted by name)"
		}
		return s
	}
	for _, blk := range registry.SandboxBlocks(m) {
		who, s := "the extension", blk.Sandbox
		if blk.Prefix != "" {
			who = "plugin " + strings.TrimSuffix(strings.TrimPrefix(blk.Prefix, "plugins."), ".")
		}
		if s.Network {
			out = append(out, who+" asks for network access")
		}
		var read []string
		for _, r := range s.Read {
			read = append(read, shown(blk.Prefix+"sandbox.read", r))
		}
		if len(read) > 0 {
			out = append(out, who+" asks to read "+strings.Join(read, ", "))
		}
		var write []string
		for _, w := range s.Write {
			if manifest.NamesWorkspace(w) {
				out = append(out, who+" asks to "+registry.WorkspaceLine+" (never git's config or hooks, agent or editor settings)")
				continue
			}
			write = append(write, shown(blk.Prefix+"sandbox.write", w))
		}
		if len(write) > 0 {
			out = append(out, who+" asks to write "+strings.Join(write, ", "))
		}
		if len(s.Env) > 0 {
			out = append(out, who+" asks for environment variables "+strings.Join(s.Env, ", "))
		}
	}
	return out
}
