package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// printTable prints a listing's human form: a header, then one aligned row per item.
func printTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
