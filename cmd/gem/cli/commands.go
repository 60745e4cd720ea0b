package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
)

type commandsOptions struct {
	jsonOutput
}

func commandsCommand(f *Factory) *cli.Command {
	return verb(f, "commands", "list the executable slash commands of enabled extensions", listCommands,
		"gem commands", "gem commands --json | jq '.[].qualifiedName'")
}

func listCommands(_ context.Context, s *session, opts commandsOptions) error {
	d := s.discover()
	rows := commands.NewTable(d).Rows(s.env)
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
