package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/sdk/inventory"
)

func skillsCommand(f *Factory) *cli.Command {
	return group("skills", "list, enable and disable the skills the model may activate (as Gemini CLI: skills.disabled in settings.json)", nil,
		aliased(skillsListCommand(f), "ls"), skillsSwitchCommand(f, "enable"), skillsSwitchCommand(f, "disable"))
}

type skillsListOptions struct {
	jsonOutput
}

func skillsListCommand(f *Factory) *cli.Command {
	return verb(f, "list", "list the skills: the workspace's (trusted), the user's and enabled extensions'", skillsList,
		"gem skills list", "gem skills list --json | jq '.[] | select(.enabled)'")
}

// skillRow is one skill in gem skills list --json.
type skillRow struct {
	Name        string `json:"name"`
	Source      string `json:"source"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Enabled     bool   `json:"enabled"`
}

func skillsList(_ context.Context, s *session, o skillsListOptions) error {
	disabled := s.settings().DisabledSkills
	rows, table := []skillRow{}, [][]string{}
	for _, sk := range inventory.Skills(s.env, s.discover()) {
		on := !slices.Contains(disabled, sk.Name)
		rows = append(rows, skillRow{sk.Name, sk.Source, sk.Description, sk.Path, on})
		state := "enabled"
		if !on {
			state = "disabled"
		}
		table = append(table, []string{sk.Name, sk.Source, state, sk.Description})
	}
	return render(s, o.JSON, rows, func() error {
		return printTableOr(s.stdout, []string{"SKILL", "SOURCE", "STATE", "DESCRIPTION"}, table,
			"No skills: ~/.gemini/skills/<name>/SKILL.md, a trusted project's .gemini/skills and extensions bring them.")
	})
}

type skillsSwitchOptions struct {
	Name string `arg:"<name>" help:"a skill's name (gem skills list shows them)"`
	jsonOutput
}

func skillsSwitchCommand(f *Factory, verbName string) *cli.Command {
	return verb(f, verbName, verbName+" a skill for every session (skills.disabled in ~/.gemini/settings.json, which Gemini CLI reads too)",
		func(ctx context.Context, s *session, o skillsSwitchOptions) error {
			return switchSkill(s, o, verbName == "enable")
		},
		"gem skills "+verbName+" pdf")
}

// switchSkill adds the skill to skills.disabled of the user's settings, or takes it out.
func switchSkill(s *session, o skillsSwitchOptions, enable bool) error {
	file, stillIn, err := inventory.SwitchSkill(s.env, s.launch().Workspace(), s.discover(), o.Name, enable)
	if _, ok := errors.AsType[*inventory.UnknownSkillError](err); ok {
		return fmt.Errorf("%w: gem skills list shows them", err)
	}
	if err != nil {
		return err
	}
	s.sets = nil // read again
	still := len(stillIn) > 0
	state := map[bool]string{true: "enabled", false: "disabled"}[enable]
	return render(s, o.JSON, map[string]any{"name": o.Name, "enabled": !still, "file": file}, func() error {
		fmt.Fprintf(s.stdout, "Skill %s %s in %s.\n", o.Name, state, file)
		if enable && still {
			fmt.Fprintf(s.stderr, "It stays disabled: another settings file disables it too (%s).\n", strings.Join(stillIn, ", "))
		}
		return nil
	})
}
