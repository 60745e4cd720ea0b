package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemhost/gem/internal/prompt"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
)

// RunArgs is a parsed `gem run [--yes] <command> [args...]`.
type RunArgs struct {
	Yes  bool
	Name string
	Args []string // passed through untouched
	// Helper, when set, is a sandbox helper the caller started ahead (sandbox.Prestart):
	// the command runs through it, or it is ended.
	Helper *sandbox.Prestarted
}

// ErrUsage marks a malformed command line.
var ErrUsage = errors.New("a command name is needed")

// ParseRunArgs reads gem run's own flags (before the command name); everything after the
// command name is the command's.
func ParseRunArgs(args []string) (RunArgs, error) {
	var r RunArgs
	for i, a := range args {
		switch {
		case a == "--yes" || a == "-y" || a == "-yes":
			r.Yes = true
		case a == "--help" || a == "-h" || a == "-help":
			return r, ErrHelp
		case a == "--":
			if i+1 >= len(args) {
				return r, ErrUsage
			}
			r.Name, r.Args = args[i+1], args[i+2:]
			return r, nil
		case strings.HasPrefix(a, "-"):
			return r, fmt.Errorf("unknown flag %s (%w)", a, ErrUsage)
		default:
			r.Name, r.Args = strings.TrimPrefix(a, "/"), args[i+1:]
			return r, nil
		}
	}
	return r, ErrUsage
}

// ErrHelp: `gem run --help` (before the command's name: after it, --help is the command's).
var ErrHelp = errors.New("help asked for")

// ErrDeclined is returned when the user answers no.
var ErrDeclined = errors.New("not run: you declined")

// PrepareRun prepares the command ra names in t for `gem run` in the workspace root, vets its
// extension with check (when not nil; the engine checks engines.gem with it) and asks ask when
// it wants confirmation: what is left is to exec it (host/launch.Launcher.RunCommand).
func PrepareRun(env registry.Env, root string, t *Table, environ []string, ra RunArgs, ask prompt.Prompter, check func(*registry.Extension) error, readSecrets registry.SecretReader) (*Prepared, error) {
	p, err := Prepare(env, root, t, ra.Name, ra.Args, environ, readSecrets)
	if err != nil {
		return nil, err
	}
	p.Spec.Helper = ra.Helper
	if check != nil {
		if err := check(p.Entry.Extension); err != nil {
			return nil, err
		}
	}
	if p.RequireConfirm && !ra.Yes {
		q := fmt.Sprintf("/%s (extension %s) asks for confirmation before it runs:\n%s\nRun it?", p.Entry.Name, p.Entry.Extension.Name, termsafe.Show(p.CommandLine(), "  "))
		ok, err := ask.Confirm(context.Background(), prompt.Question{Text: q})
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrDeclined
		}
	}
	return p, nil
}

// NeedsEngine reports whether running name must go through gem-engine (the front cannot
// check an engines.gem constraint without semver).
func (t *Table) NeedsEngine(name string) bool {
	if e, ok := t.Lookup(name); ok {
		return e.Extension.Manifest().Engines.Gem != ""
	}
	return false
}

// Load discovers the extensions of env and builds their command table.
func Load(env registry.Env) *Table { return NewTable(registry.Discover(env, registry.Providers)) }
