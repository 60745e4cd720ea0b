package otlp

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/gemhost/gem/host/telemetry"
)

// Metric is one metric made from spans as they end: a counter (1 per span) or a histogram of
// the span's duration in milliseconds, with the span's attributes named in Attrs. Gemini CLI's
// name is the metric it mirrors (gemini_cli.* → gem.*), "" where it has none.
type Metric struct {
	Name, Unit, Description string
	Kind                    telemetry.Kind
	Latency                 bool // a histogram of the duration in ms (else a counter)
	Attrs                   []string
	GeminiCLI               string
}

// Metrics are the metrics gem exports besides gem.session.count (1 per gem process that
// exports) and gem.token.usage (tokens by model and type, from the API requests). A test keeps
// docs/telemetry.md's table equal to them.
var Metrics = []Metric{
	{"gem.turn.count", "1", "turns, by model and outcome", telemetry.KindTurn, false, []string{telemetry.Model, telemetry.Outcome}, ""},
	{"gem.api.request.count", "1", "requests to the model, by model and status", telemetry.KindAPIRequest, false, []string{telemetry.Model, telemetry.Status}, "gemini_cli.api.request.count"},
	{"gem.api.request.latency", "ms", "the model's request latency", telemetry.KindAPIRequest, true, []string{telemetry.Model}, "gemini_cli.api.request.latency"},
	{"gem.tool.call.count", "1", "tool calls, by tool, type, decision and success", telemetry.KindToolCall, false, []string{telemetry.ToolName, telemetry.ToolType, telemetry.Decision, telemetry.Success}, "gemini_cli.tool.call.count"},
	{"gem.tool.call.latency", "ms", "tool call latency", telemetry.KindToolCall, true, []string{telemetry.ToolName}, "gemini_cli.tool.call.latency"},
	{"gem.sandbox.launch.count", "1", "programs started, by extension, program, purpose and launch", telemetry.KindLaunch, false, []string{telemetry.Extension, telemetry.Program, telemetry.Purpose, telemetry.Launch}, ""},
}

// tokenTypes are gem.token.usage's types (gemini_cli.token.usage's): the request span's
// attribute each counts.
var tokenTypes = []struct{ attr, typ string }{
	{telemetry.InputTokens, "input"}, {telemetry.OutputTokens, "output"}, {telemetry.ThoughtToks, "thought"},
	{telemetry.CachedTokens, "cache"}, {telemetry.ToolTokens, "tool"},
}

type instrument struct {
	spec    Metric
	counter metric.Int64Counter
	hist    metric.Float64Histogram
}

// recorder is telemetry.Recorder over an OpenTelemetry tracer and meter.
type recorder struct {
	tracer      trace.Tracer
	instruments []instrument
	sessions    metric.Int64Counter
	tokens      metric.Int64Counter
}

func newRecorder(tracer trace.Tracer, meter metric.Meter) (*recorder, error) {
	r := &recorder{tracer: tracer}
	var err error
	if r.sessions, err = meter.Int64Counter("gem.session.count", metric.WithDescription("gem processes that export telemetry")); err != nil {
		return nil, err
	}
	if r.tokens, err = meter.Int64Counter("gem.token.usage", metric.WithUnit("{token}"), metric.WithDescription("tokens, by model and type")); err != nil {
		return nil, err
	}
	for _, m := range Metrics {
		in := instrument{spec: m}
		if m.Latency {
			in.hist, err = meter.Float64Histogram(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
		} else {
			in.counter, err = meter.Int64Counter(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
		}
		if err != nil {
			return nil, err
		}
		r.instruments = append(r.instruments, in)
	}
	return r, nil
}

// handle is one span.
type handle struct {
	r     *recorder
	kind  telemetry.Kind
	span  trace.Span
	ctx   context.Context
	start time.Time
	mu    sync.Mutex
	attrs map[string]telemetry.Attr
}

func (r *recorder) Start(parent telemetry.Handle, kind telemetry.Kind, start time.Time, attrs []telemetry.Attr) telemetry.Handle {
	ctx := context.Background()
	if p, ok := parent.(*handle); ok {
		ctx = p.ctx
	}
	ctx, span := r.tracer.Start(ctx, string(kind), trace.WithTimestamp(start), trace.WithAttributes(otelAttrs(attrs)...))
	h := &handle{r: r, kind: kind, span: span, ctx: ctx, start: start, attrs: map[string]telemetry.Attr{}}
	h.keep(attrs)
	return h
}

func (h *handle) keep(attrs []telemetry.Attr) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range attrs {
		h.attrs[a.Key] = a
	}
}

func (h *handle) Set(attrs []telemetry.Attr) {
	h.span.SetAttributes(otelAttrs(attrs)...)
	h.keep(attrs)
}

// End ends the span and records the metrics made from it.
func (h *handle) End(end time.Time) {
	h.span.End(trace.WithTimestamp(end))
	h.mu.Lock()
	defer h.mu.Unlock()
	ctx := context.Background()
	for _, in := range h.r.instruments {
		if in.spec.Kind != h.kind {
			continue
		}
		var kv []telemetry.Attr
		for _, name := range in.spec.Attrs {
			if a, ok := h.attrs[name]; ok {
				kv = append(kv, a)
			}
		}
		opt := metric.WithAttributes(otelAttrs(kv)...)
		if in.hist != nil {
			in.hist.Record(ctx, float64(end.Sub(h.start).Microseconds())/1000, opt)
		} else {
			in.counter.Add(ctx, 1, opt)
		}
	}
	if h.kind == telemetry.KindAPIRequest {
		model := h.attrs[telemetry.Model]
		for _, t := range tokenTypes {
			if n, ok := h.attrs[t.attr].Value.(int64); ok && n > 0 {
				h.r.tokens.Add(ctx, n, metric.WithAttributes(otelAttrs([]telemetry.Attr{model, {Key: "type", Value: t.typ}})...))
			}
		}
	}
}

// otelAttrs converts attributes (already filtered by telemetry.Filter).
func otelAttrs(attrs []telemetry.Attr) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		switch v := a.Value.(type) {
		case string:
			out = append(out, attribute.String(a.Key, v))
		case int64:
			out = append(out, attribute.Int64(a.Key, v))
		case bool:
			out = append(out, attribute.Bool(a.Key, v))
		case float64:
			out = append(out, attribute.Float64(a.Key, v))
		case []string:
			out = append(out, attribute.StringSlice(a.Key, v))
		}
	}
	return out
}
