package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
)

// TestListJSONMatchesEncodingJSON: the hand-streamed JSON is byte for byte what
// encoding/json's indented encoder writes for the same values.
func TestListJSONMatchesEncodingJSON(t *testing.T) {
	p := &registry.Providers[1]
	winner := &registry.Extension{Name: "a", Version: "1.0.0", Description: "quotes \" \\ <tag> & \u2028 tab\t nl\n \x01 ünï \xff", Dir: "/d/a",
		Path: "/d/a", ManifestPath: "/d/a/gemini-extension.json", Level: registry.LevelUser, Provider: p, Enabled: true, EnabledBy: "default"}
	loser := &registry.Extension{Name: "a", Dir: "/p/a", Path: "/p/a", ManifestPath: "/p/a/gemini-extension.json",
		Level: registry.LevelProject, Provider: p, Shadowed: true, ShadowedBy: winner, EnabledBy: "!/x/*"}
	d := &registry.Discovery{All: []*registry.Extension{winner, loser}}
	var got bytes.Buffer
	if err := List(&got, &bytes.Buffer{}, d, ListOptions{JSON: true, All: true}); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.Encode([]ExtensionJSON{Extension(winner), Extension(loser)})
	if got.String() != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
	got.Reset()
	List(&got, &bytes.Buffer{}, &registry.Discovery{}, ListOptions{JSON: true})
	if got.String() != "[]\n" {
		t.Errorf("empty: %q", got.String())
	}
}

// TestWriteTableAlignsColouredCells: a coloured cell is as wide as its text on screen; the
// columns after it line up with the header's.
func TestWriteTableAlignsColouredCells(t *testing.T) {
	cases := []struct {
		name string
		rows [][]string
		want string
	}{
		{"plain", [][]string{{"NAME", "STATE", "PATH"}, {"a", "enabled", "/x"}}, "NAME  STATE    PATH\na     enabled  /x\n"},
		{"coloured", [][]string{{"NAME", "STATE", "PATH"}, {"a", Paint(true, Green, "enabled"), "/x"}, {"bb", Paint(true, Red, "not-consented"), "/y"}},
			"NAME  STATE          PATH\na     " + Green + "enabled" + reset + "        /x\nbb    " + Red + "not-consented" + reset + "  /y\n"},
		{"runes", [][]string{{"N", "P"}, {"héllo", "/z"}}, "N      P\nhéllo  /z\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		if err := WriteTable(&b, c.rows); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, b.String(), c.want)
		}
	}
	if got := VisibleWidth("\x1b[1;32mok\x1b[0m"); got != 2 {
		t.Errorf("VisibleWidth = %d", got)
	}
}
