package tools

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// Services are the host services gem offers plugins (pluginsdk.HostServices): confirmation
// through Confirm, progress lines on Progress, log lines into the session's log file.
type Services struct {
	Confirm  func(question string) (bool, error) // nil refuses every confirmation
	Progress io.Writer                           // nil drops progress
	Logger   hclog.Logger                        // nil drops logs
	Plugin   string                              // names the plugin in logs and questions

	mu    sync.Mutex // one question at a time
	outMu sync.Mutex // one progress line at a time
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
