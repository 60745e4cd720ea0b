package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/frontmatter"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/registry"
)

// BasePrompt opens every system instruction.
const BasePrompt = `You are gem's assistant, working in the user's project with the tools of the extensions gem manages. Use the tools when they help; answer concisely.`

// ContextFile is one file of the system instruction.
type ContextFile struct {
	Path      string
	Extension string // "" for the user's and the project's own
	Text      string
}

// ContextFiles gathers, as Gemini CLI does: the user's ~/.gemini/GEMINI.md, the project's
// GEMINI.md (at its root), then each enabled extension's contextFileName files (GEMINI.md
// when it names none) followed by the context files of its gem-only parts
// (manifest.GemContextFiles).
func ContextFiles(env registry.Env, d *registry.Discovery, names ...string) ([]ContextFile, []error) {
	if len(names) == 0 {
		names = []string{"GEMINI.md"} // Gemini CLI's default; settings' context.fileName changes it
	}
	var out []ContextFile
	var errs []error
	add := func(root, rel, ext string) {
		data, err := fsx.ReadBeneath(root, rel, MaxContextFile)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("context file %s is skipped: %w", filepath.Join(root, rel), err))
			}
			return
		}
		if len(strings.TrimSpace(string(data))) == 0 {
			return
		}
		out = append(out, ContextFile{Path: filepath.Join(root, rel), Extension: ext, Text: string(data)})
	}
	for _, name := range names {
		add(env.GeminiDir(), name, "")
	}
	for _, name := range names {
		add(commands.Workspace(env), name, "")
	}
	for _, x := range d.Effective() {
		if !x.Active() {
			continue
		}
		for i, name := range x.Manifest().ContextFiles() {
			if filepath.IsAbs(name) {
				errs = append(errs, fmt.Errorf("%s: contextFileName[%d] %q is an absolute path; name a file inside the extension folder (skipped)", x.ManifestPath, i, name))
				continue
			}
			add(x.Path, name, x.Name)
		}
		// Then what only gem runs: its commands' and plugins' context (Gemini CLI never reads
		// these, so a gem-made extension does not advertise them to its model).
		for _, name := range x.Manifest().GemContextFiles() {
			if filepath.IsAbs(name) {
				errs = append(errs, fmt.Errorf("%s: context %q of a command or plugin is an absolute path; name a file inside the extension folder (skipped)", x.ManifestPath, name))
				continue
			}
			add(x.Path, name, x.Name)
		}
	}
	return out, errs
}

// MaxContextFile is the largest context or skill file gem reads (4 MiB).
const MaxContextFile = 4 << 20

// SystemInstruction joins the base prompt, the context files (each framed by Gemini CLI's
// "--- Context from: <path> ---" markers) and the skills' names and descriptions.
func SystemInstruction(files []ContextFile, skills []Skill) string {
	var b strings.Builder
	b.WriteString(BasePrompt)
	for _, f := range files {
		fmt.Fprintf(&b, "\n\n--- Context from: %s ---\n%s\n--- End of Context from: %s ---", f.Path, strings.TrimRight(f.Text, "\n"), f.Path)
	}
	if len(skills) > 0 {
		b.WriteString("\n\nSkills: when a task calls for one, activate it with the activate_skill tool; its instructions then join these.")
		for _, s := range skills {
			fmt.Fprintf(&b, "\n- %s (%s): %s", s.Name, s.Extension, s.Description)
		}
	}
	return b.String()
}

// Skill is an extension's skills/<name>/SKILL.md.
type Skill struct {
	Name        string
	Extension   string
	Description string
	Path        string
	Text        string // SKILL.md as read (inside the extension folder)
	// Tools are the executables of the skill's tools/ folder, the model's tools while the
	// skill is active (skilltools.go); Open reads them.
	Tools []SkillTool
	x     *registry.Extension // the extension it comes from; nil for the user's, a workspace's, a program's
}

// Skills lists the skills gem offers, by name, as Gemini CLI finds them: the workspace's
// (.gemini/skills/<name>/SKILL.md, only in a trusted folder), the user's
// (~/.gemini/skills/<name>/SKILL.md) and enabled extensions' (skills/<name>/SKILL.md); for
// one name the workspace's wins over the user's, which wins over an extension's. A skill is
// named by its front matter's name (else its folder) and described by its description (else
// its first plain line). Files are read beneath their folder (a link out is no skill).
func Skills(env registry.Env, d *registry.Discovery) []Skill {
	byName := map[string]Skill{}
	for _, r := range sourceRoots(env, d, "skills") {
		for _, sk := range skillsUnder(r.dir, r.source) {
			sk.x = r.x
			byName[sk.Name] = sk
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, sk := range byName {
		out = append(out, sk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// skillsUnder are the skills of root's subfolders (<root>/<name>/SKILL.md), source's.
func skillsUnder(root, source string) []Skill {
	var out []Skill
	files, _ := filepath.Glob(filepath.Join(root, "*", "SKILL.md"))
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		if sk, err := readSkill(root, rel, source); err == nil {
			out = append(out, sk)
		}
	}
	return out
}

// readSkill reads the skill root/rel (a SKILL.md, read beneath root).
func readSkill(root, rel, source string) (Skill, error) {
	data, err := fsx.ReadBeneath(root, rel, MaxContextFile)
	if err != nil {
		return Skill{}, err
	}
	f := filepath.Join(root, rel)
	name := frontmatter.Field(string(data), "name")
	if name == "" {
		name = filepath.Base(filepath.Dir(f))
	}
	return Skill{Name: name, Extension: source, Path: f, Text: string(data), Description: skillDescription(string(data))}, nil
}

// SkillsIn are the skills of dir, source's: dir itself when it holds a SKILL.md, else its
// subfolders' (a root of skills). A dir with neither is an error naming it.
func SkillsIn(dir, source string) ([]Skill, error) {
	if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil {
		sk, err := readSkill(dir, "SKILL.md", source)
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", dir, err)
		}
		return []Skill{sk}, nil
	}
	out := skillsUnder(dir, source)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no SKILL.md, nor folders with one: give a skill's folder or a folder of skills", dir)
	}
	return out, nil
}

// sourceRoot is a folder of skills or agents and whose it is.
type sourceRoot struct {
	dir, source string
	x           *registry.Extension // nil for the user's and the workspace's
}

// sourceRoots are the folders named folder that Gemini CLI looks in, lowest precedence
// first: enabled extensions' <extension>/<folder>, the user's ~/.gemini/<folder>, and a
// trusted workspace's .gemini/<folder>.
func sourceRoots(env registry.Env, d *registry.Discovery, folder string) []sourceRoot {
	var out []sourceRoot
	for _, x := range d.Effective() {
		if x.Active() {
			out = append(out, sourceRoot{filepath.Join(x.Path, folder), x.Name, x})
		}
	}
	out = append(out, sourceRoot{dir: filepath.Join(env.GeminiDir(), folder), source: "user"})
	if ws := commands.Workspace(env); env.FolderTrusted(ws) {
		out = append(out, sourceRoot{dir: filepath.Join(paths.Workspace(ws).GeminiDir(), folder), source: "workspace"})
	}
	return out
}

// EnabledSkills are skills without those disabled (settings' skills.disabled).
func EnabledSkills(skills []Skill, disabled []string) []Skill {
	return slices.DeleteFunc(slices.Clone(skills), func(sk Skill) bool { return slices.Contains(disabled, sk.Name) })
}

func skillDescription(text string) string {
	if d := frontmatter.Field(text, "description"); d != "" {
		return d
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && l != "---" && !strings.Contains(l, ":") {
			return l
		}
	}
	return ""
}
