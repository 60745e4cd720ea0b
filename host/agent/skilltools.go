package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/limits"
)

// A skill's tools/ folder holds programs the skill ships (the SDK design's skill layout:
// SKILL.md, then tools/). Chosen where the design is silent, as a skill author who writes
// Claude Code skill scripts or MCP tools would expect:
//
//   - Each executable file of tools/ (a regular file, not a link, not hidden) is a tool
//     named <skill>_<file name without its extension> (pdf's tools/fill.py is pdf_fill), the
//     name's other characters than letters, digits, _ . : - made _.
//   - A sidecar tools/<name>.json may describe it as an MCP tool is described:
//     {"description": "…", "inputSchema": {JSON Schema}, "kind": "read"}. Without one, the
//     description says to follow the skill's instructions, any JSON object is accepted and
//     the kind is execute (asked about in the default approval mode, like a shell command).
//   - The tool is offered only while its skill is active in the session (activate_skill or
//     /skill): from the request after the activation on.
//   - A call runs the program with the call's arguments as a JSON object on stdin, in the
//     workspace, through the launcher every extension program goes through: an extension's
//     skill with that extension's environment and sandbox, as agreed at consent
//     (commands.Program, like its hooks and commands); the user's, a workspace's or a
//     program's skill with the project's sandbox (commands.UserProgram, like the user's
//     hooks), its skill folder readable. GEM_SKILL_DIR names the skill's folder. Its stdout
//     is the result; a non-zero exit is a failed call, its stderr the message.

// SkillTool is one executable of a skill's tools/ folder.
type SkillTool struct {
	Spec tools.Spec // the name, description, arguments' schema and kind the model sees
	Path string     // the executable
}

// skillToolSidecar is a tool's tools/<name>.json.
type skillToolSidecar struct {
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Kind        tools.Kind      `json:"kind"`
}

// skillToolKinds are the kinds a sidecar may declare (Gemini CLI's).
var skillToolKinds = []tools.Kind{tools.KindRead, tools.KindEdit, tools.KindDelete, tools.KindMove, tools.KindSearch, tools.KindExecute, tools.KindThink, tools.KindFetch, tools.KindOther}

// notToolName matches what a tool's name may not hold (Gemini's function names).
var notToolName = regexp.MustCompile(`[^A-Za-z0-9_.:-]`)

// maxToolName is the longest function name the Gemini API takes.
const maxToolName = 64

// skillToolsOf reads the tools of sk's tools/ folder (none when it has no such folder);
// a tool that cannot be offered is left out, and said.
func skillToolsOf(sk Skill) ([]SkillTool, []error) {
	dir := filepath.Join(filepath.Dir(sk.Path), "tools")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, nil // no tools/ (a link is none either: it could lead anywhere)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("skill %s: %w", sk.Name, err)}
	}
	var out []SkillTool
	var errs []error
	for _, e := range entries {
		t, ok, err := skillTool(sk.Name, dir, e)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("skill %s: %w (the tool is left out)", sk.Name, err))
		case ok && slices.ContainsFunc(out, func(o SkillTool) bool { return o.Spec.Name == t.Spec.Name }):
			errs = append(errs, fmt.Errorf("skill %s: %s: another file of tools/ is the tool %s already: rename one (it is left out)", sk.Name, t.Path, t.Spec.Name))
		case ok:
			out = append(out, t)
		}
	}
	return out, errs
}

// skillTool is the tool the entry e of a skill's tools/ folder dir is, if it is one.
func skillTool(skill, dir string, e os.DirEntry) (SkillTool, bool, error) {
	info, err := e.Info()
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 || strings.HasPrefix(e.Name(), ".") {
		return SkillTool{}, false, nil // not an executable file (a sidecar, a README, a link)
	}
	stem := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
	path := filepath.Join(dir, e.Name())
	name := notToolName.ReplaceAllString(skill+"_"+stem, "_")
	if len(name) > maxToolName {
		return SkillTool{}, false, fmt.Errorf("%s: the tool name %s is over %d characters: shorten the file's name", path, name, maxToolName)
	}
	spec := tools.Spec{Name: name, Kind: tools.KindExecute, InputSchema: json.RawMessage(`{"type":"object"}`),
		Description: fmt.Sprintf("Runs %s of the skill %s: see the skill's instructions for what it does and takes.", e.Name(), skill)}
	sidecar := stem + ".json"
	data, err := fsx.ReadBeneath(dir, sidecar, MaxContextFile)
	if errors.Is(err, os.ErrNotExist) {
		return SkillTool{Spec: spec, Path: path}, true, nil
	}
	if err != nil {
		return SkillTool{}, false, fmt.Errorf("%s: %w", filepath.Join(dir, sidecar), err)
	}
	var sc skillToolSidecar
	if err := json.Unmarshal(data, &sc); err != nil {
		return SkillTool{}, false, fmt.Errorf("%s: %w: write {\"description\": …, \"inputSchema\": {…}, \"kind\": …}", filepath.Join(dir, sidecar), err)
	}
	if sc.Kind != "" && !slices.Contains(skillToolKinds, sc.Kind) {
		return SkillTool{}, false, fmt.Errorf("%s: kind %q: use one of %v", filepath.Join(dir, sidecar), sc.Kind, skillToolKinds)
	}
	if sc.Description != "" {
		spec.Description = sc.Description
	}
	if len(sc.InputSchema) > 0 {
		spec.InputSchema = sc.InputSchema
	}
	if sc.Kind != "" {
		spec.Kind = sc.Kind
	}
	return SkillTool{Spec: spec, Path: path}, true, nil
}

// withSkillTools reads the tools of each skill.
func withSkillTools(skills []Skill) ([]Skill, []error) {
	var errs []error
	for i := range skills {
		var e []error
		skills[i].Tools, e = skillToolsOf(skills[i])
		errs = append(errs, e...)
	}
	return skills, errs
}

// skillLauncher runs skills' tools through the session's launcher (Open makes it: without
// one no skill tool is offered).
type skillLauncher struct{ l *launch.Launcher }

// program is how t of sk starts: with its extension's environment and sandbox, or the
// project's with the skill's folder readable.
func (l *skillLauncher) program(sk Skill, t SkillTool) (sandbox.Program, error) {
	root := l.l.Workspace()
	skillDir := filepath.Dir(sk.Path)
	var childEnv []string
	var pol *sandbox.Policy
	var err error
	if sk.x != nil {
		childEnv, pol, err = l.l.Program(sk.x, commands.ProgramSpec{})
	} else {
		childEnv, pol, err = l.l.UserProgram("_skills", t.Path)
		if err == nil {
			pol.Read = append(pol.Read, skillDir)
		}
	}
	if err != nil {
		return sandbox.Program{}, err
	}
	childEnv = append(childEnv, "GEM_SKILL_DIR="+skillDir)
	return sandbox.Program{Path: t.Path, Env: childEnv, Dir: root, Name: "tool " + t.Spec.Name + " of skill " + sk.Name, Extension: sk.Extension, Policy: pol}, nil
}

// run runs t of sk with args on its stdin.
func (l *skillLauncher) run(ctx context.Context, sk Skill, t SkillTool, args json.RawMessage) (*tools.Result, error) {
	spec, err := l.program(sk, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	stdout, stderr := &limits.Buffer{Max: limits.ShellOutput}, &limits.Buffer{Max: limits.ShellOutput}
	code, err := l.l.Run(ctx, launch.Extension, spec, sandbox.Streams{Stdin: bytes.NewReader(args), Stdout: stdout, Stderr: stderr})
	if err != nil {
		return nil, err
	}
	if code != 0 {
		msg := fmt.Sprintf("%s exited with status %d: %s", filepath.Base(t.Path), code, strings.TrimSpace(stderr.String()))
		return &tools.Result{Text: stdout.String(), Error: &tools.ResultError{Type: tools.ErrorExecution, Message: msg}}, nil
	}
	return &tools.Result{Text: stdout.String()}, nil
}

// activeSkillTools are the tools of the skills active in s, each with its skill, leaving out
// a name another tool has (the catalog's, the program's, a subagent, activate_skill, or an
// earlier skill's).
func (a *Agent) activeSkillTools(s *Session) ([]SkillTool, []Skill) {
	if a.launch == nil || s == nil {
		return nil, nil
	}
	var out []SkillTool
	var of []Skill
	taken := func(name string) bool {
		_, inCatalog := a.Tools.Lookup(name)
		_, isFunc := a.fn(name)
		return inCatalog || isFunc || name == activateSkillSpec.Name || a.subagent(name) != nil ||
			slices.ContainsFunc(out, func(t SkillTool) bool { return t.Spec.Name == name })
	}
	for _, sk := range a.Skills {
		if !slices.Contains(s.ActiveSkills, sk.Name) {
			continue
		}
		for _, t := range sk.Tools {
			if !taken(t.Spec.Name) {
				out, of = append(out, t), append(of, sk)
			}
		}
	}
	return out, of
}

// skillToolFunc is the active skill tool named name as a Func the catalog calls (its
// arguments validated, the policy's decision by its kind and extension, the audit), and
// the extension it belongs to ("" for a skill of no extension).
func (a *Agent) skillToolFunc(s *Session, name string) (tools.Func, string, bool) {
	list, skills := a.activeSkillTools(s)
	for i, t := range list {
		if t.Spec.Name != name {
			continue
		}
		sk := skills[i]
		run := func(ctx context.Context, args json.RawMessage) (*tools.Result, error) {
			return a.launch.run(ctx, sk, t, args)
		}
		owner := ""
		if sk.x != nil {
			owner = sk.x.Name
		}
		return tools.Func{Spec: t.Spec, Extension: sk.Extension, Run: run}, owner, true
	}
	return tools.Func{}, "", false
}
