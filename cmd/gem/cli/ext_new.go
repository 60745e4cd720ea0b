package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry/install"
)

type extNewOptions struct {
	Path     string `arg:"<path>" help:"a folder"`
	Template string `arg:"[template]" help:"a template"`
}

func extNewCommand(f *Factory) *cli.Command {
	cmd := verb(f, "new", "create an extension from a template (default: context)", extNew,
		"gem ext new ./my-ext command", "gem ext new ./my-tools plugin")
	about := "create an extension from a template:"
	for _, n := range slices.Sorted(maps.Keys(install.Templates)) {
		about += "\n  " + n + ": " + install.Templates[n]
	}
	cmd.Description = about + "\n\n" + cmd.Description
	return cmd
}

func extNew(_ context.Context, s *session, opts extNewOptions) error {
	files, err := install.New(opts.Path, opts.Template)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(s.stdout, "created", f)
	}
	switch opts.Template {
	case "command", "mcp", "plugin":
		fmt.Fprintf(s.stdout, "Next: make -C %s, then gem ext validate %s and gem ext link %s\n", opts.Path, opts.Path, opts.Path)
	default:
		fmt.Fprintf(s.stdout, "Next: gem ext validate %s, then gem ext link %s\n", opts.Path, opts.Path)
	}
	return nil
}
