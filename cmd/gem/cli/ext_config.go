package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

type extConfigOptions struct {
	Name, Setting, Value string
	ValueSet, Unset      bool
	JSON                 bool
}

func extConfigCommand(f *Factory) *cli.Command {
	var o extConfigOptions
	return leaf(f, &cli.Command{
		Name:      "config",
		Usage:     "show or set an extension's settings (sensitive values are stored encrypted)",
		ArgsUsage: "<name> [setting]",
		Description: "EXAMPLES\n" +
			"  gem ext config weather                      # show the settings\n" +
			"  gem ext config weather apiKey               # asked on the terminal, hidden\n" +
			"  echo \"$KEY\" | gem ext config weather apiKey  # read from stdin\n" +
			"  gem ext config weather units --value metric",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "value", Usage: "the value to set (else asked on a terminal, or read from stdin)", Destination: &o.Value,
				Action: func(*cli.Context, string) error { o.ValueSet = true; return nil }},
			&cli.BoolFlag{Name: "unset", Usage: "remove the value", Destination: &o.Unset},
			jsonFlag(&o.JSON, "print the settings as JSON"),
		},
	}, between(1, 2, "an extension name and optionally a setting"), func(ctx context.Context, s *session, args []string) error {
		o.Name, o.Setting = args[0], at(args, 1)
		if o.Setting == "" {
			return showSettings(s, o)
		}
		return setSetting(s, o)
	})
}

func showSettings(s *session, o extConfigOptions) error {
	x, err := registry.Discover(s.env, registry.Providers).Get(o.Name)
	if err != nil {
		return err
	}
	states, err := install.SettingStates(s.env, x)
	if err != nil {
		return err
	}
	return render(s, o.JSON, orEmpty(states), func() error {
		if len(states) == 0 {
			fmt.Fprintf(s.stdout, "Extension %q has no settings.\n", x.Name)
			return nil
		}
		var table [][]string
		for _, st := range states {
			v := "(not set)"
			switch {
			case st.IsSet && st.Sensitive:
				v = "(set, encrypted)"
			case st.IsSet:
				v = st.Value
			}
			table = append(table, []string{st.Name, st.EnvVar, v, st.Description})
		}
		return printTable(s.stdout, []string{"SETTING", "VARIABLE", "VALUE", "DESCRIPTION"}, table)
	})
}

func setSetting(s *session, o extConfigOptions) error {
	x, err := registry.Discover(s.env, registry.Providers).Get(o.Name)
	if err != nil {
		return err
	}
	st, err := install.FindSetting(x.Manifest(), o.Setting)
	if err != nil {
		return err
	}
	value := o.Value
	if !o.Unset && !o.ValueSet {
		if value, err = readValue(s, st.Name, st.Sensitive); err != nil {
			return err
		}
	}
	if err := install.SetSetting(s.env, x, st, value, o.Unset); err != nil {
		return err
	}
	switch {
	case o.Unset:
		fmt.Fprintf(s.stdout, "%s (%s) unset for %q.\n", st.Name, st.EnvVar, x.Name)
	case st.Sensitive:
		fmt.Fprintf(s.stdout, "%s (%s) set for %q (encrypted).\n", st.Name, st.EnvVar, x.Name)
	default:
		fmt.Fprintf(s.stdout, "%s (%s) set for %q.\n", st.Name, st.EnvVar, x.Name)
	}
	return nil
}

// readValue asks on a terminal (hidden for sensitive values) or reads one line of stdin.
func readValue(s *session, name string, sensitive bool) (string, error) {
	if s.io.IsStdinTTY() {
		fmt.Fprintf(s.stderr, "%s: ", name)
		if sensitive {
			if b, ok, err := s.io.ReadPassword(); ok {
				fmt.Fprintln(s.stderr)
				return string(b), err
			}
		}
	}
	line, err := s.readLine()
	if err != nil && line == "" {
		return "", fmt.Errorf("no value for %s: pass --value, or pipe it on stdin", name)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
