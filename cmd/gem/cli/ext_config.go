package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/gemhost/gem/internal/termsafe"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

type extConfigOptions struct {
	Name    string  `arg:"<name>" help:"an extension name"`
	Setting string  `arg:"[setting]" help:"a setting"`
	Value   *string `flag:"value" usage:"the value to set (else asked on a terminal, or read from stdin)"`
	Unset   bool    `flag:"unset" usage:"remove the value"`
	jsonOutput
}

func extConfigCommand(f *Factory) *cli.Command {
	return verb(f, "config", "show or set an extension's settings (sensitive values are stored encrypted)", extConfig,
		"gem ext config weather                      # show the settings",
		"gem ext config weather apiKey               # asked on the terminal, hidden",
		`echo "$KEY" | gem ext config weather apiKey  # read from stdin`,
		"gem ext config weather units --value metric")
}

func extConfig(_ context.Context, s *session, o extConfigOptions) error {
	if o.Setting == "" {
		return showSettings(s, o)
	}
	return setSetting(s, o)
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
	var value string
	if o.Value != nil {
		value = *o.Value
	} else if !o.Unset {
		if value, err = readValue(s, st.Name, st.Sensitive); err != nil {
			return err
		}
	}
	if err := install.SetSetting(s.env, x, st, value, o.Unset); err != nil {
		return err
	}
	switch {
	case o.Unset:
		fmt.Fprintf(s.stdout, "%s (%s) unset for %q.\n", termsafe.Text(st.Name), termsafe.Text(st.EnvVar), x.Name)
	case st.Sensitive:
		fmt.Fprintf(s.stdout, "%s (%s) set for %q (encrypted).\n", termsafe.Text(st.Name), termsafe.Text(st.EnvVar), x.Name)
	default:
		fmt.Fprintf(s.stdout, "%s (%s) set for %q.\n", termsafe.Text(st.Name), termsafe.Text(st.EnvVar), x.Name)
	}
	return nil
}

// readValue asks on a terminal (hidden for sensitive values) or reads one line of stdin.
func readValue(s *session, name string, sensitive bool) (string, error) {
	if s.io.IsStdinTTY() {
		fmt.Fprintf(s.stderr, "%s: ", termsafe.Text(name))
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

// askSettings asks, after an install or update on a terminal, for each setting of the
// extension named name that is not set yet (a sensitive one hidden, then sealed), as Gemini CLI
// does; an empty answer leaves it unset. Without a terminal, or with --skip-settings, it says
// how to set them later.
func askSettings(s *session, name string, skip bool) {
	x, err := registry.Discover(s.env, registry.Providers).Get(name)
	if err != nil {
		return
	}
	states, err := install.SettingStates(s.env, x)
	if err != nil {
		return
	}
	var unset []install.SettingState
	for _, st := range states {
		if !st.IsSet {
			unset = append(unset, st)
		}
	}
	if len(unset) == 0 {
		return
	}
	if skip || !s.io.IsStdinTTY() {
		var names []string
		for _, st := range unset {
			names = append(names, st.Name)
		}
		fmt.Fprintf(s.stderr, "%s has settings not set yet (%s): gem ext config %s <setting> sets one\n", x.Name, termsafe.Text(strings.Join(names, ", ")), x.Name)
		return
	}
	fmt.Fprintf(s.stderr, "%s has settings (Enter leaves one unset):\n", x.Name)
	for _, st := range unset {
		if st.Description != "" {
			fmt.Fprintf(s.stderr, "  %s\n", termsafe.Text(st.Description))
		}
		value, err := readValue(s, st.Name, st.Sensitive)
		if err != nil || value == "" {
			continue
		}
		setting := st.Setting
		if err := install.SetSetting(s.env, x, &setting, value, false); err != nil {
			s.warn("%s: %v", st.Name, err)
		}
	}
}
