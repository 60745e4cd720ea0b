// Package inventory lists what gem's agent offers a session — skills, prompt commands,
// subagents — as the agent finds them (enabled extensions', the user's, a trusted
// workspace's), read from disk only: no agent opened, no program started, no model or key
// needed. It is for fronts that show them (gem skills, gem ext info): the CLI reaches the
// agent through the SDK, and these read-only lists are the SDK's face for them. Each item
// carries what such a front shows, no more; a session's own list (with a program's
// skills and commands, and MCP prompts) is Session.Commands.
package inventory

import (
	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/registry"
)

// Skill is a skill: skills/<name>/SKILL.md.
type Skill struct {
	Name        string
	Description string
	Source      string // the extension that brings it, or "user", "workspace"
	Path        string // its SKILL.md
}

// Skills are the skills an agent offers, by name: for one name the workspace's (a trusted
// folder's) wins over the user's, which wins over an extension's.
func Skills(env registry.Env, d *registry.Discovery) []Skill {
	var out []Skill
	for _, s := range agent.Skills(env, d) {
		out = append(out, Skill{Name: s.Name, Description: s.Description, Source: s.Extension, Path: s.Path})
	}
	return out
}

// PromptCommand is a prompt command: commands/**/*.toml (an extension in Claude Code's
// format: commands/*.md).
type PromptCommand struct {
	Name        string // as the user types it, without the slash (git/commit.toml: git:commit)
	Description string
	Source      string // user, project or extension
	Extension   string // the extension, for Source extension
	File        string
}

// PromptCommands are the prompt commands an agent offers: the user's, the project's (which
// win over the user's) and enabled extensions' (renamed <extension>.<name> when the name is
// taken, as Gemini CLI does); a file that is no command is an error naming it.
func PromptCommands(env registry.Env, d *registry.Discovery) ([]PromptCommand, []error) {
	cmds, errs := agent.PromptCommands(env, d)
	var out []PromptCommand
	for _, c := range cmds {
		out = append(out, PromptCommand{Name: c.Name, Description: c.Description, Source: c.Source, Extension: c.Extension, File: c.File})
	}
	return out, errs
}

// Subagent is a subagent: agents/<name>.md.
type Subagent struct {
	Name        string
	Description string
	Source      string // the extension that brings it, or "user", "workspace"
	Path        string
}

// Subagents are the subagents an agent offers, by name: for one name the workspace's (a
// trusted folder's) wins over the user's, which wins over an extension's; a file that is
// not a valid agent is an error naming it.
func Subagents(env registry.Env, d *registry.Discovery) ([]Subagent, []error) {
	agents, errs := agent.Subagents(env, d)
	var out []Subagent
	for _, a := range agents {
		out = append(out, Subagent{Name: a.Name, Description: a.Description, Source: a.Source, Path: a.Path})
	}
	return out, errs
}

// SwitchSkill enables or disables the skill name in the user's settings file
// (skills.disabled), as the shell's /skills enable|disable does: the file written, and the
// settings files (of workspace's, a trusted folder's) that keep it disabled still. A name
// no skill found has is an *UnknownSkillError.
func SwitchSkill(env registry.Env, workspace string, d *registry.Discovery, name string, enable bool) (file string, still []string, err error) {
	return agent.SwitchSkill(env, workspace, d, name, enable)
}

// UnknownSkillError: no skill found has the name.
type UnknownSkillError = agent.UnknownSkillError
