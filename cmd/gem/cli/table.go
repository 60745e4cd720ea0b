package cli

import (
	"fmt"
	"io"

	"github.com/gemhost/gem/cmd/gem/internal/view"
	"github.com/gemhost/gem/internal/termsafe"
)

// printTable prints a listing's human form: a header, then one aligned row per item.
func printTable(w io.Writer, header []string, rows [][]string) error {
	return printTableOr(w, header, rows, "")
}

// printTableOr prints the table, or when it has no rows the empty state: one sentence, "No
// things: what to do." (every listing says the same way that it is empty).
func printTableOr(w io.Writer, header []string, rows [][]string, empty string) error {
	if len(rows) == 0 && empty != "" {
		_, err := fmt.Fprintln(w, empty)
		return err
	}
	table := [][]string{header}
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = termsafe.Cell(c) // names, descriptions, errors: extensions' text
		}
		table = append(table, cells)
	}
	return view.WriteTable(w, table)
}
