package commands

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/registry"
)

// programWritable lists the folders some program gem starts may write, or whose files
// extension authors chose: the workspace (root), gem's home (data folders, overlays,
// payloads), the temporary folder, every extension's folder, what any extension's agreed
// manifest (sandbox.write) or the user's grants let it write, and the launchers' caches. A
// PATH entry inside one is never where a launcher is looked up, nor on any program's PATH:
// a program without the network could plant an npx there that another extension's server,
// granted the network at consent, would then start.
//
// found is env's discovery when it was made already (nil: made here).
func programWritable(env registry.Env, root string, found *registry.Discovery) []string {
	out := []string{root, env.GemHome, os.TempDir()}
	if env.Home != "" {
		for _, pr := range toolchain.Profiles {
			for _, w := range pr.Write {
				out = append(out, filepath.Join(env.Home, w))
			}
		}
	}
	if grants, err := registry.Grants(env); err == nil {
		for _, g := range grants {
			for _, w := range g.Write {
				out = append(out, env.ExpandHome(w))
			}
		}
	}
	if found == nil {
		found = registry.Discover(env, registry.Providers)
	}
	// What the consent records let programs write, from their index (registry.ReadWriteRoots):
	// reading every record on every start cost more than the rest of gem run with 1,000
	// extensions installed.
	// Extensions' folders in ~/.gemini/extensions are one entry, that folder (it holds nothing
	// else): the list is checked against every PATH entry and launcher, and each program's
	// cost must not grow with the number of extensions installed.
	writes := registry.ReadWriteRoots(env)
	gemini := env.GeminiExtensionsDir()
	out = append(out, gemini)
	for _, x := range found.All {
		if filepath.Dir(x.Path) != gemini {
			out = append(out, x.Path)
		}
		out = append(out, writes.Of(x)...)
	}
	return slices.DeleteFunc(out, func(p string) bool { return p == "" || !filepath.IsAbs(p) })
}

// pathIn reports whether dir lies in one of folders.
func pathIn(dir string, folders []string) bool {
	return slices.ContainsFunc(folders, func(f string) bool { return pathx.Within(f, dir) })
}

// systemDir reports whether dir lies in the system folders every program reads (none of
// them writable by a program): no PATH entry there needs programWritable.
func systemDir(dir string) bool { return pathIn(dir, sandbox.SystemRead) }

// searchEnv is where one program's launchers are looked up, and what its PATH keeps: the
// user's home and PATH, without the folders programs may write (programWritable, computed
// only when the PATH has an entry outside the system folders; found: env's discovery, when
// made already).
func searchEnv(env registry.Env, root string, found *registry.Discovery) toolchain.Env {
	tenv := toolchainEnv(env)
	tenv.Exclude = []string{root, env.GemHome}
	for _, dir := range filepath.SplitList(tenv.Path) {
		if dir != "" && filepath.IsAbs(dir) && !systemDir(dir) {
			tenv.Exclude = programWritable(env, root, found)
			break
		}
	}
	return tenv
}

// realPaths resolves paths as filepath.EvalSymlinks does, remembering each parent folder's
// real path: 1,000 extension folders side by side cost a look at each (one lstat), not a walk
// of every component of each.
type realPaths map[string]string

// of is filepath.EvalSymlinks(p) for a clean absolute p.
func (r realPaths) of(p string) (string, error) {
	parent := filepath.Dir(p)
	if !filepath.IsAbs(p) || p != filepath.Clean(p) || parent == p {
		return filepath.EvalSymlinks(p)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(p) // a link (or an error) is resolved, or reported, in full
	}
	rp, ok := r[parent]
	if !ok {
		if rp, err = filepath.EvalSymlinks(parent); err != nil {
			return "", err
		}
		r[parent] = rp
	}
	return filepath.Join(rp, filepath.Base(p)), nil
}
