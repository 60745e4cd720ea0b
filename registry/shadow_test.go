package registry

import (
	"slices"
	"testing"
)

// TestShadow pins the shadowing rule on hand-written mixes, given in discovery order:
// the first that takes part wins, else the first; a project loser to a user winner is a
// conflict.
func TestShadow(t *testing.T) {
	user := contender{level: LevelUser, takesPart: true}
	agreed := contender{level: LevelProject, takesPart: true}
	skipped := contender{level: LevelProject}
	cases := []struct {
		name     string
		cs       []contender
		winner   int
		conflict []bool
	}{
		{"one user", []contender{user}, 0, []bool{false}},
		{"one skipped project", []contender{skipped}, 0, []bool{false}},
		// native project, native user, gemini user (issue 45): the agreed project one wins
		{"seed over native and gemini users", []contender{agreed, user, user}, 0, []bool{false, false, false}},
		{"skipped project, native user, gemini user", []contender{skipped, user, user}, 1, []bool{true, false, false}},
		{"seed over a gemini user", []contender{agreed, user}, 0, []bool{false, false}},
		{"skipped project, gemini user", []contender{skipped, user}, 1, []bool{true, false}},
		// gemini user, gemini project: user first in gemini's scan order, agreed or not
		{"gemini user over agreed gemini project", []contender{user, agreed}, 0, []bool{false, true}},
		{"skipped native project, agreed gemini project", []contender{skipped, agreed}, 1, []bool{false, false}},
		{"two skipped projects", []contender{skipped, skipped}, 0, []bool{false, false}},
		{"native user over agreed gemini project", []contender{user, agreed}, 0, []bool{false, true}},
	}
	for _, c := range cases {
		w, conflict := shadow(c.cs)
		if w != c.winner || !slices.Equal(conflict, c.conflict) {
			t.Errorf("%s: winner %d, conflict %v; want %d, %v", c.name, w, conflict, c.winner, c.conflict)
		}
	}
}
