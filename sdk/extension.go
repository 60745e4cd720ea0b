package sdk

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry"
)

// Skill is a folder of skills or one skill (SkillDir).
type Skill struct{ dir string }

// SkillDir is the skill in path (a folder holding SKILL.md) or, when path holds none, the
// skills of its subfolders (a skill root, <path>/<name>/SKILL.md). The skills are offered as
// gem offers its own: named and described in the system instruction, their instructions
// added when the model activates one (activate_skill). A program's skill replaces a found
// skill of the same name.
func SkillDir(path string) Skill { return Skill{dir: path} }

// SubagentSpec describes a subagent: a tool the model gives a whole task to, which works on
// it in a conversation of its own and answers with its findings.
type SubagentSpec struct {
	Name        string // a slug: lowercase letters, digits, - and _
	Description string // when the model should use it
	// Instructions are its system instructions (after gem's base prompt); a Dynamic one is
	// made for each call, with the calling session's context.
	Instructions Instruction
	// TaskInstructions, when set, adds instructions made for each call from its task (the
	// query the model wrote) and the calling session's context: the design's
	// instructions(prompt, ctx). They follow Instructions.
	TaskInstructions func(task string, sc SessionContext) string
	// Tools are its own tools; with them it has those alone, else every tool of the
	// session (ToolNames narrows them: names or patterns such as mcp_*).
	Tools     []Tool
	ToolNames []string
	Model     string        // "": the session's
	MaxTurns  int           // 0: 30
	Timeout   time.Duration // 0: 10 minutes
	// Agent, when set, answers instead: the task is sent to a new session of that agent
	// (its own settings, tools and model) and its answer returned.
	Agent *Agent
}

// Subagent is a subagent for Options.Subagents or an extension (NewSubagent).
type Subagent struct{ spec SubagentSpec }

// NewSubagent makes a subagent.
//
// How context is inherited (the design leaves it open): a subagent's conversation starts
// empty but for its task (the query the model writes, which must carry what it needs); its
// system instruction is gem's base prompt and its own Instructions (not the parent's context
// files); its calls run under the parent's policy, hooks and approvals; its tools'
// SessionContext has the parent's session id (SessionID) and the subagent's own transcript.
// Its tokens count in the parent's usage.
func NewSubagent(spec SubagentSpec) Subagent { return Subagent{spec: spec} }

// ExtensionSpec bundles what an extension brings, as a program declares it.
type ExtensionSpec struct {
	Name        string
	Description string
	// Instructions join the agent's own (after them).
	Instructions []Instruction
	Tools        []Tool
	Skills       []Skill
	Hooks        []Hook
	Subagents    []Subagent
}

// Extension is a bundle of instructions, tools, skills, hooks and subagents: declared by
// the program (NewExtension) or a Gemini CLI extension on disk or installed
// (LoadExtension).
type Extension struct {
	spec ExtensionSpec
	load string // LoadExtension's argument
}

// NewExtension bundles spec. Its tools, hooks and subagents are the extension's (named so
// in the audit log; its hooks may rewrite its own tools' input and output, as an installed
// extension's may).
func NewExtension(spec ExtensionSpec) Extension { return Extension{spec: spec} }

// LoadExtension is a Gemini CLI extension as gem loads it: dir is an extension folder (its
// gemini-extension.json, MCP servers, commands, context file, hooks, skills, agents, tool
// plugins), given as a path (with a /: ./my-ext, /opt/ext), or the name of an installed one
// (a bare name is never read as a folder). A folder's manifest as written is the
// program's consent (its programs get what their commands need, still sandboxed); an
// installed extension is as gem sees it (its consent, enablement and folder trust). The
// folder is read by NewAgent, which fails naming what is wrong.
func LoadExtension(dir string) Extension { return Extension{load: dir} }

// Name is the extension's name (a loaded one's: its argument until NewAgent reads it).
func (x Extension) Name() string {
	if x.load != "" {
		return x.load
	}
	return x.spec.Name
}

// loaded adds a loaded extension to d: a folder's replaces a found one of its name.
func (x Extension) loaded(env registry.Env, d *registry.Discovery) error {
	if x.load == "" {
		return nil
	}
	if !strings.ContainsRune(x.load, filepath.Separator) {
		// A bare name is an installed extension's, never a folder of the current directory:
		// a cloned project holding a folder of that name must not stand in for it.
		installed := registry.Discover(env, registry.Providers)
		found := installed.Find(x.load)
		if found == nil {
			return fmt.Errorf("sdk: LoadExtension(%q): no installed extension of that name (gem ext list lists them; give a folder as a path, ./%s)", x.load, x.load)
		}
		if !found.Active() {
			return fmt.Errorf("sdk: LoadExtension(%q): %s", x.load, found.Explain())
		}
		if d.Find(found.Name) == nil {
			d.All = append(d.All, found)
		}
		return nil
	}
	ext, err := registry.FromProgram(x.load)
	if err != nil {
		return fmt.Errorf("sdk: LoadExtension(%q): %w", x.load, err)
	}
	d.All = slices.DeleteFunc(d.All, func(o *registry.Extension) bool { return o.Name == ext.Name })
	d.All = append(d.All, ext)
	return nil
}

// parts are what the agent adds for its options and extensions.
type parts struct {
	instructions []Instruction
	funcs        []tools.Func
	hooks        []*agent.Hook
	skills       []agent.Skill
	subagents    []*agent.Subagent
}

// add adds one bundle's parts, owned by owner ("" for the program's own: its tools are
// "sdk"'s, its hooks agent.ProgramSource's).
func (p *parts) add(a *Agent, owner string, ins []Instruction, ts []Tool, skills []Skill, hooks []Hook, subs []Subagent) error {
	p.instructions = append(p.instructions, ins...)
	hookSource := owner
	if owner == "" {
		owner, hookSource = "sdk", agent.ProgramSource
	}
	for _, t := range ts {
		if err := t.check(); err != nil {
			return err
		}
		f := t.fn(a)
		f.Extension = owner
		p.funcs = append(p.funcs, f)
	}
	for _, sk := range skills {
		list, err := agent.SkillsIn(sk.dir, owner)
		if err != nil {
			return fmt.Errorf("sdk: SkillDir: %w", err)
		}
		p.skills = append(p.skills, list...)
	}
	for _, h := range hooks {
		hk, err := h.agentHook(a, hookSource)
		if err != nil {
			return fmt.Errorf("sdk: %w", err)
		}
		p.hooks = append(p.hooks, hk)
	}
	for _, s := range subs {
		sa, err := s.agentSubagent(a, owner)
		if err != nil {
			return err
		}
		p.subagents = append(p.subagents, sa)
	}
	return nil
}

// agentSubagent is s as the agent runs it.
func (s Subagent) agentSubagent(a *Agent, owner string) (*agent.Subagent, error) {
	sp := s.spec
	if sp.Name == "" || sp.Description == "" {
		return nil, fmt.Errorf("sdk: a subagent needs a Name and a Description")
	}
	sa := &agent.Subagent{Name: sp.Name, Description: sp.Description, Source: owner, Path: "subagent " + sp.Name,
		Model: sp.Model, MaxTurns: sp.MaxTurns, Timeout: sp.Timeout, Tools: sp.ToolNames}
	for _, t := range sp.Tools {
		if err := t.check(); err != nil {
			return nil, err
		}
		f := t.fn(a)
		f.Extension = owner
		sa.Funcs = append(sa.Funcs, f)
		sa.Tools = append(sa.Tools, t.Name())
	}
	if sp.Agent != nil {
		sub := sp.Agent
		sa.Run = func(ctx context.Context, query string) (string, error) {
			sess, err := sub.Session(ctx)
			if err != nil {
				return "", err
			}
			defer sess.Close()
			res, err := sess.Send(ctx, query)
			if res == nil {
				return "", err
			}
			return res.Text, err
		}
		return sa, nil
	}
	in, forTask := sp.Instructions, sp.TaskInstructions
	sa.Instructions = func(ctx context.Context, query string) string {
		sc := a.contextOf(ctx, agent.SessionOf(ctx))
		text := in.text(sc)
		if forTask != nil {
			text = strings.TrimSpace(text + "\n\n" + forTask(query, sc))
		}
		return text
	}
	return sa, nil
}
