package cli

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves the flags of the leaf command before its positional arguments, so
// `gem ext install ./x --consent` works as users expect (urfave/cli v2 stops reading flags
// at the first positional argument). Everything after "--" stays positional.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 || args[len(args)-1] == "--generate-bash-completion" {
		return args // completion: urfave takes the words as typed, its flag last
	}
	cmds := app.Commands
	var leaf *cli.Command
	i := 1
	for ; i < len(args); i++ {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(args[i]) {
				next = c
			}
		}
		if next == nil {
			break
		}
		leaf, cmds = next, next.Subcommands
	}
	if leaf == nil || len(leaf.Subcommands) > 0 || leaf.SkipFlagParsing {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range leaf.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && j+1 < len(rest) {
				flags = append(flags, rest[j+1])
				j++
			}
			continue
		}
		positional = append(positional, a)
	}
	out := append(append([]string{}, args[:i]...), flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}
