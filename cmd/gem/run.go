package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/registry"
)

// run serves `gem run [--yes] <command> [args...]`: resolve, check, confirm, then exec the
// command in place (no second process). Extensions that declare engines.gem go to
// gem-engine, which can check the constraint.
func run(args []string) (int, bool) {
	ra, err := commands.ParseRunArgs(args)
	if err != nil {
		return 0, false // gem-engine prints the usage error
	}
	env, err := registry.EnvFromOS()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gem:", err)
		return 1, true
	}
	t := commands.Load(env)
	if t.NeedsEngine(ra.Name) {
		return 0, false
	}
	confirm := commands.TerminalConfirm(term.IsTerminal(int(os.Stdin.Fd())), os.Stdin, os.Stderr)
	err = commands.Exec(env, t, os.Environ(), ra, confirm, nil, nil)
	if errors.Is(err, commands.ErrNeedsEngine) || errors.Is(err, sandbox.ErrExecFormat) {
		return 0, false // gem-engine decrypts settings, hashes binaries and names their platform
	}
	fmt.Fprintln(os.Stderr, "gem:", err)
	return 1, true
}
