package tools

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/policy"
)

// Services are the host services gem offers plugins (pluginsdk.HostServices): confirmation
// through Confirm, progress lines on Progress, log lines into the session's log file.
type Services struct {
	Confirm func(question string) (bool, error) // nil refuses every confirmation
	// Ask answers the policy engine's questions (yes, no, always for the session, always
	// and save); nil uses Confirm (yes or no).
	Ask func(question string) (policy.Answer, error)
	// Notify hears of what the user is asked, before they are (Notification hooks: kind
	// "ToolPermission", the question, the tool's name and arguments); nil hears nothing.
	Notify func(kind, message string, details map[string]any)
	// Answer asks the user a question the model put (ask_user) and returns what they typed;
	// nil, or an error: there is no one to ask (no terminal).
	Answer   func(question string) (string, error)
	Progress io.Writer // nil drops progress
	// Waiting hears of long waits the user did not ask for (an MCP server's first start,
	// downloading its package): a terminal, or nil.
	Waiting io.Writer
	Logger  hclog.Logger // nil drops logs
	Plugin  string       // names the plugin in logs and questions

	mu    sync.Mutex // one question at a time
	outMu sync.Mutex // one progress line at a time
}

// answer puts a question to the user (through s.Answer), one question at a time.
func (s *Services) answer(question string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Answer(question)
}

// confirm asks the user (through s.Confirm) about what a tool is about to do.
func (s *Services) confirm(title, details string) (bool, error) {
	if s == nil || s.Confirm == nil {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q := title
	if details != "" {
		q += "\n" + details
	}
	return s.Confirm(q)
}

// ask puts a policy question about a call.
func (s *Services) ask(question string, details map[string]any) (policy.Answer, error) {
	if s == nil {
		return policy.AnswerNo, nil
	}
	if s.Notify != nil {
		s.Notify("ToolPermission", question, details)
	}
	if s.Ask != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.Ask(question)
	}
	ok, err := s.confirm(question, "")
	if ok {
		return policy.AnswerYes, err
	}
	return policy.AnswerNo, err
}

// For returns pluginsdk.HostServices bound to one plugin.
func (s *Services) For(plugin string) *PluginServices { return &PluginServices{s: s, plugin: plugin} }

// PluginServices is Services bound to a plugin.
type PluginServices struct {
	s      *Services
	plugin string
}

func (p *PluginServices) Confirm(_ context.Context, title, details string) (bool, error) {
	return p.s.confirm(fmt.Sprintf("[%s] %s", p.plugin, title), details)
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
