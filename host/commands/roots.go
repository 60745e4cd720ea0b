package commands

import (
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// startRoots checks, at a program's start, the paths its agreed manifest asks for against
// what they resolved to when the user agreed (registry.CheckRoot): each is given by its real
// path, and one that now leads elsewhere, was replaced, or leads to a secret of the home not
// granted by name stops the start. The user's own settings servers (Synthetic) are the
// user's words: resolved, not checked.
type startRoots struct {
	env    registry.Env
	x      *registry.Extension
	exp    manifest.Expander
	agreed []registry.Root
	// The paths of the user's grant (gem ext grant): for reading only, and for writing.
	read, write []string
	places      *registry.Places
}

// check resolves the path asked for field and returns its real path (a path in the
// workspace as the workspace is named), or why it is refused; id is its identity as agreed
// to, or for a path in the workspace as found now ("dev:ino"; sandbox.RootAbsent for a path
// not there; "" for the user's own servers), which the sandbox helper compares again on the descriptor it opens
// (sandbox.Policy.WriteIDs, ReadIDs).
func (s *startRoots) check(field, asked string) (real, id string, err error) {
	if s.places == nil {
		p := registry.PlacesOf(s.env, s.x.Name, s.x.Path, s.x.Dir)
		s.places = &p
	}
	root := registry.ResolveRoot(field, asked, s.exp, *s.places)
	given := root.Real
	if registry.FollowsWorkspace(asked) {
		given = s.exp.Expand(asked) // as the workspace is named (sandbox.Policy.GuardWorkspace)
	}
	if s.x.Synthetic {
		return given, "", nil
	}
	if err := registry.CheckRoot(s.x.Name, root, s.agreed, s.read, s.write); err != nil {
		return "", "", err
	}
	// A path in the workspace has no identity agreed to (the project changes), but the one
	// found here: the helper compares it again on the descriptor it opens, so a folder swapped
	// for a link (to ~/.ssh) between this check and the helper is refused, not followed.
	if root.ID == "" {
		return given, sandbox.RootAbsent, nil
	}
	return given, root.ID, nil
}

// blockRoots are the paths of an extension's sandbox blocks, checked: their real paths to
// read and write, the identities agreed to of each (compared again by the sandbox helper on
// the descriptor it opens: sandbox.Policy.ReadIDs, WriteIDs), and whether one asks for the
// network.
type blockRoots struct {
	read, write       []string
	readIDs, writeIDs map[string]string
	network           bool
}

// blocks checks the paths of the sandbox blocks (the agreed manifest's, the plugin's).
func (s *startRoots) blocks(blocks []registry.SandboxBlock) (blockRoots, error) {
	out := blockRoots{readIDs: map[string]string{}, writeIDs: map[string]string{}}
	for _, b := range blocks {
		out.network = out.network || b.Sandbox.Network
		for _, list := range []struct {
			field string
			paths []string
			to    *[]string
			ids   map[string]string
		}{{"sandbox.read", b.Sandbox.Read, &out.read, out.readIDs}, {"sandbox.write", b.Sandbox.Write, &out.write, out.writeIDs}} {
			for _, p := range list.paths {
				real, id, err := s.check(b.Prefix+list.field, p)
				if err != nil {
					return blockRoots{}, err
				}
				*list.to = append(*list.to, real)
				if id != "" {
					list.ids[real] = id
				}
			}
		}
	}
	return out, nil
}
