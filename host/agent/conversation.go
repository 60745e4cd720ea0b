package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/limits"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// Config is what composes a Conversation. The caller opens the tool catalog (its policy and
// approval mode are the caller's flags) and the model client (NewClient); Open loads the rest.
type Config struct {
	Env         registry.Env
	Discovery   *registry.Discovery
	Settings    *settings.Settings // nil: none
	Environ     []string           // the caller's environment, for hooks and programs
	Catalog     *tools.Catalog
	Client      ModelClient // the model's backend (NewClient, GenaiClient, or a program's own)
	ReadSecrets registry.SecretReader
	Logger      hclog.Logger
	// FirstRequest closes when the client's first request goes out (NewClient's): MCP
	// servers whose tool lists are cached start after it, the others before the first turn.
	FirstRequest <-chan struct{}
	Model        string // "" : the settings' model.name, else DefaultModel
	Plan         bool   // plan mode: the model is told, its answers kept as the plan file
	Resume       string // a saved session's id, or "latest"; "": a new session
	// Funcs and Instructions go to the Agent (the SDK's typed tools and instructions).
	Funcs        []tools.Func
	Instructions func(context.Context, *Session) string
	// Hooks run after those of extensions and settings files (NewFuncHook: the SDK's);
	// hooksConfig does not turn them off (they are the program's, not configuration).
	Hooks []*Hook
	// Skills and Subagents join those found (a skill of the same name replaces the found
	// one; a subagent's name must be free).
	Skills    []Skill
	Subagents []*Subagent
	// Warn hears each problem found while loading (a hook, command, context file or agent
	// skipped); Say, what hooks tell the user; Progress, long waits (MCP servers started for
	// the first time). Nil: not told.
	Warn     func(error)
	Say      func(string)
	Progress func(string)
}

// Conversation is one conversation with the model as gem composes it: the catalog's tools,
// the enabled extensions' hooks, prompt commands, context files, skills and subagents, the
// user's settings and the session store. The SDK composes it; the CLI (gem -p, gem shell)
// and gem acp reach it through the SDK and keep only flags and rendering. Not safe for
// concurrent turns.
type Conversation struct {
	Agent    *Agent
	Session  *Session
	Catalog  *tools.Catalog
	Hooks    *Hooks
	Files    []ContextFile
	Commands []*PromptCommand
	Plan     bool
	Last     Stats // the last turn's
	cfg      Config
	expander Expander
	prompts  mcpPrompts
}

// planModeNote tells the model what plan mode is (Gemini CLI's plan mode: read, search and
// plan; change nothing).
const planModeNote = `

# Plan mode
You are in plan mode: you may read, list and search the project and fetch pages, but every
tool that changes something (writing or replacing files, running commands, saving memories)
is refused. Study what the request needs, then answer with a plan: the steps, the files each
touches and what changes in them, the risks and how to check the result. Your answer is kept
as the plan file; the user leaves plan mode to carry it out.`

// Open composes a conversation: it starts the MCP servers whose tools are not known yet
// (those cached start once the first request is out), loads hooks, prompt commands, context
// files, skills and subagents (an agent whose name a tool has is dropped), opens or resumes
// the session and runs the SessionStart hooks. Problems that skip one part go to Warn.
func Open(ctx context.Context, cfg Config) (*Conversation, error) {
	if cfg.Catalog == nil || cfg.Client == nil {
		return nil, errors.New("agent.Open: a catalog and a client are needed")
	}
	warn := func(err error) {
		if cfg.Warn != nil {
			cfg.Warn(err)
		}
	}
	if cfg.Settings == nil {
		cfg.Settings = &settings.Settings{}
	}
	reg, env, st := cfg.Catalog, cfg.Env, cfg.Settings
	d := cfg.Discovery
	if d == nil {
		d = registry.Discover(env, registry.Providers)
	}
	// MCP servers whose tool list is cached start in the background: the first request does
	// not wait for them (a call to one of their tools waits for that server alone). Those
	// never started are waited for, and said (a first npx start downloads its package).
	waitFor := reg.UncachedServers()
	t0 := time.Now()
	if len(waitFor) > 0 && cfg.Progress != nil {
		cfg.Progress(fmt.Sprintf("starting MCP servers for the first time: %s…", strings.Join(waitFor, ", ")))
	}
	warmErrs := reg.Warm(ctx, cfg.FirstRequest)
	if len(waitFor) > 0 && cfg.Progress != nil {
		cfg.Progress(fmt.Sprintf("MCP servers started in %.1fs", time.Since(t0).Seconds()))
	}
	for _, err := range warmErrs {
		warn(err)
	}
	hooks, errs := LoadHooks(reg.Launcher(), env, d, cfg.Logger)
	errs = append(errs, hooks.AddSettings(env, st)...)
	hooks.addFuncs(cfg.Hooks)
	cmds, cmdErrs := PromptCommands(env, d)
	files, skills, fileErrs := loadContext(env, d, st, cfg.Skills)
	subagents, subErrs := Subagents(env, d)
	errs = append(errs, subErrs...)
	if st.AgentsOff {
		subagents = nil // experimental.enableAgents: false
	}
	subagents = append(subagents, cfg.Subagents...)
	subagents, clashErrs := settleSubagents(subagents, reg)
	errs = append(errs, clashErrs...)
	for _, e := range append(append(errs, cmdErrs...), fileErrs...) {
		warn(e)
	}
	hooks.Warn = func(msg string) { warn(errors.New(msg)) }
	hooks.Say = func(msg string) {
		if cfg.Say != nil {
			cfg.Say(msg)
		}
	}
	c := &Conversation{Catalog: reg, Commands: cmds, Hooks: hooks, Files: files, Plan: cfg.Plan, cfg: cfg}
	c.Agent = &Agent{
		Client: cfg.Client, Model: cmp.Or(cfg.Model, st.Model, DefaultModel), WebSearchModel: st.WebSearchModel, Tools: reg, Hooks: hooks,
		System: SystemInstruction(files, skills) + planNote(cfg.Plan), Skills: skills,
		CompressAt: st.CompressionThreshold, Subagents: subagents,
		Funcs: cfg.Funcs, Instructions: cfg.Instructions,
		launch: &skillLauncher{reg.Launcher()},
	}
	c.Agent.Checkpoints = openCheckpoints(st.Checkpointing, env.CheckpointDir, reg.CoreWorkspace(), cfg.Environ, warn)
	// GEM_MODEL_TOKEN_LIMIT: the input limit of a model gem does not know (or a small one, to
	// see compression at work).
	if env.Getenv != nil {
		if n, err := strconv.Atoi(env.Getenv("GEM_MODEL_TOKEN_LIMIT")); err == nil && n > 0 {
			c.Agent.TokenLimit = n
		}
	}
	c.expander = Expander{Root: reg.Launcher().Workspace(), Shell: c.shellInjection}
	store := Sessions{Dir: env.SessionsDir()}
	source := "startup"
	if cfg.Resume != "" {
		s, err := store.Load(cfg.Resume)
		if err != nil {
			return nil, err
		}
		c.Session, source = s, "resume"
	} else {
		c.Session = store.New(c.Agent.Model)
	}
	c.startSession(ctx, source)
	return c, nil
}

// loadContext reads the context files and the enabled skills, as the settings name them.
func loadContext(env registry.Env, d *registry.Discovery, st *settings.Settings, extra []Skill) ([]ContextFile, []Skill, []error) {
	files, errs := ContextFiles(env, d, st.ContextFiles...)
	skills := EnabledSkills(Skills(env, d), st.DisabledSkills)
	for _, sk := range extra {
		skills = slices.DeleteFunc(skills, func(o Skill) bool { return o.Name == sk.Name })
		skills = append(skills, sk)
	}
	skills, toolErrs := withSkillTools(skills)
	return files, skills, append(errs, toolErrs...)
}

// settleSubagents drops the agents whose name a tool has already, and reports agents that
// name tools the session lacks (they go without them).
func settleSubagents(subagents []*Subagent, reg *tools.Catalog) ([]*Subagent, []error) {
	var errs []error
	subagents = slices.DeleteFunc(subagents, func(sa *Subagent) bool {
		if _, taken := reg.Lookup(sa.Name); taken {
			errs = append(errs, fmt.Errorf("%s: the agent name %s is a tool's name already: rename the agent", sa.Path, sa.Name))
			return true
		}
		return false
	})
	for _, sa := range subagents {
		unknown := sa.UnknownTools(func(name string) bool {
			_, ok := reg.Lookup(name)
			return ok || slices.ContainsFunc(subagents, func(o *Subagent) bool { return o.Name == name })
		})
		if len(unknown) > 0 {
			errs = append(errs, fmt.Errorf("%s: tools %s: no such tool here, so the agent goes without (core tools, extension tools, mcp_* patterns and Claude Code's Bash, Read, Write, Edit, Grep, Glob are known)", sa.Path, strings.Join(unknown, ", ")))
		}
	}
	return subagents, errs
}

func planNote(plan bool) string {
	if plan {
		return planModeNote
	}
	return ""
}

// startSession runs the SessionStart hooks (source: startup, resume or clear): their
// additionalContext goes with the next prompt.
func (c *Conversation) startSession(ctx context.Context, source string) {
	out := c.Hooks.Run(ctx, "SessionStart", map[string]any{"transcript_path": c.Session.Path(), "session_id": c.Session.ID, "source": source})
	c.Session.nextContext = out.Context
}

// endSession runs the SessionEnd hooks (reason: exit or clear).
func (c *Conversation) endSession(reason string) {
	c.Hooks.Run(context.Background(), "SessionEnd", map[string]any{"transcript_path": c.Session.Path(), "session_id": c.Session.ID, "reason": reason})
}

// NewSession ends the conversation (SessionEnd) and starts a new one (SessionStart), as
// Gemini CLI's /clear does; active skills stay active. The old one is saved if it said
// anything.
func (c *Conversation) NewSession() error {
	c.endSession("clear")
	var err error
	if len(c.Session.History) > 0 {
		err = c.Save()
	}
	c.Session = Sessions{Dir: c.cfg.Env.SessionsDir()}.New(c.Agent.Model)
	c.startSession(context.Background(), "clear")
	return err
}

// Close ends the conversation (SessionEnd) and stops the catalog's programs.
func (c *Conversation) Close() {
	c.End()
	c.Catalog.Close()
}

// End ends the conversation (its SessionEnd hooks run) and leaves the catalog running, for
// the other conversations that share it (the SDK's sessions).
func (c *Conversation) End() { c.endSession("exit") }

// Command finds the prompt command of "/name args".
func (c *Conversation) Command(input string) (*PromptCommand, string) {
	if !strings.HasPrefix(input, "/") {
		return nil, ""
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	for _, pc := range c.Commands {
		if pc.Name == name {
			return pc, strings.TrimSpace(args)
		}
	}
	return nil, ""
}

// SkillFor finds the skill input ("/name request") activates, and the request; nil when
// it names none.
func (c *Conversation) SkillFor(input string) (*Skill, string) {
	if !strings.HasPrefix(input, "/") {
		return nil, ""
	}
	name, rest, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	for i := range c.Agent.Skills {
		if c.Agent.Skills[i].Name == name {
			return &c.Agent.Skills[i], strings.TrimSpace(rest)
		}
	}
	return nil, ""
}

// Expand turns the user's input into the prompt sent: a prompt command's expansion
// (its !{…} run sandboxed), else an MCP server's prompt filled in (MCPPromptFor), else the
// input with the project's @file and @folder added — after "/<skill>" activated the skill
// (SkillFor). A name is looked for in that order: a prompt command hides an MCP prompt,
// which hides a skill.
// Problems with @paths are warnings (Config.Warn); the prompt goes anyway.
func (c *Conversation) Expand(ctx context.Context, input string) (string, error) {
	if pc, args := c.Command(input); pc != nil {
		return c.expander.Expand(ctx, pc, args)
	}
	if mp, args := c.MCPPromptFor(ctx, input); mp != nil {
		return mp.fill(ctx, c, args)
	}
	if sk, rest := c.SkillFor(input); sk != nil {
		// "/<skill> request" activates the skill (as Claude Code's skill commands do) and
		// sends the request with it; alone, it asks the model to use it.
		c.Agent.ActivateSkill(c.Session, sk.Name)
		if rest == "" {
			rest = fmt.Sprintf("Use the %s skill.", sk.Name)
		}
		input = rest
	}
	prompt, errs := c.expander.ExpandAtPaths(input)
	for _, e := range errs {
		if c.cfg.Warn != nil {
			c.cfg.Warn(e)
		}
	}
	return prompt, nil
}

// Send runs one turn with prompt as it is (Expand makes it from input) and saves the
// session (a failure to save is a warning: the answer stands).
func (c *Conversation) Send(ctx context.Context, prompt string) (string, Stats, error) {
	text, st, err := c.Agent.Turn(ctx, c.Session, prompt)
	c.Last = st
	if serr := c.Save(); serr != nil && c.cfg.Warn != nil {
		c.cfg.Warn(fmt.Errorf("saving the session: %w", serr))
	}
	return text, st, err
}

// Save writes the session with the policy's mode now (Session.ApprovalMode).
func (c *Conversation) Save() error {
	if e := c.Catalog.Policy(); e != nil {
		c.Session.ApprovalMode = string(e.CurrentMode())
	}
	return c.Session.Save()
}

// Approve goes on with a turn that waits for approvals (Agent.ResumeTurn), then saves the
// session.
func (c *Conversation) Approve(ctx context.Context, promptFor func(callID string) prompt.Prompter) (string, Stats, error) {
	text, st, err := c.Agent.ResumeTurn(ctx, c.Session, promptFor)
	c.Last = st
	if serr := c.Save(); serr != nil && c.cfg.Warn != nil {
		c.cfg.Warn(fmt.Errorf("saving the session: %w", serr))
	}
	return text, st, err
}

// KeepPlan writes a plan-mode answer to the session's plan file ($GEM_HOME/plans/<session>.md,
// the latest plan under the request it answers) and returns its path.
func (c *Conversation) KeepPlan(request, plan string) (string, error) {
	file := filepath.Join(c.cfg.Env.PlansDir(), strings.ReplaceAll(c.Session.ID, "/", "_")+".md")
	doc := fmt.Sprintf("# Plan\n\nRequest: %s\n\n%s\n", strings.TrimSpace(request), strings.TrimSpace(plan))
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	return file, fsx.WriteFileAtomic(file, []byte(doc), 0o600)
}

// ReloadContext reads the context files and skills again (/memory refresh, after
// save_memory).
func (c *Conversation) ReloadContext() {
	files, skills, errs := loadContext(c.cfg.Env, c.discovery(), c.cfg.Settings, c.cfg.Skills)
	for _, e := range errs {
		if c.cfg.Warn != nil {
			c.cfg.Warn(e)
		}
	}
	c.Files = files
	c.Agent.System, c.Agent.Skills = SystemInstruction(files, skills)+planNote(c.Plan), skills
}

// discovery is the conversation's extensions found again (its configured Discovery's
// program-loaded ones kept).
func (c *Conversation) discovery() *registry.Discovery {
	d := registry.Discover(c.cfg.Env, registry.Providers)
	if c.cfg.Discovery != nil {
		for _, x := range c.cfg.Discovery.All {
			if x.EnabledBy == "program" {
				d.All = append(d.All, x)
			}
		}
	}
	return d
}

// shellInjection runs a prompt command's !{…}: decided like run_shell_command, then run by
// /bin/sh in the project under the sandbox of the command's extension (or the project's).
func (c *Conversation) shellInjection(ctx context.Context, pc *PromptCommand, command string) (string, int, error) {
	if err := c.Catalog.AuthorizeShell(ctx, pc.Extension, command, tools.CallOptions{}); err != nil {
		return "", 0, err
	}
	env, l := c.cfg.Env, c.Catalog.Launcher()
	root := c.expander.Root
	var childEnv []string
	var pol *sandbox.Policy
	if x := pc.ExtensionOf(); x != nil {
		// An extension's command runs with that extension's environment and sandbox.
		var err error
		if childEnv, pol, err = l.Program(x, commands.ProgramSpec{}); err != nil {
			return "", 0, fmt.Errorf("/%s: %w", pc.Name, err)
		}
	} else {
		// The user's and the project's commands: the project's sandbox, a folder of their own
		// (scripts the user's commands name under the home folder readable).
		var roots []string
		if pc.Source == "user" {
			roots = []string{env.Home}
		}
		var err error
		if childEnv, pol, err = l.UserProgram("_prompt-commands", command, roots...); err != nil {
			return "", 0, err
		}
	}
	out := &limits.Buffer{Max: limits.ShellOutput}
	spec := sandbox.Program{Path: "/bin/sh", Args: []string{"-c", command}, Env: childEnv, Dir: root, Name: "!{" + command + "}", Policy: pol}
	code, err := l.Run(ctx, launch.User, spec, sandbox.Streams{Stdout: out, Stderr: out})
	if err != nil {
		return "", 0, err
	}
	return strings.TrimRight(out.String(), "\n"), code, nil
}
