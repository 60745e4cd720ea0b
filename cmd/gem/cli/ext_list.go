package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/view"
	"github.com/gemhost/gem/registry"
)

type extListOptions struct{ JSON, All bool }

func extListCommand(f *Factory) *cli.Command {
	var opts extListOptions
	return leaf(f, &cli.Command{
		Name:  "list",
		Usage: "list discovered extensions with their state for this directory",
		Flags: []cli.Flag{
			jsonFlag(&opts.JSON, "print a JSON array"),
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include shadowed extensions", Destination: &opts.All},
		},
	}, noArgs(), func(ctx context.Context, s *session, _ []string) error { return extList(s, opts) })
}

func extList(s *session, opts extListOptions) error {
	d := registry.DiscoverWith(s.env, registry.Providers, registry.Options{CheckBinaries: true})
	return view.List(s.stdout, s.stderr, d, view.ListOptions{JSON: opts.JSON, All: opts.All})
}
