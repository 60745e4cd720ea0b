package cli

import "github.com/urfave/cli/v2"

func extCommand() *cli.Command {
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
			extListCommand(),
			extInfoCommand(),
			extValidateCommand(),
			extInstallCommand(),
			extUninstallCommand(),
			extUpdateCommand(),
			extEnableCommand(true),
			extEnableCommand(false),
			extLinkCommand(),
			extVerifyCommand(),
			extConfigCommand(),
			extGrantCommand(),
			extConsentCommand(),
			extNewCommand(),
		},
	}
}
