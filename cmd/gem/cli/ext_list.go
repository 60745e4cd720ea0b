package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/view"
	"github.com/gemhost/gem/registry"
)

type extListOptions struct {
	jsonOutput
	All bool `flag:"all,a" usage:"include shadowed extensions"`
}

func extListCommand(f *Factory) *cli.Command {
	return verb(f, "list", "list discovered extensions with their state for this directory", extList, "gem ext list", "gem ext list --all --json")
}

func extList(_ context.Context, s *session, opts extListOptions) error {
	d := registry.DiscoverWith(s.env, registry.Providers, registry.Options{CheckBinaries: true})
	return view.List(s.stdout, s.stderr, d, view.ListOptions{JSON: opts.JSON, All: opts.All, Color: s.io.ColorEnabled()})
}
