package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/internal/termsafe"

	shellquote "github.com/kballard/go-shellquote"
	"github.com/peterh/liner"
	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/sdk"
)

func shellCommand(f *Factory) *cli.Command {
	opts := optionsOf[agentOptions]()
	return &cli.Command{
		Name:        "shell",
		Usage:       "the interactive shell: slash commands, and text for the model (also: gem with no arguments on a terminal)",
		Description: "EXAMPLES\n  gem shell\n  gem shell --resume latest",
		Flags:       opts.flags(),
		Action: func(c *cli.Context) error {
			if err := noArgs().check(c); err != nil {
				return err
			}
			return runShell(f, opts.from(c))
		},
	}
}

// shell is gem's interactive prompt: slash commands with history and Tab completion.
type shell struct {
	opts  agentOptions
	sess  *session
	table *commands.Table
	disc  *registry.Discovery
	agent *agentSession // opened on the first prompt
	line  *liner.State
	// cancelTurn ends the model's turn under way (nil between turns): Ctrl-C at one of its
	// questions, which the line editor reads as a key, not a signal.
	cancelTurn context.CancelFunc
}

// terminalOnly are the shell's own commands: they leave the terminal, which no other front
// has. Every other built-in command is the SDK's (sdk.Commands: /help, /compress, /skills…),
// which gem acp advertises and runs too.
var terminalOnly = []string{"quit", "exit"}

// terminalHelp is what /help adds in the shell.
const terminalHelp = "Terminal commands (gem shell only):\n  /quit, /exit  leave the shell (also Ctrl-D); /clear also clears the screen\n"

// builtins are the shell's own commands and the SDK's built-in ones.
func (s *shell) builtins() []string {
	out := slices.Clone(terminalOnly)
	for _, c := range s.commands() {
		if c.Source == "builtin" {
			out = append(out, c.Name)
		}
	}
	return out
}

// commands are the SDK's slash commands here, found without the model side: the built-in
// ones and the prompt commands (commands/*.toml).
func (s *shell) commands() []sdk.Command {
	cmds, _ := sdk.Commands(s.options())
	return cmds
}

// options are the SDK's options for what the shell does without the model side.
func (s *shell) options() sdk.Options {
	return sdk.Options{Cwd: s.sess.env.Cwd, Getenv: s.sess.env.Getenv, Host: &sdk.Host{Discovery: s.disc, History: s.sess.typed}}
}

// typed is what the line editor holds: the history file's lines, then this shell's.
func (s *shell) typed() []string {
	var b strings.Builder
	s.line.WriteHistory(&b)
	if b.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

func (s *shell) reload() {
	s.disc = s.sess.discover()
	s.table = commands.NewTable(s.disc)
}

func runShell(f *Factory, o agentOptions) error {
	r, err := f.Session()
	if err != nil {
		return err
	}
	s := &shell{opts: o, sess: r}
	r.typed = s.typed
	defer func() {
		if s.agent != nil {
			s.agent.close()
		}
	}()
	s.reload()
	line := liner.NewLiner()
	defer line.Close()
	s.line = line
	line.SetCtrlCAborts(true)
	line.SetTabCompletionStyle(liner.TabPrints)
	line.SetCompleter(s.complete)
	histPath := r.env.HistoryFile()
	if f, err := os.Open(histPath); err == nil {
		line.ReadHistory(f)
		f.Close()
	}
	defer func() {
		if os.MkdirAll(filepath.Dir(histPath), 0o700) == nil {
			if f, err := os.OpenFile(histPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
				line.WriteHistory(f)
				f.Close()
			}
		}
	}()
	if !s.interactive() {
		return s.piped()
	}
	fmt.Fprintf(r.stdout, "gem shell: %s. /help lists them; Tab completes; Ctrl-D leaves.\n", plural.Count(len(s.table.Entries), "extension command"))
	for {
		input, err := line.Prompt("gem> ")
		if errors.Is(err, liner.ErrPromptAborted) {
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			fmt.Fprintln(r.stdout)
			return nil
		}
		input = strings.TrimSpace(input)
		if input == "" {
			continue
		}
		line.AppendHistory(input)
		if quit := s.exec(input, line); quit {
			return nil
		}
	}
}

// interactive reports whether a person types at the shell (stdin is a terminal).
func (s *shell) interactive() bool { return s.sess.io.IsStdinTTY() }

// piped runs the lines of a piped stdin (echo /help | gem shell) as Gemini CLI runs piped
// input: no banner, no prompts, only the results on stdout; nothing is asked (stdin is the
// script, not a person), and the lines join no history.
func (s *shell) piped() error {
	in := bufio.NewReader(s.sess.io.In)
	for {
		input, err := in.ReadString('\n')
		if input = strings.TrimSpace(input); input != "" && s.exec(input, s.line) {
			return nil
		}
		if err != nil {
			return nil
		}
	}
}

// exec runs one line; it reports whether the shell should end.
func (s *shell) exec(input string, line *liner.State) bool {
	w := s.sess.stdout
	if !strings.HasPrefix(input, "/") {
		s.ask(input)
		return false
	}
	words, err := shellquote.Split(strings.TrimPrefix(input, "/"))
	if err != nil {
		fmt.Fprintf(s.sess.stderr, "cannot split %q: %v (close the quote or escape it)\n", input, err)
		return false
	}
	if len(words) == 0 {
		return false
	}
	name, args := words[0], words[1:]
	switch name {
	case "quit", "exit":
		return true
	case "help":
		s.sessionCommand(name, args)
		fmt.Fprint(w, terminalHelp)
	case "clear":
		if s.sess.io.ColorEnabled() {
			fmt.Fprint(w, "\x1b[H\x1b[2J")
		}
		if s.agent != nil { // the SDK's /clear: a new conversation
			s.sessionCommand(name, args)
		}
	default:
		if s.sessionCommand(name, args) {
			return false
		}
		if _, ok := s.table.Lookup(name); !ok && (s.promptCommand(name) || s.isMCPPrompt(input)) {
			s.ask(input)
			return false
		}
		s.run(name, args, line)
	}
	return false
}

// run runs an extension command as a child; questions go through the line editor, which
// owns the terminal's mode.
func (s *shell) run(name string, args []string, line *liner.State) {
	p, err := s.sess.launch().Prepare(s.table, name, args)
	if err != nil {
		fmt.Fprintln(s.sess.stderr, err)
		return
	}
	if p.RequireConfirm {
		fmt.Fprintf(s.sess.stderr, "/%s (extension %s) asks for confirmation before it runs:\n  %s\n", p.Entry.Name, p.Entry.Extension.Name, p.CommandLine())
		if !s.interactive() {
			fmt.Fprintf(s.sess.stderr, "not run: %s\n", prompt.NoTerminal)
			return
		}
		answer, err := line.Prompt("Run it? [y/N] ")
		if a := strings.ToLower(strings.TrimSpace(answer)); err != nil || (a != "y" && a != "yes") {
			fmt.Fprintln(s.sess.stderr, "not run")
			return
		}
	}
	code, err := s.sess.launch().Foreground(p.Spec, s.sess.io.In, s.sess.stdout, s.sess.stderr)
	if err != nil {
		fmt.Fprintln(s.sess.stderr, err)
		return
	}
	if code != 0 {
		fmt.Fprintf(s.sess.stderr, "/%s exited with status %d\n", name, code)
	}
}

// promptCommands are the prompt commands (commands/*.toml) here.
func (s *shell) promptCommands() []sdk.Command {
	return slices.DeleteFunc(s.commands(), func(c sdk.Command) bool { return c.Source == "builtin" })
}

// mcpPrompts are the MCP servers' prompts, once the model side is open.
func (s *shell) mcpPrompts() []sdk.Command {
	if s.agent == nil {
		return nil
	}
	return slices.DeleteFunc(s.agent.sess.Commands(context.Background()), func(c sdk.Command) bool { return c.Source != "mcp" })
}

// shownName is how the shell names an extension command: as it is, or "<extension>.<name>"
// when a built-in command has its name (the built-in answers /<name>, as in Gemini CLI).
func (s *shell) shownName(name string) string {
	if slices.Contains(s.builtins(), name) {
		if e, ok := s.table.Lookup(name); ok {
			return e.Dotted()
		}
	}
	return name
}

// complete offers command names after "/", and subcommands after a command.
func (s *shell) complete(line string) []string {
	if !strings.HasPrefix(line, "/") {
		return nil
	}
	body := line[1:]
	if i := strings.IndexByte(body, ' '); i >= 0 {
		name, rest := body[:i], strings.TrimLeft(body[i:], " ")
		if strings.Contains(rest, " ") {
			return nil
		}
		e, ok := s.table.Lookup(name)
		if !ok {
			return nil
		}
		c := e.Extension.Manifest().Command(e.Declared)
		if c == nil {
			return nil
		}
		var out []string
		for _, sub := range c.Subcommands {
			if strings.HasPrefix(sub, rest) {
				out = append(out, "/"+name+" "+sub+" ")
			}
		}
		return out
	}
	var out []string
	for _, n := range s.builtins() {
		if strings.HasPrefix(n, body) {
			out = append(out, "/"+n)
		}
	}
	for _, e := range s.table.Entries {
		if name := s.shownName(e.Name); strings.HasPrefix(name, body) {
			out = append(out, "/"+name+" ")
		}
	}
	for _, c := range s.promptCommands() {
		if strings.HasPrefix(c.Name, body) && !slices.Contains(out, "/"+c.Name+" ") {
			out = append(out, "/"+c.Name+" ")
		}
	}
	for _, p := range s.mcpPrompts() {
		if strings.HasPrefix(p.Name, body) {
			out = append(out, "/"+p.Name+" ")
		}
	}
	sort.Strings(out)
	return out
}

// openAgent opens the model side on first use (the shell starts without it).
func (s *shell) openAgent() bool {
	if s.agent != nil {
		return true
	}
	services := s.sess.cliServices(false)
	// The line editor owns the terminal (raw mode): questions go through it — the policy's
	// as the tools' host, the model's as the SDK's Options.Ask. Piped, the session's own
	// prompter asks (stdin is the script, never an answer).
	var ask func(context.Context, sdk.Question) (sdk.Answer, error)
	if s.interactive() {
		services.Prompt = s.editor()
		ask = terminalAsk(s.editor())
	}
	a, err := openAgent(context.Background(), s.sess, services, s.opts, ask)
	if err != nil {
		fmt.Fprintln(s.sess.stderr, err)
		return false
	}
	s.agent = a
	return true
}

// editor asks questions on the line editor.
func (s *shell) editor() *prompt.Terminal {
	return &prompt.Terminal{Out: s.sess.stderr, ReadLine: s.readAnswer}
}

// readAnswer reads the answer to a question of the model's turn; Ctrl-C cancels the turn, as
// it does while the model is answering.
func (s *shell) readAnswer(question string) (string, error) {
	line, err := s.line.Prompt(question)
	if errors.Is(err, liner.ErrPromptAborted) && s.cancelTurn != nil {
		s.cancelTurn()
		return "", context.Canceled
	}
	return line, err
}

// isMCPPrompt reports whether input runs a prompt of an MCP server (the model side is
// opened, and the servers started, only when some extension declares one).
func (s *shell) isMCPPrompt(input string) bool {
	noKey := s.sess.env.Getenv("GEMINI_API_KEY") == "" && s.sess.env.Getenv("GOOGLE_API_KEY") == ""
	if noKey || !s.hasMCPServers() || !s.openAgent() {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	return slices.ContainsFunc(s.mcpPrompts(), func(c sdk.Command) bool { return c.Name == name })
}

// hasMCPServers reports whether an enabled extension or the settings declare MCP servers.
func (s *shell) hasMCPServers() bool {
	if s.sess.settings().Extension(s.sess.env) != nil {
		return true
	}
	for _, x := range s.disc.Effective() {
		if x.Active() && len(x.Manifest().MCPServers) > 0 {
			return true
		}
	}
	return false
}

// promptCommand reports whether name is a prompt command (commands/*.toml), found again.
func (s *shell) promptCommand(name string) bool {
	cmds, _ := sdk.Commands(sdk.Options{Cwd: s.sess.env.Cwd, Getenv: s.sess.env.Getenv})
	return slices.ContainsFunc(cmds, func(c sdk.Command) bool { return c.Name == name && c.Source != "builtin" })
}

// ask sends text (or an expanded prompt command) to the model; Ctrl-C ends the turn.
func (s *shell) ask(input string) {
	if !s.openAgent() {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, s.cancelTurn = context.WithCancel(ctx)
	defer func() { s.cancelTurn(); s.cancelTurn = nil }()
	sess := s.agent.sess
	var text string
	prompt, err := sess.Expand(ctx, input)
	if err == nil {
		for ev, turnErr := range sess.SendStream(ctx, prompt) {
			if ev.Type == sdk.EventResult {
				text, err = ev.Result.Text, turnErr
				s.keptPlan(ev.Result)
				break
			}
			s.show(ev)
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(s.sess.stdout)
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(s.sess.stderr, "(turn cancelled)")
	case err != nil:
		fmt.Fprintln(s.sess.stderr, termsafe.Text(err.Error()))
	}
}

// show prints one event of the shell's turn: the model's text on stdout, tool calls and
// warnings on stderr. The model's text and the tools' words pass through the one
// sanitiser (termsafe), as gem -p's do: on a terminal they act on nothing (an OSC 52 would
// set the clipboard).
func (s *shell) show(ev sdk.Event) {
	errw := s.sess.stderr
	switch ev.Type {
	case sdk.EventMessage:
		if ev.Role == "assistant" {
			fmt.Fprint(s.sess.stdout, s.sess.modelText(ev.Text))
		}
	case sdk.EventError:
		s.sess.warn("%s", ev.Text)
	case sdk.EventToolUse:
		fmt.Fprintf(errw, "\n→ %s %s\n", termsafe.Cell(ev.ToolCall.Name), termsafe.Cell(string(ev.ToolCall.Args)))
	case sdk.EventToolOutput:
		// A running call's live output (pluginsdk.Output), indented under its call, as a
		// terminal shows a command's output while it runs.
		for line := range strings.Lines(ev.Text) {
			fmt.Fprintf(errw, "  │ %s\n", termsafe.Cell(strings.TrimRight(line, "\n")))
		}
	case sdk.EventToolResult:
		c := ev.ToolCall
		te, answered := c.Err.(*sdk.ToolError)
		switch {
		case errors.Is(c.Err, context.Canceled): // said once the turn ends
		case answered:
			fmt.Fprintf(errw, "← %s: %s\n", termsafe.Cell(c.Name), termsafe.Cell(te.Message))
		case c.Err != nil:
			fmt.Fprintf(errw, "← %s failed: %s\n", termsafe.Cell(c.Name), termsafe.Text(c.Err.Error()))
		default: // as gem -p says it: the first line of what the call did
			fmt.Fprintf(errw, "← %s: %s\n", termsafe.Cell(c.Name), termsafe.Cell(termsafe.FirstLine(cmp.Or(c.Display, c.Output))))
		}
	}
}

// keptPlan says where plan mode kept the turn's answer.
func (s *shell) keptPlan(res *sdk.Result) {
	if res != nil && res.PlanFile != "" {
		fmt.Fprintf(s.sess.stderr, "(plan mode: the plan is kept in %s)\n", registry.Tilde(s.sess.env.Home, res.PlanFile))
	}
}
