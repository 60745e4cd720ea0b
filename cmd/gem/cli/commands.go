package cli

import (
	"context"
	"fmt"
	"strings"

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
func commandRows(s *session, t *commands.Table) []commandJSON {
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
		if b, err := x.ResolveBinary(s.env, "command", e.Name, c.Binary); err != nil {
			row.State, row.Error = "unavailable", err.Error()
		} else {
			row.Binary, row.PlatformRule = b.Path, b.Platform.Rule
		}
		rows = append(rows, row)
	}
	return rows
}

type commandsOptions struct {
	jsonOutput
}

func commandsCommand(f *Factory) *cli.Command {
	return verb(f, "commands", "list the executable slash commands of enabled extensions", listCommands,
		"gem commands", "gem commands --json | jq '.[].qualifiedName'")
}

func listCommands(_ context.Context, s *session, opts commandsOptions) error {
	d := s.discover()
	rows := commandRows(s, commands.NewTable(d))
	for _, row := range rows {
		if row.Error != "" {
			s.warn("%s", row.Error)
		}
	}
	return render(s, opts.JSON, orEmpty(rows), func() error {
		if len(rows) == 0 {
			fmt.Fprintln(s.stdout, "No commands: install an extension that declares some (gem ext install …).")
			return nil
		}
		table := make([][]string, 0, len(rows))
		for _, row := range rows {
			table = append(table, []string{"/" + row.Name, row.Extension, strings.Join(row.Subcommands, ","), row.State, row.Description})
		}
		return printTable(s.stdout, []string{"COMMAND", "EXTENSION", "SUBCOMMANDS", "STATE", "DESCRIPTION"}, table)
	})
}
