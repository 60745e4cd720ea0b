package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry/install"
)

type extNewOptions struct{ Path, Template string }

func extNewCommand(f *Factory) *cli.Command {
	usage := "create an extension from a template:"
	var names []string
	for n := range install.Templates {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		usage += "\n  " + n + ": " + install.Templates[n]
	}
	usage += "\n\nEXAMPLES\n  gem ext new ./my-ext command\n  gem ext new ./my-tools plugin"
	return leaf(f, &cli.Command{
		Name:        "new",
		Usage:       "create an extension from a template (command, context, mcp, plugin)",
		Description: usage,
		ArgsUsage:   "<path> [template]",
	}, between(1, 2, "a folder and optionally a template"), func(ctx context.Context, s *session, args []string) error {
		return extNew(s, extNewOptions{Path: args[0], Template: at(args, 1)})
	})
}

func extNew(s *session, opts extNewOptions) error {
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

// at is args[i], or "" past the end.
func at(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}
