package inventory_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
	"github.com/gemhost/gem/sdk/inventory"
)

// TestLists: the skills, prompt commands and subagents an agent would offer, read from an
// extension and the user's folder without opening an agent: the user's skill of a name
// wins over the extension's; a file that is no subagent is an error naming it.
func TestLists(t *testing.T) {
	env := registrytest.Env(t, nil)
	registrytest.Extension(t, env, "kit", `{"name":"kit","version":"1.0.0"}`, map[string][]byte{
		"skills/pdf/SKILL.md":      []byte("---\nname: pdf\ndescription: Reads PDFs\n---\nUse pdftotext."),
		"skills/shared/SKILL.md":   []byte("---\nname: shared\ndescription: the kit's\n---\n"),
		"commands/git/review.toml": []byte("description = \"Reviews a branch\"\nprompt = \"Review {{args}}\"\n"),
		"agents/reviewer.md":       []byte("---\nname: reviewer\ndescription: Reviews code\n---\nYou review."),
		"agents/broken.md":         []byte("---\nname: Bad Name\ndescription: x\n---\n"),
	})
	user := filepath.Join(env.GeminiDir(), "skills", "shared")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(user, "SKILL.md"), []byte("---\nname: shared\ndescription: the user's\n---\n"), 0o644)
	d := registry.Discover(env, registry.Providers)

	cmds, cmdErrs := inventory.PromptCommands(env, d)
	agents, agentErrs := inventory.Subagents(env, d)
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"skills", show(inventory.Skills(env, d), func(s inventory.Skill) string {
			return strings.Join([]string{s.Name, s.Source, s.Description, filepath.Base(filepath.Dir(s.Path))}, "|")
		}), []string{"pdf|kit|Reads PDFs|pdf", "shared|user|the user's|shared"}},
		{"prompt commands", show(cmds, func(c inventory.PromptCommand) string {
			return strings.Join([]string{c.Name, c.Source, c.Extension, c.Description, filepath.Base(c.File)}, "|")
		}), []string{"git:review|extension|kit|Reviews a branch|review.toml"}},
		{"subagents", show(agents, func(a inventory.Subagent) string {
			return strings.Join([]string{a.Name, a.Source, a.Description, filepath.Base(a.Path)}, "|")
		}), []string{"reviewer|kit|Reviews code|reviewer.md"}},
		{"prompt command errors", show(cmdErrs, error.Error), nil},
		{"subagent errors", show(agentErrs, func(err error) string { return filepath.Base(strings.SplitN(err.Error(), ":", 2)[0]) }),
			[]string{"broken.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !slices.Equal(tc.got, tc.want) {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// show is each item as f writes it.
func show[T any](items []T, f func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, f(it))
	}
	return out
}
