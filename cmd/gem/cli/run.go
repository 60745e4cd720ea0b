package cli

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/manifest/version"
	"github.com/gemhost/gem/registry"
)

func runCommand(f *Factory) *cli.Command {
	return &cli.Command{
		Name:            "run",
		Usage:           "run an extension's executable command: gem run [--yes] <command> [args...]",
		ArgsUsage:       "[--yes] <command> [args...]",
		SkipFlagParsing: true,
		BashComplete:    completeRun(f),
		Description: "Runs the command's binary in place of gem, in the project root, with the sanitised\n" +
			"environment, the extension's settings and GEMINI_CLI=1, GEM_EXTENSION_NAME,\n" +
			"GEM_EXTENSION_PATH and GEM_WORKSPACE. Arguments pass through untouched; the exit\n" +
			"status is the command's. --yes answers a requireConfirm question.\n\n" +
			"EXAMPLES\n  gem run hello world\n  gem run --yes deploy prod",
		Action: func(c *cli.Context) error {
			ra, err := commands.ParseRunArgs(c.Args().Slice())
			if errors.Is(err, commands.ErrHelp) {
				return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
			}
			if err != nil {
				return usageError{msg: advice.Text(err)}
			}
			s, err := f.Session()
			if err != nil {
				return err
			}
			return runExtensionCommand(s, ra)
		},
	}
}

// runExtensionCommand execs the command's binary in place of gem.
func runExtensionCommand(s *session, ra commands.RunArgs) error {
	check := func(x *registry.Extension) error {
		return version.CheckEngine(x.Name, x.Manifest().Engines.Gem, buildinfo.Version)
	}
	err := s.launch().RunCommand(commands.NewTable(s.discover()), ra, s.stdinPrompter("--yes", "agree"), check)
	if errors.Is(err, commands.ErrDeclined) {
		return exitError{code: 1, msg: err.Error()}
	}
	if child, ok := errors.AsType[*sandbox.ChildExit](err); ok {
		return exitError{code: child.Code}
	}
	return err
}
