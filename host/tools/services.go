package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/internal/prompt"
)

// Services are the host services gem offers plugins (pluginsdk.HostServices) and the core
// tools: questions to the user through Prompt, progress lines on Progress, log lines into the
// session's log file.
type Services struct {
	// Prompt asks the user: plugins' confirmations, the policy's questions (yes once, always
	// this session, always and saved, no), the model's own (ask_user, Input). nil refuses
	// every confirmation and leaves no one to answer; a prompter that cannot ask
	// (*prompt.NotAskedError) answers no.
	Prompt   prompt.Prompter
	Progress io.Writer // nil drops progress
	// Waiting hears of long waits the user did not ask for (an MCP server's first start,
	// downloading its package): a terminal, or nil.
	Waiting io.Writer
	Logger  hclog.Logger // nil drops logs
	Plugin  string       // names the plugin in logs and questions

	mu    sync.Mutex // one question at a time
	outMu sync.Mutex // one progress line at a time
}

// answer puts the model's question to the user, one question at a time.
func (s *Services) answer(ctx context.Context, question string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Prompt.Input(ctx, question)
}

// askWhole puts one of the model's questions to a UserAsker, one question at a time.
func (s *Services) askWhole(ctx context.Context, asker UserAsker, q UserQuestion) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return asker.AskUser(ctx, q)
}

// confirm asks the user about what a tool is about to do.
func (s *Services) confirm(ctx context.Context, title, details string) (bool, error) {
	if s == nil || s.Prompt == nil {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q := title
	if details != "" {
		q += "\n" + details
	}
	ok, err := s.Prompt.Confirm(ctx, prompt.Question{Text: q})
	if _, notAsked := errors.AsType[*prompt.NotAskedError](err); notAsked {
		return false, nil // shown, and refused
	}
	return ok, err
}

// Notifier hears of what the user is asked, before they are (Notification hooks: kind
// "ToolPermission", the question, the tool's name and arguments).
type Notifier func(kind, message string, details map[string]any)

type notifyKey struct{}

// WithNotify returns ctx whose policy questions notify first: the session making a call
// tells of its own questions (several sessions share one catalog and its services).
func WithNotify(ctx context.Context, notify Notifier) context.Context {
	return context.WithValue(ctx, notifyKey{}, notify)
}

// policyChoices are the answers to a policy question about a call, in policy.Answer's terms:
// yes once, always (this tool, and command), save always, then — for an MCP tool (server is
// its server) — every tool of its server for the session, and no last. The first three keep
// their places: programs answering approvals pick them by index (sdk's approver).
func policyChoices(server string) ([]prompt.Choice, []policy.Answer) {
	choices := []prompt.Choice{{Key: "y", Label: "yes once"}, {Key: "a", Label: "always this session"}, {Key: "s", Label: "save always"}}
	answers := []policy.Answer{policy.AnswerYes, policy.AnswerAlways, policy.AnswerSave}
	if server != "" {
		choices[1].Label = "always this tool, this session"
		choices = append(choices, prompt.Choice{Key: "e", Label: "every tool of server " + server + ", this session"})
		answers = append(answers, policy.AnswerAlwaysServer)
	}
	return append(choices, prompt.Choice{Key: "n", Label: "no"}), append(answers, policy.AnswerNo)
}

// ask puts a policy question about a call (of a tool of the MCP server server, or "").
func (s *Services) ask(ctx context.Context, question, server string, details map[string]any) (policy.Answer, error) {
	if s == nil || s.Prompt == nil {
		return policy.AnswerNo, nil
	}
	if notify, ok := ctx.Value(notifyKey{}).(Notifier); ok {
		notify("ToolPermission", question, details)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	choices, answers := policyChoices(server)
	i, err := s.Prompt.Choose(ctx, question, choices, len(choices)-1)
	if _, notAsked := errors.AsType[*prompt.NotAskedError](err); notAsked {
		return policy.AnswerNo, nil // shown, and refused
	}
	if err != nil || i < 0 || i >= len(answers) {
		return policy.AnswerNo, err
	}
	return answers[i], nil
}

// For returns pluginsdk.HostServices bound to one plugin.
func (s *Services) For(plugin string) *PluginServices { return &PluginServices{s: s, plugin: plugin} }

// PluginServices is Services bound to a plugin.
type PluginServices struct {
	s      *Services
	plugin string
}

func (p *PluginServices) Confirm(ctx context.Context, title, details string) (bool, error) {
	return p.s.confirm(ctx, fmt.Sprintf("[%s] %s", p.plugin, title), details)
}

func (p *PluginServices) Progress(_ context.Context, message string, fraction float64) {
	if p.s == nil || p.s.Progress == nil {
		return
	}
	p.s.outMu.Lock()
	defer p.s.outMu.Unlock()
	if fraction >= 0 {
		fmt.Fprintf(p.s.Progress, "[%s] %s (%d%%)\n", p.plugin, message, int(fraction*100+0.5))
	} else {
		fmt.Fprintf(p.s.Progress, "[%s] %s\n", p.plugin, message)
	}
}

func (p *PluginServices) Log(_ context.Context, level, message string) {
	if p.s == nil || p.s.Logger == nil {
		return
	}
	l := p.s.Logger.Named("ext." + p.plugin)
	switch level {
	case "trace":
		l.Trace(message)
	case "debug":
		l.Debug(message)
	case "warn", "warning":
		l.Warn(message)
	case "error":
		l.Error(message)
	default:
		l.Info(message)
	}
}

// waiting is Waiting as a line writer (one line at a time), or nil.
func (s *Services) waiting() func(string) {
	if s == nil || s.Waiting == nil {
		return nil
	}
	return func(line string) {
		s.outMu.Lock()
		defer s.outMu.Unlock()
		fmt.Fprintln(s.Waiting, line)
	}
}

// AskedCall is the call a policy question is about: the prompter finds it in the context
// it is asked with (AskedCallOf), to show or decide more than the question's text.
type AskedCall struct {
	Tool, Extension string
	Args            json.RawMessage
	Question        string // what a terminal shows: the call, its diff, a hook's reason
}

type askedKey struct{}

// AskedCallOf is the call a policy question asked with ctx is about.
func AskedCallOf(ctx context.Context) (AskedCall, bool) {
	c, ok := ctx.Value(askedKey{}).(AskedCall)
	return c, ok
}

// DeferredError is a prompter's answer that the question will be answered later (the SDK
// without an Approve callback): the call neither runs nor is refused; the agent ends the turn
// with it pending (agent.PendingError).
type DeferredError struct{ Call AskedCall }

func (e *DeferredError) Error() string {
	return fmt.Sprintf("%s waits for approval", e.Call.Tool)
}
