package view

import (
	"io"
	"strings"
	"unicode/utf8"
)

// WriteTable writes rows as columns two spaces apart, each as wide as its widest cell on
// screen: colour codes (SGR escapes, which gem adds to states) take no width, unlike in
// text/tabwriter, which counts their bytes and so misaligns a coloured column. The last
// column is not padded. Cells are expected sanitised (termsafe.Cell): gem's own SGR
// sequences are the only escapes left in them.
func WriteTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], VisibleWidth(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-VisibleWidth(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// VisibleWidth is how many columns s takes on a terminal: its runes, less the SGR escape
// sequences (ESC [ … m).
func VisibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] == ';' || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				i = j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}
