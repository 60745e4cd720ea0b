package mcp

import (
	"regexp"
	"testing"
)

var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:-]*$`)

// FuzzSanitizeName: every result is a valid function name of at most 63 characters, and
// sanitising is idempotent.
func FuzzSanitizeName(f *testing.F) {
	for _, seed := range []string{"", "mcp_notes_add_note", "1abc", "é", "a b/c", "mcp_a-very-long-server-name-for-testing_and_an_even_longer_tool_name", "\x00\xff", "..."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := SanitizeName(name)
		if !validName.MatchString(got) || len(got) > 63 {
			t.Fatalf("SanitizeName(%q) = %q: not a valid name", name, got)
		}
		if again := SanitizeName(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", name, got, again)
		}
	})
}
