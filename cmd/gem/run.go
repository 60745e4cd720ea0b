package main

import (
	"errors"
	"fmt"

	"github.com/gemhost/gem/internal/prompt"

	"golang.org/x/term"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/registry"
)

// run serves `gem run [--yes] <command> [args...]`: resolve, check, confirm, then exec the
// command in place (no second process). Extensions that declare engines.gem go to
// gem-engine, which can check the constraint.
func run(std stdio, args []string) (int, bool) {
	ra, err := commands.ParseRunArgs(args)
	if err != nil {
		return 0, false // gem-engine prints the usage error
	}
	// The sandbox helper starts now, while the command is found and checked (its start is
	// most of what gem run costs over a bare exec); it is ended if it runs nothing.
	ra.Helper = launch.Prestart(std.in, std.out, std.err)
	defer ra.Helper.Discard()
	env, err := registry.EnvFromOS()
	if err != nil {
		fmt.Fprintln(std.err, "gem:", err)
		return 1, true
	}
	t := commands.Load(env)
	if t.NeedsEngine(ra.Name) {
		return 0, false
	}
	for _, w := range t.Warnings {
		fmt.Fprintln(std.err, "warning:", w)
	}
	sandbox.Warn = func(m string) {
		fmt.Fprintln(std.err, "warning:", m, "(gem doctor says more; GEM_SANDBOX_STRICT=1 refuses to run such programs)")
	}
	ask := prompt.Stdin(term.IsTerminal(int(std.in.Fd())), std.in, std.err, "--yes", "agree")
	err = launch.New(launch.Options{Env: env, Environ: std.environ}).RunCommand(t, ra, ask, nil)
	if child, ok := errors.AsType[*sandbox.ChildExit](err); ok {
		return child.Code, true // it ran as gem's child (the guard's supervisor beside it)
	}
	if errors.Is(err, commands.ErrNeedsEngine) || errors.Is(err, sandbox.ErrExecFormat) {
		return 0, false // gem-engine decrypts settings, hashes binaries and names their platform
	}
	fmt.Fprintln(std.err, "gem:", advice.Text(err))
	return 1, true
}
