// Package termsafe renders untrusted text (commands, arguments an extension or a model chose)
// for a question on a terminal, so that what the user reads is what will run.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ShowWidth is the width questions wrap at.
const ShowWidth = 100

// Show renders text for a question on a terminal so that what the user reads is what will
// run: control characters (ANSI escapes, carriage returns, backspaces), C1 controls and
// bidirectional overrides are shown escaped (\x1b, \r, \u202e), long runs of blanks are
// counted instead of printed, and long lines are wrapped, never cut. Each line is indented
// by indent.
func Show(text, indent string) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		wrapLine(&b, escapeLine(line), indent)
	}
	return b.String()
}

func escapeLine(s string) string {
	var b strings.Builder
	blanks := 0
	flush := func() {
		if blanks >= 8 {
			fmt.Fprintf(&b, "⟨%d spaces⟩", blanks)
		} else {
			b.WriteString(strings.Repeat(" ", blanks))
		}
		blanks = 0
	}
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		if r == ' ' {
			blanks++
			continue
		}
		flush()
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return b.String()
}

func wrapLine(b *strings.Builder, line, indent string) {
	width := ShowWidth - len(indent)
	for {
		b.WriteString(indent)
		if utf8.RuneCountInString(line) <= width {
			b.WriteString(line)
			return
		}
		cut := 0
		for n := 0; n < width; n++ {
			_, size := utf8.DecodeRuneInString(line[cut:])
			cut += size
		}
		b.WriteString(line[:cut])
		b.WriteString(" ↩\n")
		line = line[cut:]
	}
}
