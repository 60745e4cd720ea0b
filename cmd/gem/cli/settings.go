package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

type settingsOptions struct {
	jsonOutput
}

func settingsCommand(f *Factory) *cli.Command {
	cmd := verb(f, "settings", "show the settings gem reads from Gemini CLI's settings.json files, and where each came from", showSettingsFiles,
		"gem settings", "gem settings --json | jq .origin")
	cmd.Description = "gem reads ~/.gemini/settings.json (then its own ~/.gem/settings.json), the workspace's\n" +
		".gemini/settings.json in a trusted folder only, and the system file, later ones winning:\n" +
		"model.name, tools.exclude, tools.core, tools.allowed, context.fileName and\n" +
		"mcpServers.<name>.trust.\n\n" + cmd.Description
	return cmd
}

func showSettingsFiles(_ context.Context, s *session, o settingsOptions) error {
	st := s.settings()
	return render(s, o.JSON, st, func() error {
		fmt.Fprintln(s.stdout, "Files (later ones win)")
		for _, f := range st.Files {
			state := "not found"
			switch {
			case f.Skipped != "":
				state = "skipped: " + f.Skipped
			case f.Found:
				state = "read"
			}
			fmt.Fprintf(s.stdout, "  %-9s %s (%s)\n", f.Scope, f.Path, state)
		}
		fmt.Fprintln(s.stdout, "\nValues")
		row := func(key, value string) {
			if value == "" {
				return
			}
			fmt.Fprintf(s.stdout, "  %-18s %s", key, value)
			if from := st.Origin[key]; from != "" {
				fmt.Fprintf(s.stdout, "  (%s)", from)
			}
			fmt.Fprintln(s.stdout)
		}
		row("model.name", st.Model)
		row("tools.exclude", strings.Join(st.ExcludeTools, ", "))
		row("tools.core", strings.Join(st.CoreTools, ", "))
		row("tools.allowed", strings.Join(st.AllowedTools, ", "))
		row("context.fileName", strings.Join(st.ContextFiles, ", "))
		row("trusted servers", strings.Join(st.TrustedServers, ", "))
		if st.Model == "" && len(st.ExcludeTools)+len(st.CoreTools)+len(st.AllowedTools)+len(st.ContextFiles)+len(st.TrustedServers) == 0 {
			fmt.Fprintln(s.stdout, "  none set: gem's defaults apply")
		}
		return nil
	})
}
