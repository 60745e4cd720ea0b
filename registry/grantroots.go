package registry

import (
	"slices"

	"github.com/gemhost/gem/internal/pathx"
)

// The fields of the roots a user's grant records for its paths (Grant.Roots of grants.json):
// a path granted for reading, for writing (gem ext grant --read, --write).
const (
	GrantReadField  = "grant.read"
	GrantWriteField = "grant.write"
)

// GrantRoot is the path p granted by the user for field (GrantReadField, GrantWriteField) as
// found now: its real path and the identity of what is there ("dev:ino"; "" when nothing
// is, then given by its real path only, as a manifest's root absent at consent).
//
// gem ext grant records it when the grant is made; each start resolves the path again
// (Grant.CheckRoots) and refuses one that now leads elsewhere or whose folder was replaced
// (a folder granted for writing swapped for a link to ~/.ssh), and the sandbox helper
// compares the identity again on the folder it opens, without following links
// (sandbox.Policy.WriteIDs, ReadIDs). A grant recorded by an older gem, without roots, gets
// them at its first use (WithRoots): what is there then is what the grant means from then on.
func GrantRoot(env Env, field, p string) Root {
	real := pathx.Real(env.ExpandHome(p))
	return Root{Field: field, Asked: p, Real: real, ID: FileStamp(real), Named: true}
}

// WithRoots returns g with a root (GrantRoot) for each of its read and write paths that has
// none, and whether it added one; roots of paths no longer granted are dropped.
func (g Grant) WithRoots(env Env) (Grant, bool) {
	var roots []Root
	added := false
	for _, list := range []struct {
		field string
		paths []string
	}{{GrantReadField, g.Read}, {GrantWriteField, g.Write}} {
		for _, p := range list.paths {
			if r, ok := g.grantRoot(list.field, p); ok {
				roots = append(roots, r)
				continue
			}
			roots = append(roots, GrantRoot(env, list.field, p))
			added = true
		}
	}
	g.Roots = roots
	return g, added
}

// grantRoot is the root g recorded for path p granted for field.
func (g Grant) grantRoot(field, p string) (Root, bool) {
	i := slices.IndexFunc(g.Roots, func(r Root) bool { return r.Field == field && r.Asked == p })
	if i < 0 {
		return Root{}, false
	}
	return g.Roots[i], true
}

// CheckRoots resolves g's read and write paths again, at a start of extension's program, and
// compares each with the root recorded when it was granted (a *RootChangedError when it now
// leads elsewhere or is another folder). It returns them as found now; a path without a
// recorded root (WithRoots not called) is returned unchecked.
func (g Grant) CheckRoots(env Env, extension string) (read, write []Root, err error) {
	for _, list := range []struct {
		field string
		paths []string
		to    *[]Root
	}{{GrantReadField, g.Read, &read}, {GrantWriteField, g.Write, &write}} {
		for _, p := range list.paths {
			now := GrantRoot(env, list.field, p)
			if a, ok := g.grantRoot(list.field, p); ok && (a.Real != now.Real || (a.ID != "" && a.ID != now.ID)) {
				return nil, nil, &RootChangedError{Extension: extension, Agreed: a, Now: now}
			}
			*list.to = append(*list.to, now)
		}
	}
	return read, write, nil
}
