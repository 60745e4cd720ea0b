package registry

import (
	"strings"
	"testing"
)

func TestEnablementDecide(t *testing.T) {
	e := Enablement{
		"x": {Overrides: []string{"!/home/u/*", "/home/u/proj/*"}},
		"y": {Overrides: []string{"!/home/u/only/"}},
		"z": {Overrides: []string{"/home/u/*", "!/home/u/*"}},
	}
	tests := []struct {
		name, dir string
		want      bool
		by        string
	}{
		{"x", "/home/u", false, "!/home/u/*"},
		{"x", "/home/u/other", false, "!/home/u/*"},
		{"x", "/home/u/proj", true, "/home/u/proj/*"},
		{"x", "/home/u/proj/deep/er", true, "/home/u/proj/*"},
		{"x", "/elsewhere", true, "default"},
		{"x", "/home/user2", true, "default"}, // prefix of the name, not of the folder
		{"y", "/home/u/only", false, "!/home/u/only/"},
		{"y", "/home/u/only/sub", true, "default"},
		{"z", "/home/u/a", false, "!/home/u/*"}, // last match wins
		{"unknown", "/home/u", true, "default"},
	}
	for _, tt := range tests {
		got, by := e.Decide(tt.name, tt.dir)
		if got != tt.want || by != tt.by {
			t.Errorf("Decide(%s, %s) = %v by %q, want %v by %q", tt.name, tt.dir, got, by, tt.want, tt.by)
		}
	}
}

func TestParseRuleRoundTrip(t *testing.T) {
	for _, s := range []string{"!/a/b/*", "/a/", "/a/b/*", "!/x/"} {
		if got := ParseRule(s).String(); got != s {
			t.Errorf("ParseRule(%q).String() = %q", s, got)
		}
	}
	if r := ParseRule("/a/b"); r.Base != "/a/b/" || r.IncludeSubdirs {
		t.Errorf("normalised: %+v", r)
	}
}

func TestEnablementAdd(t *testing.T) {
	e := Enablement{"x": {Overrides: []string{"!/home/u/proj/*", "/other/*", "!/home/u/"}}}
	e.Add("x", ScopeRule("/home/u", false))
	if got := strings.Join(e["x"].Overrides, " "); got != "/other/* /home/u/*" {
		t.Errorf("Add removed the wrong rules: %s", got)
	}
	e.Add("x", ScopeRule("/home/u/proj", true))
	if got := strings.Join(e["x"].Overrides, " "); got != "/other/* /home/u/* !/home/u/proj/*" {
		t.Errorf("Add child: %s", got)
	}
	if n := e.RemoveDisables("x", "/home/u/proj/sub"); n != 1 || strings.Join(e["x"].Overrides, " ") != "/other/* /home/u/*" {
		t.Errorf("RemoveDisables: %d %v", n, e["x"].Overrides)
	}
}
