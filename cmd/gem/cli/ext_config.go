package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

func extConfigCommand() *cli.Command {
	return &cli.Command{
		Name:      "config",
		Usage:     "show or set an extension's settings (sensitive values are stored encrypted)",
		ArgsUsage: "<name> [setting]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "value", Usage: "the value to set (else asked on a terminal, or read from stdin)"},
			&cli.BoolFlag{Name: "unset", Usage: "remove the value"},
			&cli.BoolFlag{Name: "json", Usage: "print the settings as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return usagef("config needs an extension name and optionally a setting: gem ext config <name> [setting]")
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			d := registry.Discover(r.env, registry.Providers)
			x, err := d.Get(c.Args().First())
			if err != nil {
				return err
			}
			if c.NArg() == 1 {
				states, err := install.SettingStates(r.env, x)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					if states == nil {
						states = []install.SettingState{}
					}
					return printJSON(r, states)
				}
				if len(states) == 0 {
					fmt.Fprintf(r.stdout, "Extension %q has no settings.\n", x.Name)
					return nil
				}
				tw := tabwriter.NewWriter(r.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "SETTING\tVARIABLE\tVALUE\tDESCRIPTION")
				for _, s := range states {
					v := "(not set)"
					switch {
					case s.IsSet && s.Sensitive:
						v = "(set, encrypted)"
					case s.IsSet:
						v = s.Value
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.EnvVar, v, s.Description)
				}
				return tw.Flush()
			}
			s, err := install.FindSetting(x.Manifest(), c.Args().Get(1))
			if err != nil {
				return err
			}
			value := c.String("value")
			if !c.Bool("unset") && !c.IsSet("value") {
				if value, err = readValue(r, s.Name, s.Sensitive); err != nil {
					return err
				}
			}
			if err := install.SetSetting(r.env, x, s, value, c.Bool("unset")); err != nil {
				return err
			}
			switch {
			case c.Bool("unset"):
				fmt.Fprintf(r.stdout, "%s (%s) unset for %q.\n", s.Name, s.EnvVar, x.Name)
			case s.Sensitive:
				fmt.Fprintf(r.stdout, "%s (%s) set for %q (encrypted).\n", s.Name, s.EnvVar, x.Name)
			default:
				fmt.Fprintf(r.stdout, "%s (%s) set for %q.\n", s.Name, s.EnvVar, x.Name)
			}
			return nil
		},
	}
}

// readValue asks on a terminal (hidden for sensitive values) or reads one line of stdin.
func readValue(r *runtime, name string, sensitive bool) (string, error) {
	if isTerminal(os.Stdin) {
		fmt.Fprintf(r.stderr, "%s: ", name)
		if sensitive {
			b, err := term.ReadPassword(int(os.Stdin.Fd()))
			fmt.Fprintln(r.stderr)
			return string(b), err
		}
	}
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("no value for %s: pass --value, or pipe it on stdin", name)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
