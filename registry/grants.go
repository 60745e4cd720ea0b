package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/internal/fsx"
)

// Grant is what the user allows an extension's programs beyond its manifest's sandbox block
// (gem ext grant): most extensions written for Gemini CLI declare no sandbox, and their MCP
// servers (npx, uvx) need the network and a cache folder.
type Grant struct {
	Network bool `json:"network,omitempty"`
	// Workspace: its programs may change files in the project they run in (its protected
	// names excepted), wherever that is.
	Workspace bool     `json:"workspace,omitempty"`
	Read      []string `json:"read,omitempty"`
	Write     []string `json:"write,omitempty"`
	// For is the extension the grant was made for: its folder and install source. A grant
	// applies only to that extension (GrantFor), not to the next one given the same name.
	For *GrantTarget `json:"for,omitempty"`
	// Roots: with a consent, what the paths its manifest asks for (sandbox.read,
	// sandbox.write) resolved to when the user agreed, checked at each start (roots.go); in
	// the user's grant, what its Read and Write paths resolved to when granted (GrantRoot).
	Roots []Root `json:"roots,omitempty"`
	// Notes are what is shown and never granted (a container engine's socket: root on the
	// machine); not kept.
	Notes []string `json:"-"`
}

// GrantTarget names the extension a grant was made for.
type GrantTarget struct {
	Dir    string `json:"dir"`
	Source string `json:"source,omitempty"`
}

// TargetOf is x's identity for a grant.
func TargetOf(x *Extension) *GrantTarget {
	t := &GrantTarget{Dir: x.Dir}
	if m := x.Install(); m != nil {
		t.Source = m.Source
	}
	return t
}

// GrantFor returns the user's grant for x, when it was made for x (its folder and source).
// A grant recorded without them (by a gem from before grants were bound) applies to no
// extension: the next one given that name must not inherit it (UnboundGrant shows it).
func GrantFor(env Env, x *Extension) (Grant, bool, error) {
	all, err := Grants(env)
	if err != nil {
		return Grant{}, false, err
	}
	g, ok := all[x.Name]
	if !ok {
		return Grant{}, false, nil
	}
	if g.For == nil || *g.For != *TargetOf(x) {
		return Grant{}, false, nil
	}
	return g, true, nil
}

// UnboundGrant is the grant recorded for name without the extension it was made for (see
// GrantFor): applied to none, shown so that the user can make it again.
func UnboundGrant(env Env, name string) (Grant, bool) {
	all, err := Grants(env)
	if err != nil {
		return Grant{}, false
	}
	g, ok := all[name]
	return g, ok && g.For == nil && !g.Empty()
}

// Empty reports whether g grants nothing.
func (g Grant) Empty() bool {
	return !g.Network && !g.Workspace && len(g.Read) == 0 && len(g.Write) == 0
}

// Grants reads the user's grants (none when the file is missing).
func Grants(env Env) (map[string]Grant, error) {
	return readJSONMap[Grant](env.GrantsFile(), "fix or remove it")
}

// readJSONMap reads a JSON object file into a map: a missing file is an empty map; invalid
// JSON is an error naming the file and saying fix.
func readJSONMap[T any](path, fix string) (map[string]T, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]T{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]T{}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): %s", path, err, fix)
	}
	return out, nil
}

// SetGrant stores (or, when g is empty, removes) the grant of one extension, atomically.
func SetGrant(env Env, name string, g Grant) error {
	all, err := Grants(env)
	if err != nil {
		return err
	}
	if g.Empty() {
		delete(all, name)
	} else {
		sort.Strings(g.Read)
		sort.Strings(g.Write)
		all[name] = g
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(env.GemHome, 0o700); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(env.GrantsFile(), append(data, '\n'), 0o600)
}

// ExpandHome turns a leading ~ into the home folder.
func (e Env) ExpandHome(p string) string {
	if p == "~" {
		return e.Home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(e.Home, rest)
	}
	return p
}

// Add returns g with o's network, folders added.
func (g Grant) Add(o Grant) Grant {
	out := Grant{Network: g.Network || o.Network, Workspace: g.Workspace || o.Workspace, Read: slices.Clone(g.Read), Write: slices.Clone(g.Write), Notes: slices.Clone(g.Notes)}
	out.Roots = append(slices.Clone(g.Roots), o.Roots...)
	for _, n := range o.Notes {
		if !slices.Contains(out.Notes, n) {
			out.Notes = append(out.Notes, n)
		}
	}
	for _, r := range o.Read {
		if !slices.Contains(out.Read, r) {
			out.Read = append(out.Read, r)
		}
	}
	for _, w := range o.Write {
		if !slices.Contains(out.Write, w) {
			out.Write = append(out.Write, w)
		}
	}
	return out
}

// Lines renders g for people, ~ for home: "network", "change files in your project",
// "read ~/.npmrc", "write ~/.npm".
func (g Grant) Lines(home string) []string {
	var out []string
	if g.Network {
		out = append(out, "network")
	}
	if g.Workspace {
		out = append(out, WorkspaceLine)
	}
	for _, r := range g.Read {
		out = append(out, "read "+Tilde(home, r))
	}
	for _, w := range g.Write {
		out = append(out, "write "+Tilde(home, w))
	}
	return out
}

// WorkspaceLine is how the workspace capability reads in consent texts and grants: it
// includes the git capability (host/sandbox/gitdir.go), commits but never git's config or
// hooks.
const WorkspaceLine = "change files in your project and commit to git"

// Tilde writes p under home as ~/….
func Tilde(home, p string) string {
	if rest, ok := strings.CutPrefix(p, home+"/"); ok && home != "" {
		return "~/" + rest
	}
	return p
}

// Rebased is g with its paths under from moved under to: what a staged extension's
// programs need, as they will once the extension is in its place.
func (g Grant) Rebased(from, to string) Grant {
	move := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			if rel, err := filepath.Rel(from, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = filepath.Join(to, rel)
			}
			out[i] = p
		}
		return out
	}
	g.Read, g.Write = move(g.Read), move(g.Write)
	return g
}
