package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gemhost/gem/internal/frontmatter"
	"github.com/gemhost/gem/manifest/claude"
	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
)

// Subagent is a specialist the model may hand a task to, as in Gemini CLI: a Markdown file
// agents/<file>.md whose YAML front matter names and configures it and whose body is its
// system instruction. It is offered to the model as a tool of its name taking {"query": …};
// a call runs the subagent's own loop (its own history, instructions, model, temperature,
// tool subset and limits) through the same catalog — so the same policy, confirmations,
// sandbox, audit and hooks — and returns its final answer as the tool's result. Subagents
// cannot call subagents (nesting is one level).
//
// Front matter keys: name (a slug: lowercase letters, digits, '-' and '_'; required),
// description (required), kind (local; remote agents are not supported and skipped), tools
// (names or wildcards — "*", "mcp_*", "mcp_<server>_*"; omitted: every tool of the session),
// model (omitted or "inherit": the session's), temperature, max_turns (default 30),
// timeout_mins (default 10). mcpServers inline in an agent file are not run (a warning says
// so); the agent uses the session's servers.
type Subagent struct {
	Name        string
	Description string
	Source      string // the extension, or "user", "workspace"
	Path        string
	Prompt      string
	Tools       []string
	Model       string
	Temperature *float32
	MaxTurns    int
	Timeout     time.Duration
	// A program's subagent (the SDK's) may make its instructions for each call
	// (Instructions, in Prompt's place), bring tools of its own (Funcs, which Tools should
	// name) or be run whole by the program (Run: another agent answers the query).
	Instructions func(ctx context.Context, query string) string
	Funcs        []tools.Func
	Run          func(ctx context.Context, query string) (string, error)
}

// Subagent defaults, as in Gemini CLI.
const (
	DefaultSubagentTurns   = 30
	DefaultSubagentTimeout = 10 * time.Minute
)

var slug = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// toolAliases are other names of core tools an agent file may use: Gemini CLI's older
// names, and Claude Code's tool names (its agents' tools: lists), mapped to gem's.
var toolAliases = func() map[string]string {
	m := map[string]string{"search_file_content": "grep_search"}
	maps.Copy(m, claude.Tools)
	return m
}()

// toolList is an agent's tools: a YAML list (Gemini CLI's), or one comma-separated string
// (Claude Code's "Read, Grep, Bash").
type toolList []string

func (l *toolList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = nil
		for _, t := range strings.Split(n.Value, ",") {
			if t = strings.TrimSpace(t); t != "" {
				*l = append(*l, t)
			}
		}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*l = list
	return nil
}

// claudeModels are the model names of Claude Code's agent files: such an agent runs on
// the session's model.
var claudeModels = []string{"inherit", "sonnet", "opus", "haiku"}

// UnknownTools are the tools an agent names that no tool of the session has (has answers
// for a name): patterns (mcp_*) are not checked. They are left out of the agent's tools;
// the caller warns.
func (sa *Subagent) UnknownTools(has func(string) bool) []string {
	var out []string
	for _, t := range sa.Tools {
		own := slices.ContainsFunc(sa.Funcs, func(f tools.Func) bool { return f.Spec.Name == t })
		if strings.ContainsAny(t, "*?[") || own || has(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

type agentFront struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Kind        string         `yaml:"kind"`
	Tools       toolList       `yaml:"tools"`
	MCPServers  map[string]any `yaml:"mcpServers"`
	Model       string         `yaml:"model"`
	Temperature *float64       `yaml:"temperature"`
	MaxTurns    int            `yaml:"max_turns"`
	TimeoutMins float64        `yaml:"timeout_mins"`
}

// Subagents lists the subagents of enabled extensions (agents/*.md), the user's
// (~/.gemini/agents/*.md) and the workspace's (.gemini/agents/*.md, in a trusted folder
// only); for one name the workspace's wins over the user's, which wins over an extension's.
// A file that is not a valid agent is an error naming it, and is skipped.
func Subagents(env registry.Env, d *registry.Discovery) ([]*Subagent, []error) {
	byName := map[string]*Subagent{}
	var errs []error
	add := func(root, source string) {
		files, _ := filepath.Glob(filepath.Join(root, "*.md"))
		for _, f := range files {
			data, err := fsx.ReadBeneath(root, filepath.Base(f), MaxContextFile)
			if err != nil {
				continue
			}
			sa, err := parseSubagent(string(data))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", f, err))
				continue
			}
			if sa == nil {
				continue
			}
			sa.Source, sa.Path = source, f
			byName[sa.Name] = sa
		}
	}
	for _, r := range sourceRoots(env, d, "agents") {
		add(r.dir, r.source)
	}
	out := make([]*Subagent, 0, len(byName))
	for _, sa := range byName {
		out = append(out, sa)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// ErrRemoteAgent is an agent file of kind remote (A2A), which gem does not run.
var ErrRemoteAgent = errors.New("remote agents (kind: remote) are not supported by gem: it is skipped")

// parseSubagent reads an agent file.
func parseSubagent(text string) (*Subagent, error) {
	front, body, ok := frontmatter.Split(text)
	if !ok {
		return nil, errors.New(`an agent file starts with YAML front matter between "---" lines (name, description, …)`)
	}
	var f agentFront
	if err := yaml.Unmarshal([]byte(front), &f); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	switch {
	case f.Kind == "remote":
		return nil, ErrRemoteAgent
	case f.Kind != "" && f.Kind != "local":
		return nil, fmt.Errorf("kind %q: use local", f.Kind)
	case !slug.MatchString(f.Name):
		return nil, fmt.Errorf("name %q: use lowercase letters, digits, '-' and '_' (it names the agent's tool)", f.Name)
	case strings.TrimSpace(f.Description) == "":
		return nil, errors.New("description is missing: the model reads it to decide when to call the agent")
	case f.Temperature != nil && (*f.Temperature < 0 || *f.Temperature > 2):
		return nil, fmt.Errorf("temperature %v: use 0 to 2", *f.Temperature)
	case f.MaxTurns < 0 || f.TimeoutMins < 0:
		return nil, errors.New("max_turns and timeout_mins must be positive")
	case len(f.MCPServers) > 0:
		return nil, errors.New("mcpServers inside an agent file are not supported by gem: declare the servers in settings.json or an extension (the agent uses the session's)")
	}
	sa := &Subagent{Name: f.Name, Description: strings.TrimSpace(f.Description), Prompt: strings.TrimSpace(body), Tools: f.Tools,
		MaxTurns: f.MaxTurns, Timeout: time.Duration(f.TimeoutMins * float64(time.Minute))}
	if !slices.Contains(claudeModels, f.Model) && !strings.HasPrefix(f.Model, "claude-") {
		sa.Model = f.Model
	}
	if f.Temperature != nil {
		sa.Temperature = genai.Ptr(float32(*f.Temperature))
	}
	for i, t := range sa.Tools {
		if alias, ok := toolAliases[t]; ok {
			sa.Tools[i] = alias
		}
	}
	return sa, nil
}

// allows reports whether the agent may call tool: every tool without a list, else a name
// or wildcard of its list.
func (sa *Subagent) allows(tool string) bool {
	if len(sa.Tools) == 0 {
		return true
	}
	for _, p := range sa.Tools {
		if ok, _ := path.Match(p, tool); ok || p == tool {
			return true
		}
	}
	return false
}

// subagentDecl is the tool the model calls a subagent with.
// spec is the subagent as a tool the model calls: of kind think (its own tool calls are
// decided one by one).
func (sa *Subagent) spec() tools.Spec {
	return tools.Spec{
		Name:        sa.Name,
		Description: sa.Description + " (A subagent: give it a whole task in query; it works on it with its own tools and returns its findings.)",
		Kind:        tools.KindThink,
		InputSchema: json.RawMessage(`{"type":"object","required":["query"],"properties":{"query":{"type":"string","description":"the task, with everything the agent needs to know"}}}`),
	}
}

// owner is whose the subagent is, for policy rules and the audit: its extension, else gem's.
func (sa *Subagent) owner() string {
	if sa.Source == "user" || sa.Source == "workspace" || sa.Source == "" {
		return "gem"
	}
	return sa.Source
}

// subagent is the subagent a call names, when this agent may call subagents.
func (a *Agent) subagent(name string) *Subagent {
	if a.Depth > 0 {
		return nil
	}
	for _, sa := range a.Subagents {
		if sa.Name == name {
			return sa
		}
	}
	return nil
}

// runSubagent runs a subagent's loop for one call and returns its answer.
func (a *Agent) runSubagent(ctx context.Context, s *Session, sa *Subagent, args json.RawMessage, st *Stats) (*tools.Result, error) {
	var in struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Query) == "" {
		return nil, &tools.ArgumentsError{Tool: sa.Name, Problems: []string{"query: a string with the task is required"}}
	}
	timeout := sa.Timeout
	if timeout <= 0 {
		timeout = DefaultSubagentTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if sa.Run != nil {
		text, err := sa.Run(ctx, in.Query)
		if err != nil {
			return &tools.Result{Text: text}, fmt.Errorf("subagent %s: %w", sa.Name, err)
		}
		return &tools.Result{Text: text}, nil
	}
	instructions := sa.Prompt
	if sa.Instructions != nil {
		instructions = sa.Instructions(ctx, in.Query)
	}
	sub := &Agent{Client: a.Client, Model: sa.Model, WebSearchModel: a.WebSearchModel, Tools: a.Tools, Funcs: append(slices.Clip(a.Funcs), sa.Funcs...), Hooks: a.Hooks, MaxSteps: sa.MaxTurns,
		CallOptions: a.CallOptions, Depth: a.Depth + 1, only: sa, temperature: sa.Temperature,
		TokenLimit: a.TokenLimit, CompressAt: a.CompressAt, Checkpoints: a.Checkpoints, checkpointOf: cmp.Or(a.checkpointOf, s),
		System: BasePrompt + "\n\n" + instructions + "\n\nYou are the subagent " + sa.Name + ", called by the main agent: work on its task with your tools, then answer with your findings; nobody reads your answer but the main agent."}
	if sub.Model == "" {
		sub.Model = a.model()
	}
	if sub.MaxSteps <= 0 {
		sub.MaxSteps = DefaultSubagentTurns
	}
	prefix := sa.Name + "/"
	if a.Events.ToolCall != nil {
		sub.Events.ToolCall = func(id, name string, args json.RawMessage) { a.Events.ToolCall(id, prefix+name, args) }
	}
	if a.Events.ToolResult != nil {
		sub.Events.ToolResult = func(id, name string, res *tools.Result, err error) { a.Events.ToolResult(id, prefix+name, res, err) }
	}
	var sst Stats
	var session *Session
	var text string
	var err error
	if r, ok := ctx.Value(subagentResumeKey{}).(*subagentResume); ok { // its calls were decided
		session = r.session
		session.path, session.Usage = s.path, Usage{} // what it used before is counted already
		text, err = sub.resume(ctx, session, pendingCalls(session), r.promptFor, &sst)
		s.Usage.plus(session.Usage)
	} else {
		session = &Session{ID: s.ID + "/" + sa.Name, Model: sub.Model, path: s.path}
		text, err = sub.turn(ctx, session, in.Query, nil, nil, &sst)
		s.Usage.plus(session.Usage)
	}
	st.merge(sst)
	if pe, ok := errors.AsType[*PendingError](err); ok {
		var names []string
		for _, c := range pe.Calls {
			names = append(names, c.Name)
		}
		return nil, &subagentWaitsError{session: session, DeferredError: tools.DeferredError{Call: tools.AskedCall{Tool: sa.Name, Extension: sa.owner(), Args: args,
			Question: "the subagent " + sa.Name + " waits for approval of " + strings.Join(names, ", ")}}}
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("the subagent %s ran out of time (%s: timeout_mins in %s)", sa.Name, timeout, sa.Path)
		}
		return &tools.Result{Text: text}, fmt.Errorf("subagent %s: %w", sa.Name, err)
	}
	return &tools.Result{Text: text}, nil
}

// SubagentError is a tool call to a tool the agent may not use.
type SubagentError struct{ Agent, Tool string }

func (e *SubagentError) Error() string {
	return fmt.Sprintf("the tool %s is not among the subagent %s's tools", e.Tool, e.Agent)
}

// subagentResumeKey carries, into a resumed subagent call, its waiting conversation and the
// decisions of its calls.
type subagentResumeKey struct{}

type subagentResume struct {
	session   *Session
	promptFor func(key string) prompt.Prompter
}

// subagentWaitsError: calls of the subagent wait for approval; its conversation is kept in
// its call's PendingCall.
type subagentWaitsError struct {
	tools.DeferredError
	session *Session
}

func (e *subagentWaitsError) Unwrap() error { return &e.DeferredError }

// pendingCalls are the function calls of s's last model response (those Pending answers).
func pendingCalls(s *Session) []*genai.FunctionCall {
	var calls []*genai.FunctionCall
	for i := len(s.History) - 1; i >= 0; i-- {
		if s.History[i].Role == genai.RoleModel {
			for _, part := range s.History[i].Parts {
				if part.FunctionCall != nil {
					calls = append(calls, part.FunctionCall)
				}
			}
			break
		}
	}
	return calls
}
