package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// clearCommand is /clear: a new conversation; the last one stays saved (gem sessions). The
// terminal's own clearing of the screen is gem shell's.
func clearCommand(_ context.Context, c *Conversation, w io.Writer, _ []string) error {
	err := c.NewSession()
	fmt.Fprintf(w, "New conversation %s (the last one is saved: gem sessions).\n", c.ID())
	if err != nil {
		return fmt.Errorf("saving the last conversation: %w", err)
	}
	return nil
}

// skillCommand is /skill <name>: the skill is active, its SKILL.md joins the system
// instruction from the next request on.
func skillCommand(_ context.Context, c *Conversation, w io.Writer, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: /skill <name> (/skills lists them)")
	}
	sk, ok := c.ActivateSkill(args[0])
	if !ok {
		return fmt.Errorf("no skill %q (/skills lists them)", args[0])
	}
	_, err := fmt.Fprintf(w, "Skill %s is active: its instructions join the model's from the next prompt on.\n", sk.Name)
	return err
}

// skillsCommand is /skills [list], /skills enable <name> and /skills disable <name>.
func skillsCommand(_ context.Context, c *Conversation, w io.Writer, args []string) error {
	env, d := c.cfg.Env, c.discovery()
	if len(args) == 2 && (args[0] == "enable" || args[0] == "disable") {
		enable := args[0] == "enable"
		ws := c.Catalog.Launcher().Workspace()
		file, still, err := SwitchSkill(env, ws, d, args[1], enable)
		if _, ok := errors.AsType[*UnknownSkillError](err); ok {
			return fmt.Errorf("%w (/skills lists them)", err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Skill %s %s in %s.\n", args[1], map[bool]string{true: "enabled", false: "disabled"}[enable], file)
		if enable && len(still) > 0 {
			fmt.Fprintf(w, "It stays disabled: another settings file disables it too (%s).\n", strings.Join(still, ", "))
		}
		c.cfg.Settings.DisabledSkills = settings.Load(env, ws).DisabledSkills
		c.ReloadContext()
		return nil
	}
	if len(args) > 0 && args[0] != "list" {
		return errors.New("usage: /skills [list] | /skills enable <name> | /skills disable <name>")
	}
	list := Skills(env, d)
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No skills: ~/.gemini/skills/<name>/SKILL.md, .gemini/skills (trusted folders) and extensions bring them.")
		return err
	}
	for _, sk := range list {
		state := ""
		if slices.Contains(c.cfg.Settings.DisabledSkills, sk.Name) {
			state = " [disabled]"
		}
		fmt.Fprintf(w, "  %s (%s)%s: %s\n", termsafe.Cell(sk.Name), termsafe.Cell(sk.Extension), state, termsafe.Cell(sk.Description))
	}
	return nil
}

// SwitchSkill enables or disables the skill name in the user's settings file
// (skills.disabled): the file written, and the settings files that keep it disabled still
// (workspace's). A name no skill found has is an error.
func SwitchSkill(env registry.Env, workspace string, d *registry.Discovery, name string, enable bool) (file string, still []string, err error) {
	if !slices.ContainsFunc(Skills(env, d), func(sk Skill) bool { return sk.Name == name }) {
		return "", nil, &UnknownSkillError{Name: name}
	}
	file = settings.UserFile(env)
	list := settings.Load(env, workspace).DisabledSkillsIn(file)
	if enable {
		list = slices.DeleteFunc(list, func(n string) bool { return n == name })
	} else if !slices.Contains(list, name) {
		list = append(list, name)
	}
	if err := settings.SetList(file, "skills", "disabled", list); err != nil {
		return "", nil, err
	}
	now := settings.Load(env, workspace)
	if slices.Contains(now.DisabledSkills, name) {
		still = now.FilesDisabling(name)
	}
	return file, still, nil
}

// UnknownSkillError: no skill found has the name.
type UnknownSkillError struct{ Name string }

func (e *UnknownSkillError) Error() string { return fmt.Sprintf("no skill %q", e.Name) }
