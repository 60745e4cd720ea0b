package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
)

type commandJSON struct {
	Name           string   `json:"name"`
	Qualified      string   `json:"qualifiedName"`
	Extension      string   `json:"extension"`
	Description    string   `json:"description"`
	Subcommands    []string `json:"subcommands"`
	RequireConfirm bool     `json:"requireConfirm"`
	Binary         string   `json:"binary,omitempty"`
	PlatformRule   string   `json:"platformRule,omitempty"`
	State          string   `json:"state"` // ready, unavailable
	Error          string   `json:"error,omitempty"`
}

// commandRows lists the table with resolved binaries (warnings for the unavailable ones).
func commandRows(r *runtime, t *commands.Table) []commandJSON {
	var rows []commandJSON
	for _, e := range t.Entries {
		x := e.Extension
		c := x.Manifest().Command(e.Declared)
		row := commandJSON{Name: e.Name, Qualified: e.Qualified(), Extension: x.Name, State: "ready", Subcommands: []string{}}
		if c == nil {
			continue
		}
		row.Description, row.RequireConfirm = c.Description, c.RequireConfirm
		if c.Subcommands != nil {
			row.Subcommands = c.Subcommands
		}
		if b, err := x.ResolveBinary(r.env, "command", e.Name, c.Binary); err != nil {
			row.State, row.Error = "unavailable", err.Error()
		} else {
			row.Binary, row.PlatformRule = b.Path, b.Platform.Rule
		}
		rows = append(rows, row)
	}
	return rows
}

func commandsCommand() *cli.Command {
	return &cli.Command{
		Name:  "commands",
		Usage: "list the executable slash commands of enabled extensions",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
		Action: func(c *cli.Context) error {
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			d := r.discover()
			for _, w := range d.Warnings {
				r.warn("%s", w)
			}
			rows := commandRows(r, commands.NewTable(d))
			for _, row := range rows {
				if row.Error != "" {
					r.warn("%s", row.Error)
				}
			}
			if c.Bool("json") {
				if rows == nil {
					rows = []commandJSON{}
				}
				return printJSON(r, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(r.stdout, "No commands: install an extension that declares some (gem ext install …).")
				return nil
			}
			tw := tabwriter.NewWriter(r.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "COMMAND\tEXTENSION\tSUBCOMMANDS\tSTATE\tDESCRIPTION")
			for _, row := range rows {
				fmt.Fprintf(tw, "/%s\t%s\t%s\t%s\t%s\n", row.Name, row.Extension, strings.Join(row.Subcommands, ","), row.State, row.Description)
			}
			return tw.Flush()
		},
	}
}
