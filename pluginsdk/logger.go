package pluginsdk

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
)

// Logger is a *slog.Logger whose records go where Log sends them: to the host's log file,
// tagged with the call ctx belongs to (stderr without a host). Attributes are written as
// key=value after the message.
func Logger(ctx context.Context) *slog.Logger {
	return slog.New(&hostHandler{ctx: ctx})
}

// hostHandler formats a record's attributes with slog's text handler (no time, level or
// message: the host adds its own) and sends the line through Log.
type hostHandler struct {
	ctx   context.Context
	steps []func(slog.Handler) slog.Handler // WithAttrs and WithGroup, in order
}

func (h *hostHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *hostHandler) Handle(_ context.Context, r slog.Record) error {
	var buf bytes.Buffer
	var inner slog.Handler = slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug - 4,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		},
	})
	for _, step := range h.steps {
		inner = step(inner)
	}
	if err := inner.Handle(h.ctx, r); err != nil {
		return err
	}
	line := r.Message
	if attrs := strings.TrimSpace(buf.String()); attrs != "" {
		line += " " + attrs
	}
	Log(h.ctx, levelName(r.Level), line)
	return nil
}

func (h *hostHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.with(func(in slog.Handler) slog.Handler { return in.WithAttrs(attrs) })
}

func (h *hostHandler) WithGroup(name string) slog.Handler {
	return h.with(func(in slog.Handler) slog.Handler { return in.WithGroup(name) })
}

func (h *hostHandler) with(step func(slog.Handler) slog.Handler) *hostHandler {
	steps := append(append([]func(slog.Handler) slog.Handler{}, h.steps...), step)
	return &hostHandler{ctx: h.ctx, steps: steps}
}

// levelName maps slog's levels to the host's: trace, debug, info, warn, error.
func levelName(l slog.Level) string {
	switch {
	case l < slog.LevelDebug:
		return "trace"
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warn"
	}
	return "error"
}
