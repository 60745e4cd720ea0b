package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/view"
	"github.com/gemhost/gem/registry"
)

func extListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list discovered extensions with their state for this directory",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array"},
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include shadowed extensions"},
		},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 0, "no arguments"); err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			d := registry.DiscoverWith(r.env, registry.Providers, registry.Options{CheckBinaries: true})
			return view.List(r.stdout, r.stderr, d, view.ListOptions{JSON: c.Bool("json"), All: c.Bool("all")})
		},
	}
}
