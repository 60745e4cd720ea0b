package cli

import (
	"slices"
	"testing"

	"github.com/gemhost/gem/registry"
)

// TestPickForConsent: which of the extensions of one name (in discovery order) gem ext
// consent NAME means: the project's first, then the one not shadowed; else it asks.
func TestPickForConsent(t *testing.T) {
	ext := func(id string, level registry.Level, shadowed bool) *registry.Extension {
		return &registry.Extension{Name: "b", Version: id, Level: level, Shadowed: shadowed}
	}
	const user, project = registry.LevelUser, registry.LevelProject
	cases := []struct {
		name  string
		named []*registry.Extension
		pick  string   // "" when it asks
		among []string // what it asks about
	}{
		{"one user", []*registry.Extension{ext("nu", user, false)}, "nu", nil},
		{"one project, skipped", []*registry.Extension{ext("np", project, false)}, "np", nil},
		// issue 45: the project one is what the user is looking at, even as a conflict
		{"project conflict, native user, gemini user", []*registry.Extension{ext("np", project, true), ext("nu", user, false), ext("gu", user, true)}, "np", nil},
		{"project agreed, native user, gemini user", []*registry.Extension{ext("np", project, false), ext("nu", user, true), ext("gu", user, true)}, "np", nil},
		{"gemini user, gemini project", []*registry.Extension{ext("gu", user, false), ext("gp", project, true)}, "gp", nil},
		{"two users: the one that runs", []*registry.Extension{ext("nu", user, false), ext("gu", user, true)}, "nu", nil},
		{"two projects, one shown", []*registry.Extension{ext("np", project, false), ext("gp", project, true)}, "np", nil},
		{"two projects, the second shown", []*registry.Extension{ext("np", project, true), ext("gp", project, false)}, "gp", nil},
		{"two projects, both shadowed by a user one", []*registry.Extension{ext("np", project, true), ext("gu", user, false), ext("gp", project, true)}, "", []string{"np", "gp"}},
	}
	for _, c := range cases {
		pick, among := pickForConsent(c.named)
		got := versions(among...)
		switch {
		case c.pick != "" && (pick == nil || pick.Version != c.pick):
			t.Errorf("%s: picked %v, want %s", c.name, versions(pick), c.pick)
		case c.pick == "" && pick != nil:
			t.Errorf("%s: picked %s, want a question", c.name, pick.Version)
		case !slices.Equal(got, c.among):
			t.Errorf("%s: among %v, want %v", c.name, got, c.among)
		}
	}
}

func versions(xs ...*registry.Extension) []string {
	var out []string
	for _, x := range xs {
		if x != nil {
			out = append(out, x.Version)
		}
	}
	return out
}
