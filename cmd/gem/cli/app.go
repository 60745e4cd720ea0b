// Package cli is gem's command-line application (urfave/cli/v2), served by the gem-engine
// binary; the light `gem` front execs it for every verb it does not serve itself. One file
// per verb; each verb only parses flags, calls a library, and renders the result (human
// tables by default, --json for scripts). Results go to stdout, warnings and errors to
// stderr, logs to $GEM_HOME/logs/gem.log.
//
// Exit codes: 0 ok, 1 error, 2 usage.
package cli

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/internal/logging"
	"github.com/gemhost/gem/registry"
)

// usageError is a mistake in how gem was called (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitError carries an exit code after its message was printed (or with none).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// runtime is what every verb needs: the environment, a logger, the output streams.
type runtime struct {
	env    registry.Env
	log    hclog.Logger
	stdout io.Writer
	stderr io.Writer

	noticed bool // discover has said what it skipped
}

func newRuntime(c *cli.Context) (*runtime, error) {
	env, err := registry.EnvFromOS()
	if err != nil {
		return nil, fmt.Errorf("cannot find the home or current directory: %w", err)
	}
	r := &runtime{env: env, log: logging.New(env.LogDir()), stdout: c.App.Writer, stderr: c.App.ErrWriter}
	// Libraries that log with the standard logger (go-plugin's broker) write to the log file,
	// never into command output.
	log.SetOutput(r.log.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true}))
	log.SetFlags(0)
	return r, nil
}

func (r *runtime) warn(format string, args ...any) {
	fmt.Fprintf(r.stderr, "warning: "+format+"\n", args...)
}

// NewApp builds the application.
func NewApp() *cli.App {
	app := &cli.App{
		Name:                 "gem",
		HelpName:             "gem",
		Usage:                "manage and run Gemini-CLI-style extensions",
		Version:              buildinfo.Version,
		EnableBashCompletion: true,
		HideHelpCommand:      false,
		Commands: []*cli.Command{
			extCommand(),
			trustCommand(),
			runCommand(),
			commandsCommand(),
			shellCommand(),
			toolsCommand(),
			mcpCommand(),
			doctorCommand(),
			sessionsCommand(),
			completionCommand(),
		},
		Flags: agentFlags,
		Action: func(c *cli.Context) error {
			if c.IsSet("prompt") {
				if c.NArg() > 0 {
					return usagef("gem -p takes the prompt as its value: gem -p \"...\" (got extra %q)", c.Args().First())
				}
				return runPrompt(c)
			}
			if c.NArg() > 0 {
				return usagef("unknown command %q; run 'gem help' to see them", c.Args().First())
			}
			if isTerminal(os.Stdin) && isTerminal(os.Stdout) {
				r, err := newRuntime(c)
				if err != nil {
					return err
				}
				return runShell(c, r)
			}
			return cli.ShowAppHelp(c)
		},
		OnUsageError:   func(c *cli.Context, err error, isSub bool) error { return usageError{err.Error()} },
		ExitErrHandler: func(*cli.Context, error) {},
	}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintf(c.App.Writer, "gem version %s\n", c.App.Version) }
	setUsageErrors(app.Commands)
	return app
}

func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(c *cli.Context, err error, isSub bool) error { return usageError{err.Error()} }
		setUsageErrors(c.Subcommands)
	}
}

// Main runs the application with args and returns the exit code.
func Main(args []string) int {
	hideProcess()
	app := NewApp()
	app.Writer, app.ErrWriter = os.Stdout, os.Stderr
	err := app.Run(interspersed(app, args))
	if err == nil {
		return 0
	}
	var u usageError
	var x exitError
	switch {
	case errors.As(err, &u):
		fmt.Fprintf(os.Stderr, "gem: %s\nRun 'gem help' or add --help to the command for usage.\n", u.msg)
		return 2
	case errors.As(err, &x):
		if x.msg != "" {
			fmt.Fprintln(os.Stderr, "gem:", x.msg)
		}
		return x.code
	default:
		fmt.Fprintln(os.Stderr, "gem:", err)
		return 1
	}
}

// exactArgs checks the number of positional arguments.
func exactArgs(c *cli.Context, n int, names string) error {
	if c.NArg() != n {
		return usagef("%s needs %s (got %d argument(s)): gem %s %s", c.Command.FullName(), names, c.NArg(), c.Command.FullName(), c.Command.ArgsUsage)
	}
	return nil
}
