// Package termsafe renders untrusted text (commands, arguments an extension or a model chose)
// for a question on a terminal, so that what the user reads is what will run.
package termsafe

import (
	"fmt"
	"io"
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
		if r == '\t' {
			b.WriteString(`\t`)
			continue
		}
		escapeRune(&b, r, size, s[i])
	}
	flush()
	return b.String()
}

// escapeRune writes r, or its escaped form when a terminal would act on it: control
// characters (ESC starts the escape sequences that move the cursor, set the title or the
// clipboard), C1 controls, bidirectional overrides and isolates (text that reads other than
// it runs), invalid bytes.
func escapeRune(b *strings.Builder, r rune, size int, first byte) {
	switch {
	case r == utf8.RuneError && size == 1:
		fmt.Fprintf(b, `\x%02x`, first)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		fmt.Fprintf(b, `\x%02x`, r)
	case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteRune(r)
	}
}

// Text is the one sanitiser for text from an extension, a tool or the model shown on a
// terminal (names, versions, descriptions, consent texts, tool results, answers): lines and
// tabs are kept, everything a terminal would act on is escaped as Show escapes it. JSON
// output needs none (its encoder escapes control characters).
func Text(s string) string {
	clean := true
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c || r == utf8.RuneError) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		if r == '\n' || r == '\t' {
			b.WriteRune(r)
			continue
		}
		escapeRune(&b, r, size, s[i])
	}
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

// Cell is Text for one cell of a table or one line: tabs and line breaks escaped too, so the
// columns hold.
func Cell(s string) string {
	t := Text(s)
	if !strings.ContainsAny(t, "\t\n") {
		return t
	}
	return strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(t)
}

// Writer is w with Text applied to every write: for human output made only of what gem
// prints and what extensions declared (gem ext info), none of it gem's own colour.
func Writer(w io.Writer) io.Writer { return textWriter{w} }

type textWriter struct{ w io.Writer }

func (t textWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Wrap breaks each line of text longer than width (in characters) at spaces, for a
// terminal that wide; a continued line keeps the line's indent, and under a bullet ("* ",
// "- ") lines up with the bullet's text. A word longer than the width stays whole; width <= 0
// leaves text as it is.
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = wrapWords(line, width)
	}
	return strings.Join(lines, "\n")
}

// wrapWords wraps one line (see Wrap).
func wrapWords(line string, width int) string {
	if utf8.RuneCountInString(line) <= width {
		return line
	}
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	hang := indent
	if strings.HasPrefix(body, "* ") || strings.HasPrefix(body, "- ") {
		hang += "  "
	}
	var b strings.Builder
	b.WriteString(indent)
	col := len(indent)
	for i, word := range strings.Fields(body) {
		n := utf8.RuneCountInString(word)
		if i > 0 && col+1+n > width {
			b.WriteString("\n" + hang)
			col = len(hang)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// FirstLine is the start of a text for a one-line listing: its first line, at most 100
// bytes, with "…" where some was left out (not escaped: Cell escapes it).
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	line, rest, _ := strings.Cut(s, "\n")
	if len(line) > 100 {
		line = line[:100] + "…"
	} else if rest != "" {
		line += " …"
	}
	return line
}
