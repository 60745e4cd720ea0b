package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
)

// activateSkillSpec is the tool the model activates a skill with, as in Gemini CLI: gem's
// own (policy rules name it with the extension "gem"), of kind read.
var activateSkillSpec = tools.Spec{
	Name:        "activate_skill",
	Description: "Activates one of the skills listed in the system instruction: its instructions join the system instruction from the next step on, and are returned now.",
	Kind:        tools.KindRead,
	InputSchema: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string","description":"the skill's name"}}}`),
}

// declOf is the model's declaration of a tool the agent runs itself.
func declOf(s tools.Spec) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: s.Name, Description: s.Description, ParametersJsonSchema: s.InputSchema}
}

// ActivateSkill makes the skill named name active in the conversation s; false when there
// is none.
func (a *Agent) ActivateSkill(s *Session, name string) (Skill, bool) {
	for _, sk := range a.Skills {
		if sk.Name != name {
			continue
		}
		if !slices.Contains(s.ActiveSkills, name) {
			s.ActiveSkills = append(s.ActiveSkills, name)
		}
		return sk, true
	}
	return Skill{}, false
}

// activateSkillCall is the activate_skill tool: it runs like every call (BeforeTool and
// AfterTool hooks, the call's events, a result paired with it), its backend the agent's
// skills.
func (a *Agent) activateSkillCall(s *Session, args json.RawMessage) (*tools.Result, error) {
	var in struct {
		Name string `json:"name"`
	}
	json.Unmarshal(args, &in)
	sk, ok := a.ActivateSkill(s, in.Name)
	if !ok {
		var names []string
		for _, s := range a.Skills {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("no skill %q: the skills are %s", in.Name, strings.Join(names, ", "))
	}
	return &tools.Result{Text: "Skill " + sk.Name + " is active. Its instructions:\n\n" + sk.Text}, nil
}

// systemInstruction is System with the program's instructions and the instructions of the
// skills active in s.
func (a *Agent) systemInstruction(ctx context.Context, s *Session) string {
	var b strings.Builder
	b.WriteString(a.System)
	if a.Instructions != nil {
		if extra := a.Instructions(ctx, s); extra != "" {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(extra)
		}
	}
	for _, sk := range a.Skills {
		if !slices.Contains(s.ActiveSkills, sk.Name) {
			continue
		}
		fmt.Fprintf(&b, "\n\n--- Active skill: %s (%s) ---\n%s\n--- End of skill: %s ---", sk.Name, sk.Extension, strings.TrimRight(sk.Text, "\n"), sk.Name)
	}
	return b.String()
}
