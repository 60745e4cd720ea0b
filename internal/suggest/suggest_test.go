package suggest

import "testing"

func TestClosest(t *testing.T) {
	cands := []string{"install", "uninstall", "list", "info", "hello", "notes_add", "notes_list"}
	tests := []struct{ in, want string }{
		{"instal", "install"},
		{"isntall", "install"},
		{"lst", "list"},
		{"INFO", ""}, // the same name is no suggestion
		{"helo", "hello"},
		{"notes_ad", "notes_add"},
		{"note", "notes_add"}, // a prefix of four letters or more
		{"zzzzzz", ""},
		{"x", ""}, // one letter is too little to go on
		{"", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, cands); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
