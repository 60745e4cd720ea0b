// Package cli is gem's command-line application (urfave/cli/v2), served by the gem-engine
// binary; the light `gem` front execs it for every verb it does not serve itself.
//
// Each verb is an options struct whose tagged fields are its flags and arguments, a run
// function taking a context, the session and those options, and one call of verb (bind.go)
// that makes the command; so the run functions can be tested with test streams (model:
// cli/cli's pkg/cmd). The command checks the arguments, opens the session and cancels the
// run on SIGINT/SIGTERM. Results go to stdout (render: the
// human form, or JSON with --json, through one encoder), warnings and errors to stderr,
// logs to $GEM_HOME/logs/gem.log. Errors are rendered in one place (errors.go), which adds
// the hint a typed library error calls for.
//
// Exit codes: 0 ok, 1 error, 2 usage, 130 interrupted.
//
// Where the spec is silent: gem ext consent NAME, when several extensions found here share
// the name, means the project's (what consent is about in a project), and of one level the
// one gem ext list shows; it says which it picked and how to name another (its folder).
// When that leaves several, it asks on a terminal and otherwise fails naming them all
// (ext_consent.go).
package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/internal/iostreams"
)

// NewApp builds the application around f.
func NewApp(f *Factory) *cli.App {
	root := optionsOf[rootOptions]()
	app := &cli.App{
		Name:                 "gem",
		HelpName:             "gem",
		Usage:                "manage and run Gemini-CLI-style extensions",
		Version:              buildinfo.Version,
		EnableBashCompletion: true,
		Reader:               f.IO.In,
		Writer:               f.IO.Out,
		ErrWriter:            f.IO.ErrOut,
		Commands: []*cli.Command{
			extCommand(f),
			trustCommand(f),
			runCommand(f),
			commandsCommand(f),
			shellCommand(f),
			toolsCommand(f),
			mcpCommand(f),
			acpCommand(f),
			doctorCommand(f),
			sandboxCommand(f),
			sessionsCommand(f),
			settingsCommand(f),
			skillsCommand(f),
			marketplaceCommand(f),
			lockCommand(f),
			completionCommand(),
		},
		Flags:  append(root.flags(), &cli.BoolFlag{Name: "no-color", Usage: "no colour in the output, on any verb (also NO_COLOR; CLICOLOR_FORCE forces it)"}),
		Action: func(c *cli.Context) error { return rootAction(f, c, root.from(c)) },
		OnUsageError: func(c *cli.Context, err error, isSub bool) error {
			return usageError{msg: flagErrorText("gem", err), flags: true}
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintf(c.App.Writer, "gem version %s\n", c.App.Version) }
	setUsageErrors(app.Commands)
	return app
}

// rootAction is gem without a verb: -p sends a prompt, a terminal gets the shell, anything
// else the help.
func rootAction(f *Factory, c *cli.Context, root rootOptions) error {
	o := root.agentOptions
	if c.IsSet("prompt") {
		if c.NArg() > 0 {
			return usagef("gem -p takes the prompt as its value: gem -p \"...\" (got extra %q)", c.Args().First())
		}
		o.Prompt = root.Prompt
		return runPrompt(f, o)
	}
	if c.NArg() > 0 {
		return unknownCommand(c.Args().First(), "gem", c.App.Commands)
	}
	if f.IO.IsStdinTTY() && f.IO.IsStdoutTTY() {
		return runShell(f, o)
	}
	if !f.IO.IsStdinTTY() {
		// Piped text and no arguments is the prompt, as with Gemini CLI: echo "…" | gem
		data, err := io.ReadAll(io.LimitReader(f.IO.In, 8<<20))
		if err != nil {
			return err
		}
		if prompt := strings.TrimSpace(string(data)); prompt != "" {
			o.Prompt = prompt
			return runPrompt(f, o)
		}
	}
	return cli.ShowAppHelp(c)
}

// noColorFlag takes --no-color out of args, wherever it stands, and turns colour off; gem
// run's arguments (its command's own) and anything after "--" are left alone.
func noColorFlag(ios *iostreams.IOStreams, args []string) []string {
	out := make([]string, 0, len(args))
	verbSeen := false
	for i, a := range args {
		if a == "--" || !verbSeen && i > 0 && a == "run" {
			return append(out, args[i:]...)
		}
		verbSeen = verbSeen || i > 0 && !strings.HasPrefix(a, "-")
		if a == "--no-color" {
			ios.SetNoColor()
			continue
		}
		out = append(out, a)
	}
	return out
}

// helpPath turns `gem help ext install` into `gem ext install --help` (urfave's help
// command shows only the first word's help).
// `gem help -h` and `gem help ext --help` ask for the same help.
func helpPath(args []string) []string {
	if len(args) < 2 || args[1] != "help" {
		return args
	}
	out := []string{args[0]}
	for _, a := range args[2:] {
		if a != "-h" && a != "--help" && a != "-help" {
			out = append(out, a)
		}
	}
	return append(out, "--help")
}

func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(c *cli.Context, err error, isSub bool) error {
			return usageError{msg: flagErrorText(c.Command.HelpName, err), flags: true}
		}
		setUsageErrors(c.Subcommands)
	}
}

// flagErrorText says a flag parsing error (Go's flag package's words) in gem's: which flag,
// what is wrong, and where the flags are listed.
func flagErrorText(verb string, err error) string {
	msg := err.Error()
	// Go's flag package writes every flag with one dash: a letter is a short flag (-p), a
	// word a long one (--timeout).
	name := func(f string) string {
		if f = strings.TrimLeft(f, "-"); len(f) == 1 {
			return "-" + f
		}
		return "--" + f
	}
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		f := name(strings.TrimPrefix(msg, "flag provided but not defined: "))
		return fmt.Sprintf("%s has no flag %s (%s --help lists its flags)", verb, f, verb)
	case strings.HasPrefix(msg, "flag needs an argument: "):
		f := name(strings.TrimPrefix(msg, "flag needs an argument: "))
		return fmt.Sprintf("%s %s needs a value, as in %s <value>", verb, f, f)
	case strings.HasPrefix(msg, "invalid value "):
		// invalid value "x" for flag -timeout: parse error
		var value, flag, why string
		rest := strings.TrimPrefix(msg, "invalid value ")
		if v, r, ok := strings.Cut(rest, " for flag "); ok {
			value = v
			flag, why, _ = strings.Cut(r, ": ")
		}
		if flag != "" {
			return fmt.Sprintf("%s %s: %s is not a valid value (%s)", verb, name(flag), value, why)
		}
	}
	return verb + ": " + msg
}

// Main runs the application on ios with args and returns the exit code.
func Main(ios *iostreams.IOStreams, args []string) int {
	hideProcess()
	args = noColorFlag(ios, args)
	app := NewApp(NewFactory(ios))
	err := app.Run(interspersed(app, helpPath(args)))
	var u usageError
	if errors.As(err, &u) && u.flags && slices.Contains(args, "--json") {
		// the verb never ran (its flags did not parse): the JSON failure is said here
		newJSONEncoder(ios.Out, false).Encode(errorJSON(err))
	}
	return printError(ios.ErrOut, err)
}
