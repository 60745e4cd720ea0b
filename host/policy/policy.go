// Package policy owns the decision on every tool call: allow, deny or ask the user. Rules
// come from TOML files like Gemini CLI's policy files:
//
//	[[rule]]
//	toolName = "run_shell_command"    # a glob over the tool's registry name
//	extension = "shell-tools"         # optional, a glob
//	commandPrefix = ["git status", "ls"]  # for tools with a "command" argument
//	argsPattern = '"path":"/etc/'      # a regular expression over the arguments' JSON
//	decision = "allow"                # allow | deny | ask_user
//	priority = 100                    # 0-999 within its tier
//
// Tiers, from lowest to highest: the extensions' own policies/*.toml, the workspace's
// .gem/policies.toml, the user's ~/.gem/policies.toml. A rule's effective priority is its
// tier's base plus its priority; the highest match wins, and at equal priority deny beats
// ask_user beats allow. Extensions may not allow: their allow rules are dropped with a
// warning (they may deny or ask about anything).
//
// With no matching rule the approval mode decides: default asks before the mutating kinds
// (edit, delete, move, execute) and allows the rest; autoEdit also allows edit and move;
// plan denies the mutating kinds; yolo allows everything, and only in a folder Gemini CLI
// trusts (~/.gemini/trustedFolders.json), else it acts as default. The host passes MCP tools
// as execute unless the user's own settings trust their server (annotations are the server's
// claim and may only make a tool stricter).
//
// Command rules (commandPrefix) match the commands of a line parsed as bash parses it
// (AnalyzeCommand, mvdan.cc/sh): paths, wrappers (env, command, exec, nice, timeout, xargs,
// sudo…), sh -c and literal eval strings, groups, assignments, quotes and escapes are seen
// through. A deny or ask rule holds when any command of the line matches; an allow rule only
// when every command matches and nothing is redirected. A line whose commands cannot be known
// without running it (a command named by a variable or substitution, eval of a variable) is
// asked, never allowed by a rule. The workspace's allow rules apply only in a trusted folder.
//
// "Always" answers are kept for the session (Session) or saved as a user rule (Save); for an
// MCP tool, "always" covers that tool, and "every tool of server <s>" (AnswerAlwaysServer,
// Gemini CLI's ProceedAlwaysServer) the server's tools, for the session only: not saved.
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Decision is what happens to a call.
type Decision string

const (
	Allow   Decision = "allow"
	Deny    Decision = "deny"
	AskUser Decision = "ask_user"
)

// Tier is where a rule comes from.
type Tier int

const (
	TierMode      Tier = iota // the approval mode's defaults
	TierExtension             // an extension's policies/*.toml
	TierWorkspace             // <workspace>/.gem/policies.toml
	TierUser                  // ~/.gem/policies.toml, and answers saved with "always"
	TierSession               // "always" answers of this session
)

// Rule is one [[rule]] of a policy file.
type Rule struct {
	ToolName      string      `toml:"toolName" json:"toolName,omitempty"`
	Extension     string      `toml:"extension" json:"extension,omitempty"`
	CommandPrefix stringOrArr `toml:"commandPrefix" json:"commandPrefix,omitempty"`
	ArgsPattern   string      `toml:"argsPattern" json:"argsPattern,omitempty"`
	Decision      Decision    `toml:"decision" json:"decision"`
	Priority      int         `toml:"priority" json:"priority"`

	Source string `toml:"-" json:"source"` // the file (or "approval mode …", "this session")
	Tier   Tier   `toml:"-" json:"tier"`
	args   *regexp.Regexp
}

// stringOrArr accepts commandPrefix = "git" as well as ["git", "ls"].
type stringOrArr []string

func (s *stringOrArr) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*s = []string{v}
	case []any:
		for _, x := range v {
			str, ok := x.(string)
			if !ok {
				return fmt.Errorf("commandPrefix: want strings, got %T", x)
			}
			*s = append(*s, str)
		}
	default:
		return fmt.Errorf("commandPrefix: want a string or a list of strings, got %T", v)
	}
	return nil
}

func (r *Rule) effective() int { return int(r.Tier)*1000 + r.Priority }

func (r *Rule) String() string {
	what := r.ToolName
	if what == "" {
		what = "*"
	}
	if len(r.CommandPrefix) > 0 {
		what += " " + strings.Join(r.CommandPrefix, "|")
	}
	return fmt.Sprintf("%s %s (priority %d, %s)", r.Decision, what, r.Priority, r.Source)
}

// Mode is an approval mode.
type Mode string

const (
	ModeDefault  Mode = "default"
	ModeAutoEdit Mode = "autoEdit"
	ModeYolo     Mode = "yolo"
	ModePlan     Mode = "plan"
)

// ParseMode checks an --approval-mode value: Gemini CLI's spellings (default, auto_edit,
// yolo, plan), and autoEdit or auto-edit, in any case.
func ParseMode(s string) (Mode, error) {
	norm := func(v string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(v)) }
	for _, m := range []Mode{ModeDefault, ModeAutoEdit, ModeYolo, ModePlan} {
		if norm(s) == norm(string(m)) {
			return m, nil
		}
	}
	return "", fmt.Errorf("approval mode %q: use default, auto_edit, yolo or plan", s)
}

// Call is what the engine decides about.
type Call struct {
	Tool      string // registry name
	Extension string // the extension serving it
	// MCPServer and MCPTool, for a tool of an MCP server: the server's name and the tool's
	// as they stand in Tool (mcp_<server>_<tool>). A rule naming mcp_<server>_… matches
	// them as fields, so mcp_notes_* covers the server notes, not notes_admin.
	MCPServer, MCPTool string
	Kind               string          // read, edit, delete, move, execute, …
	Args               json.RawMessage // the arguments

	parsed *Analysis // the command's analysis, filled by Decide
}

// command is the "command" argument of shell-like tools.
func (c Call) command() (string, bool) {
	var a struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Command == nil {
		return "", false
	}
	return *a.Command, true
}

// analysis reads the "command" argument as a shell line (AnalyzeCommand), once per call.
func (c Call) analysis() (Analysis, bool) {
	if c.parsed != nil {
		return *c.parsed, true
	}
	cmd, ok := c.command()
	if !ok {
		return Analysis{}, false
	}
	return AnalyzeCommand(cmd), true
}

// Engine evaluates calls. It is safe for concurrent use.
type Engine struct {
	Mode     Mode
	Trusted  bool   // the workspace is trusted (yolo is honoured)
	UserFile string // where "always, save" answers go
	mu       sync.Mutex
	rules    []*Rule
}

// SetMode switches the approval mode for the calls decided from now on (a client's
// session/set_mode, the shell's /approval-mode).
func (e *Engine) SetMode(m Mode) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Mode = m
}

// CurrentMode is the approval mode calls are decided in.
func (e *Engine) CurrentMode() Mode {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.Mode
}

// Answer is the user's answer to an ask_user decision.
type Answer string

const (
	AnswerYes    Answer = "yes"    // this call
	AnswerNo     Answer = "no"     // refuse this call
	AnswerAlways Answer = "always" // this tool (and command) for the rest of the session
	AnswerSave   Answer = "save"   // always, saved as a rule in the user's policy file
	// AnswerAlwaysServer: every tool of the call's MCP server for the rest of the session
	// (Gemini CLI's ProceedAlwaysServer; not saved, as in Gemini CLI).
	AnswerAlwaysServer Answer = "always_server"
)

// Verdict is a decision and the rule that made it.
type Verdict struct {
	Decision Decision
	Rule     *Rule
}

var mutating = map[string]bool{"edit": true, "delete": true, "move": true, "execute": true}

// outbound kinds send what the model chose to the network (web_fetch): asked in every mode
// but yolo, plan included — a page's address can carry what the model read (a prompt
// injected by a cloned project's file would exfiltrate through it), as Gemini CLI asks.
var outbound = map[string]bool{"fetch": true}

// persistent are tools whose effect outlives the session and reaches every later one: the
// user's memory (save_memory writes ~/.gemini/GEMINI.md, read by every session in every
// folder). Asked in every mode but yolo, and refused in an untrusted folder, whatever the
// rules: what a cloned project's files made the model "remember" would steer the user's
// next sessions everywhere.
var persistent = map[string]bool{"save_memory": true}

// Decide evaluates c.
func (e *Engine) Decide(c Call) Verdict {
	if a, ok := c.analysis(); ok {
		c.parsed = &a
	}
	e.mu.Lock()
	rules := e.rules
	e.mu.Unlock()
	if c.parsed != nil && c.parsed.Opaque {
		// A line gem cannot read without running it ($(…) or a variable as a command, a pipe
		// into a shell, inline interpreter code, find -delete/-exec) where a deny rule on
		// commands applies to the tool is refused, not asked: --yes must not answer what
		// may be the denied command in disguise.
		for _, r := range rules {
			if r.Decision == Deny && len(r.CommandPrefix) > 0 && r.toolMatches(c) {
				return Verdict{Deny, &Rule{Decision: Deny, Source: "a command gem cannot analyse, and a deny rule on " + strings.Join(r.CommandPrefix, ", ") + " (" + r.Source + ")", Tier: r.Tier, ToolName: c.Tool}}
			}
		}
	}
	if persistent[c.Tool] && !e.Trusted {
		return Verdict{Deny, &Rule{Decision: Deny, Source: c.Tool + " in a folder you have not trusted (gem trust)", Tier: TierMode, ToolName: c.Tool}}
	}
	var best *Rule
	for _, r := range rules {
		if !r.matches(c) {
			continue
		}
		if best == nil || r.effective() > best.effective() || (r.effective() == best.effective() && rank(r.Decision) > rank(best.Decision)) {
			best = r
		}
	}
	if best != nil {
		if best.Decision == Allow && c.parsed != nil && c.parsed.Opaque {
			// What cannot be read without running it is asked, never allowed by a rule.
			return Verdict{AskUser, &Rule{Decision: AskUser, Source: "a command gem cannot analyse (a variable or substitution names what runs)", Tier: best.Tier, ToolName: c.Tool}}
		}
		return Verdict{best.Decision, best}
	}
	e.mu.Lock()
	mode := e.Mode
	e.mu.Unlock()
	if mode == "" || (mode == ModeYolo && !e.Trusted) {
		mode = ModeDefault
	}
	d := Allow
	switch {
	case mode == ModeYolo:
	case outbound[c.Kind] || persistent[c.Tool]:
		d = AskUser
	case mode == ModePlan && mutating[c.Kind]:
		d = Deny
	case mode == ModeAutoEdit && (c.Kind == "edit" || c.Kind == "move"):
	case mutating[c.Kind]:
		d = AskUser
	}
	return Verdict{d, &Rule{Decision: d, Source: "approval mode " + string(mode), Tier: TierMode, ToolName: "*"}}
}

func rank(d Decision) int {
	switch d {
	case Deny:
		return 2
	case AskUser:
		return 1
	}
	return 0
}

// toolNameMatches matches r.ToolName against c's tool. For an MCP tool and a rule whose
// name names a server (mcp_<server>_<tool pattern>, the server part without wildcards), the
// server must be the call's exactly and the rest matches the tool; a rule whose server part
// has a wildcard (mcp_*, mcp_no*_x) is matched against the whole name.
func (r *Rule) toolNameMatches(c Call) bool {
	rest, isMCP := strings.CutPrefix(r.ToolName, "mcp_")
	if c.MCPServer != "" && isMCP {
		glob := strings.IndexAny(rest, "*?[\\")
		sep := strings.IndexByte(rest, '_')
		if sep >= 0 && (glob < 0 || glob > sep) {
			tool, ok := strings.CutPrefix(rest, c.MCPServer+"_")
			if !ok {
				return false // another server (notes vs notes_admin), whatever follows
			}
			matched, _ := path.Match(tool, c.MCPTool)
			return matched
		}
	}
	matched, _ := path.Match(r.ToolName, c.Tool)
	return matched
}

// toolMatches reports whether r applies to c's tool (and extension), whatever its command
// and arguments.
func (r *Rule) toolMatches(c Call) bool {
	rr := *r
	rr.CommandPrefix, rr.args = nil, nil
	return rr.matches(c)
}

func (r *Rule) matches(c Call) bool {
	if r.ToolName != "" && !r.toolNameMatches(c) {
		return false
	}
	if r.Extension != "" {
		if ok, _ := path.Match(r.Extension, c.Extension); !ok {
			return false
		}
	}
	if len(r.CommandPrefix) > 0 {
		a, ok := c.analysis()
		if !ok {
			return false
		}
		matches := func(words []string) bool { return r.prefixMatches(strings.Join(words, " ")) }
		if r.Decision == Allow {
			// An allow covers a line only when every command in it is one the rule names,
			// with no redirection and nothing that cannot be read without running it.
			if a.Opaque || a.Redirects || len(a.Commands) == 0 {
				return false
			}
			for _, words := range a.Commands {
				if !matches(words) {
					return false
				}
			}
		} else if !slices.ContainsFunc(a.Commands, matches) {
			// A deny or ask holds for any command of the line: "ls; /bin/rm -rf x",
			// "env rm x", "bash -c 'rm x'" and "r''m x" are all rm.
			return false
		}
	}
	if r.args != nil && !r.args.Match(c.Args) {
		return false
	}
	return true
}

// prefixMatches reports whether cmd starts with one of the rule's prefixes, on whole words:
// "git" matches "git status", not "gitk".
func (r *Rule) prefixMatches(cmd string) bool {
	for _, p := range r.CommandPrefix {
		if cmd == p || strings.HasPrefix(cmd, p+" ") || (strings.HasSuffix(p, " ") && strings.HasPrefix(cmd, p)) {
			return true
		}
	}
	return false
}

// Add appends rules (from a file of the given tier, or built here).
func (e *Engine) Add(rules ...*Rule) {
	e.mu.Lock()
	e.rules = append(e.rules, rules...)
	e.mu.Unlock()
}

// ParseFile reads one policy file of a tier. A missing file is no rules. Every problem names
// the file and the rule.
func ParseFile(file string, tier Tier) (rules []*Rule, warnings []string, err error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return Parse(data, file, tier)
}

// Parse reads policy TOML; source names it in errors.
func Parse(data []byte, source string, tier Tier) (rules []*Rule, warnings []string, err error) {
	var doc struct {
		Rule []*Rule `toml:"rule"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	for _, k := range md.Undecoded() {
		warnings = append(warnings, fmt.Sprintf("%s: unknown key %q ignored", source, k.String()))
	}
	for i, r := range doc.Rule {
		where := fmt.Sprintf("%s: rule %d", source, i+1)
		switch r.Decision {
		case Allow, Deny, AskUser:
		case "":
			return nil, nil, fmt.Errorf("%s: decision is missing: set allow, deny or ask_user", where)
		default:
			return nil, nil, fmt.Errorf("%s: decision %q: use allow, deny or ask_user", where, r.Decision)
		}
		if r.Priority < 0 || r.Priority > 999 {
			return nil, nil, fmt.Errorf("%s: priority %d: use 0 to 999", where, r.Priority)
		}
		for _, g := range []string{r.ToolName, r.Extension} {
			if _, err := path.Match(g, ""); err != nil {
				return nil, nil, fmt.Errorf("%s: bad glob %q: %w", where, g, err)
			}
		}
		if r.ArgsPattern != "" {
			re, err := regexp.Compile(r.ArgsPattern)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: argsPattern: %w", where, err)
			}
			r.args = re
		}
		r.Source, r.Tier = source, tier
		if tier == TierExtension && r.Decision == Allow {
			warnings = append(warnings, fmt.Sprintf("%s: an extension may not allow calls; rule dropped", where))
			continue
		}
		rules = append(rules, r)
	}
	return rules, warnings, nil
}

// Remember keeps an "always" answer: for this session, or saved as a user rule when save.
// The rule allows this tool (and, for a command-running tool, this command's first word).
func (e *Engine) Remember(c Call, save bool) error {
	r := &Rule{ToolName: c.Tool, Decision: Allow, Priority: 900, Source: "this session", Tier: TierSession}
	if a, ok := c.analysis(); ok && len(a.Commands) > 0 && len(a.Commands[0]) > 0 {
		r.CommandPrefix = stringOrArr{a.Commands[0][0]}
	}
	if save {
		if e.UserFile == "" {
			return errors.New("no user policy file to save to")
		}
		if err := appendRule(e.UserFile, r); err != nil {
			return err
		}
		r.Source, r.Tier = e.UserFile, TierUser
	}
	e.Add(r)
	return nil
}

// RememberServer keeps an "always for this server" answer for the session: every tool of
// the MCP server (its sanitized name, as in mcp_<server>_<tool>) is allowed.
func (e *Engine) RememberServer(server string) {
	if server == "" {
		return
	}
	e.Add(&Rule{ToolName: "mcp_" + server + "_*", Decision: Allow, Priority: 900, Source: "this session (every tool of server " + server + ")", Tier: TierSession})
}

func appendRule(file string, r *Rule) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var b strings.Builder
	b.WriteString("\n# saved by gem when you answered \"always\"\n[[rule]]\n")
	fmt.Fprintf(&b, "toolName = %q\n", r.ToolName)
	if len(r.CommandPrefix) > 0 {
		fmt.Fprintf(&b, "commandPrefix = %q\n", r.CommandPrefix[0])
	}
	fmt.Fprintf(&b, "decision = %q\npriority = %d\n", r.Decision, r.Priority)
	_, err = f.WriteString(b.String())
	return err
}
