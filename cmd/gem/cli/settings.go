package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry/settings"
)

type settingsOptions struct {
	jsonOutput
}

func settingsCommand(f *Factory) *cli.Command {
	cmd := verb(f, "settings", "show the settings gem reads from Gemini CLI's settings.json files, and where each came from", showSettingsFiles,
		"gem settings", "gem settings --json | jq .origin")
	cmd.Description = "gem reads ~/.gemini/settings.json (then its own ~/.gem/settings.json), the workspace's\n" +
		".gemini/settings.json in a trusted folder only, and the system file, later ones winning:\n" +
		"model.name (or model as a plain string; GEMINI_MODEL overrides it), general.defaultApprovalMode,\n" +
		"mcp.enabled, general.checkpointing.enabled, telemetry (docs/telemetry.md), model.compressionThreshold, tools.exclude,\n" +
		"tools.core, tools.allowed, " +
		"context.fileName, mcpServers (with trust), hooks and hooksConfig (hooks of every file\n" +
		"run: the user's, a trusted workspace's, the system's).\n\n" + cmd.Description
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
		printSettingsValues(s.stdout, st)
		return nil
	})
}

// printSettingsValues lists the values set in st, each with the file it came from.
func printSettingsValues(w io.Writer, st *settings.Settings) {
	row := func(key, value string) {
		if value == "" {
			return
		}
		fmt.Fprintf(w, "  %-18s %s", key, value)
		if from := st.Origin[key]; from != "" {
			fmt.Fprintf(w, "  (%s)", from)
		}
		fmt.Fprintln(w)
	}
	row("model.name", st.Model)
	printGeneralRows(row, st)
	row("tools.exclude", strings.Join(st.ExcludeTools, ", "))
	row("tools.core", strings.Join(st.CoreTools, ", "))
	row("tools.allowed", strings.Join(st.AllowedTools, ", "))
	row("context.fileName", strings.Join(st.ContextFiles, ", "))
	row("trusted servers", strings.Join(st.TrustedServers, ", "))
	if st.CompressionThreshold > 0 {
		key := "model.compressionThreshold"
		if st.Origin[key] == "" {
			key = "model.chatCompression.contextPercentageThreshold"
		}
		row(key, fmt.Sprint(st.CompressionThreshold))
	}
	if st.WebSearchModel != "" {
		for _, key := range []string{"modelConfigs.overrides", "modelConfigs.customOverrides", "modelConfigs.customAliases." + settings.WebSearchAlias} {
			if st.Origin[key] != "" {
				row(key, st.WebSearchModel+" (google_web_search's model)")
			}
		}
	}
	for _, h := range st.Hooks {
		var events []string
		for e := range h.Events {
			events = append(events, e)
		}
		sort.Strings(events)
		fmt.Fprintf(w, "  %-18s %s  (%s)\n", "hooks", strings.Join(events, ", "), h.Path)
	}
	if st.HooksOff {
		row("hooksConfig.enabled", "false (no hook runs)")
	}
	row("hooksConfig.disabled", strings.Join(st.DisabledHooks, ", "))
	row("skills.disabled", strings.Join(st.DisabledSkills, ", "))
	if st.NoYolo {
		row("security.disableYoloMode", "true (--approval-mode yolo refused)")
	}
	if st.AgentsOff {
		row("experimental.enableAgents", "false (no subagents)")
	}
	if st.Model == "" && st.WebSearchModel == "" && st.ApprovalMode == "" && !st.MCPOff && !st.Checkpointing && st.Telemetry == (settings.Telemetry{}) && len(st.ExcludeTools)+len(st.CoreTools)+len(st.AllowedTools)+len(st.ContextFiles)+len(st.TrustedServers)+len(st.Hooks)+len(st.DisabledSkills) == 0 {
		fmt.Fprintln(w, "  none set: gem's defaults apply")
	}
}

// printGeneralRows shows the approval mode, MCP, checkpointing and telemetry keys: each
// under the key that set it (of the older and newer names Gemini CLI reads).
func printGeneralRows(row func(key, value string), st *settings.Settings) {
	rows := []struct {
		keys  []string
		value string
	}{
		{[]string{"general.defaultApprovalMode", "tools.approvalMode", "approvalMode"}, st.ApprovalMode},
		{[]string{"admin.mcp.enabled", "mcp.enabled", "mcpEnabled"}, map[bool]string{true: "false (no MCP server starts)", false: "true"}[st.MCPOff]},
		{[]string{"general.checkpointing.enabled"}, fmt.Sprint(st.Checkpointing)},
	}
	t := st.Telemetry
	for _, r := range []struct{ key, value string }{
		{"telemetry.enabled", fmt.Sprint(t.Enabled)}, {"telemetry.target", t.Target}, {"telemetry.otlpEndpoint", t.Endpoint},
		{"telemetry.otlpProtocol", t.Protocol}, {"telemetry.logPrompts", fmt.Sprint(t.LogPrompts)},
	} {
		rows = append(rows, struct {
			keys  []string
			value string
		}{[]string{r.key}, r.value})
	}
	for _, r := range rows {
		for _, key := range r.keys {
			if st.Origin[key] != "" {
				row(key, r.value)
				break
			}
		}
	}
}
