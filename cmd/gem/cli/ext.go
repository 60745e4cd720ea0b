package cli

import "github.com/urfave/cli/v2"

func extCommand(f *Factory) *cli.Command {
	return &cli.Command{
		Name:  "ext",
		Usage: "install, list and manage extensions",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("unknown command %q for gem ext; run 'gem ext --help' to see them", c.Args().First())
			}
			return cli.ShowSubcommandHelp(c)
		},
		Subcommands: []*cli.Command{
			extListCommand(f),
			extInfoCommand(f),
			extValidateCommand(f),
			extInstallCommand(f),
			extUninstallCommand(f),
			extUpdateCommand(f),
			extEnableCommand(f, true),
			extEnableCommand(f, false),
			extLinkCommand(f),
			extVerifyCommand(f),
			extConfigCommand(f),
			extGrantCommand(f),
			extConsentCommand(f),
			extNewCommand(f),
		},
	}
}
