package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
