package cli

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry/install"
)

func extNewCommand() *cli.Command {
	usage := "create an extension from a template:"
	var names []string
	for n := range install.Templates {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		usage += "\n  " + n + ": " + install.Templates[n]
	}
	return &cli.Command{
		Name:        "new",
		Usage:       "create an extension from a template (command, context, mcp, plugin)",
		Description: usage,
		ArgsUsage:   "<path> [template]",
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return usagef("new needs a folder and optionally a template: gem ext new <path> [command|context|mcp|plugin]")
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			files, err := install.New(c.Args().First(), c.Args().Get(1))
			if err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintln(r.stdout, "created", f)
			}
			tmpl := c.Args().Get(1)
			if tmpl == "command" || tmpl == "mcp" || tmpl == "plugin" {
				fmt.Fprintf(r.stdout, "Next: make -C %s, then gem ext validate %s and gem ext link %s\n", c.Args().First(), c.Args().First(), c.Args().First())
			} else {
				fmt.Fprintf(r.stdout, "Next: gem ext validate %s, then gem ext link %s\n", c.Args().First(), c.Args().First())
			}
			return nil
		},
	}
}
