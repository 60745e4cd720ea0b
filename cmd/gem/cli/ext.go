package cli

import (
	"github.com/gemhost/gem/internal/suggest"
	"github.com/urfave/cli/v2"
)

func extCommand(f *Factory) *cli.Command {
	return group("ext", "install, list and manage extensions", []string{"extensions", "extension"},
		aliased(extListCommand(f), "ls"),
		extInfoCommand(f),
		extValidateCommand(f),
		extInstallCommand(f),
		aliased(extUninstallCommand(f), "remove", "rm"),
		aliased(extUpdateCommand(f), "upgrade"),
		extEnableCommand(f, true),
		extEnableCommand(f, false),
		extLinkCommand(f),
		extSyncCommand(f),
		extPackCommand(f),
		extPushCommand(f),
		extBundleCommand(f),
		extVerifyCommand(f),
		extConfigCommand(f),
		extGrantCommand(f),
		extConsentCommand(f),
		extNewCommand(f),
	)
}

// group is a command of subcommands (ext, tools, mcp): alone it shows its help; an unknown
// subcommand is a usage error that suggests the one probably meant.
func group(name, usage string, aliases []string, subcommands ...*cli.Command) *cli.Command {
	return &cli.Command{
		Name:        name,
		Aliases:     aliases,
		Usage:       usage,
		Subcommands: subcommands,
		// gem help <path…> shows a verb's help; a "help" subcommand would be offered
		// everywhere completion lists subcommands.
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return unknownCommand(c.Args().First(), "gem "+name, subcommands)
			}
			return cli.ShowSubcommandHelp(c)
		},
	}
}

// unknownCommand is the usage error for a word that is no command of parent.
func unknownCommand(word, parent string, cmds []*cli.Command) error {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Names()...)
	}
	if near := suggest.Closest(word, names); near != "" {
		return usagef("unknown command %q for %s: did you mean %q? (run '%s --help' to see them)", word, parent, near, parent)
	}
	return usagef("unknown command %q for %s; run '%s --help' to see them", word, parent, parent)
}

// aliased gives cmd the names Gemini CLI's and gh's users reach for (ls, remove, upgrade).
func aliased(cmd *cli.Command, aliases ...string) *cli.Command {
	cmd.Aliases = aliases
	return cmd
}
