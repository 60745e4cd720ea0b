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
	jsonOutput
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
	next := fmt.Sprintf("gem ext validate %s, then gem ext link %s", opts.Path, opts.Path)
	switch opts.Template {
	case "command", "mcp", "mcp-server", "plugin":
		next = fmt.Sprintf("make -C %s, then gem ext validate %s and gem ext link %s", opts.Path, opts.Path, opts.Path)
	}
	return render(s, opts.JSON, map[string]any{"path": opts.Path, "files": files, "next": next}, func() error {
		for _, f := range files {
			fmt.Fprintln(s.stdout, "created", f)
		}
		_, err := fmt.Fprintf(s.stdout, "Next: %s\n", next)
		return err
	})
}
