// Package telemetry is what the agent, the tool catalog and the launcher report to when the
// settings' telemetry is on (Gemini CLI's telemetry keys; host/telemetry/otlp exports it over
// OTLP with the OpenTelemetry Go SDK): a span per turn, per API request, per tool call and
// per program a launcher starts (its sandbox plan), and the metrics host/telemetry/otlp
// derives from them.
//
// Off (the default) nothing is recorded: no Recorder is set, every function here returns at
// once (a nil *Span's methods do nothing), no attribute is built, no exporter or goroutine
// exists.
//
// What a span may carry is data: Allowed lists, per kind, the attribute names that pass;
// anything else is dropped before a Recorder sees it. Names, counts, durations, decisions and
// outcomes pass; a tool's arguments and results, file contents, environment values, headers,
// tokens and error messages never do, nor a string holding a secret of the environment
// (Config.Redact). The prompt's text passes only with
// telemetry.logPrompts (Prompt, Config.LogPrompts), which is off by default in gem (Gemini
// CLI's default is on: gem chose the safer one).
package telemetry

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Kind is a kind of span, and its name as exported.
type Kind string

// The kinds of span gem records.
const (
	KindTurn       Kind = "gem.turn"           // one prompt's turn: the model's requests and the tool calls
	KindAPIRequest Kind = "gem.api_request"    // one request to the model
	KindToolCall   Kind = "gem.tool_call"      // one tool call: decision, outcome
	KindLaunch     Kind = "gem.sandbox.launch" // one program a launcher starts, as its sandbox plan says
)

// Attribute names (the allowlist's vocabulary). gen_ai.* are OpenTelemetry's GenAI semantic
// conventions, as Gemini CLI's spans use them.
const (
	Operation    = "gen_ai.operation.name"
	Model        = "gen_ai.request.model"
	InputTokens  = "gen_ai.usage.input_tokens"
	OutputTokens = "gen_ai.usage.output_tokens"
	CachedTokens = "gem.usage.cached_tokens"
	ThoughtToks  = "gem.usage.thought_tokens"
	ToolTokens   = "gem.usage.tool_tokens"
	Conversation = "gen_ai.conversation.id" // the session's id
	PromptLength = "gem.prompt.length"
	Prompt       = "gem.prompt" // the prompt's text: only with telemetry.logPrompts
	Requests     = "gem.requests"
	ToolCalls    = "gem.tool_calls"
	Outcome      = "gem.outcome"    // ok, error, cancelled, pending, stopped, blocked
	ErrorType    = "gem.error.type" // a category (a tool's error type, an HTTP status), never a message
	ToolName     = "gen_ai.tool.name"
	ToolType     = "gem.tool.type" // native, mcp, plugin
	Extension    = "gem.extension"
	MCPServer    = "gem.mcp.server"
	Decision     = "gem.decision" // auto, approved, denied
	Success      = "gem.success"
	Purpose      = "gem.launch.purpose" // extension, user, tool
	Program      = "gem.program"        // the executable's file name, never its arguments
	Launch       = "gem.sandbox.launch" // the plan's launch: helper, exec in place, unsandboxed, refused
	Mechanisms   = "gem.sandbox.mechanisms"
	Refused      = "gem.sandbox.refused"
	Status       = "gem.status" // an API request's: ok, or its error type
)

// Allowed is the allowlist: the attributes each kind of span may carry. A test keeps
// docs/telemetry.md's table equal to it.
var Allowed = map[Kind][]string{
	KindTurn:       {Operation, Model, Conversation, PromptLength, Prompt, InputTokens, OutputTokens, CachedTokens, ThoughtToks, ToolTokens, Requests, ToolCalls, Outcome, ErrorType},
	KindAPIRequest: {Operation, Model, InputTokens, OutputTokens, CachedTokens, ThoughtToks, ToolTokens, Status},
	KindToolCall:   {Operation, ToolName, ToolType, Extension, MCPServer, Decision, Success, ErrorType},
	KindLaunch:     {Purpose, Extension, Program, Launch, Mechanisms, Refused},
}

// Attr is one attribute: a value is a string, an int64, a bool, a float64 or a []string.
type Attr struct {
	Key   string
	Value any
}

// Recorder is what an exporter implements (host/telemetry/otlp): it receives spans whose
// attributes have passed the allowlist.
type Recorder interface {
	// Start begins a span of kind under parent (nil: a root span).
	Start(parent Handle, kind Kind, start time.Time, attrs []Attr) Handle
}

// Handle is a span a Recorder began.
type Handle interface {
	Set(attrs []Attr)
	End(end time.Time)
}

// Config is what the recording side needs of the settings.
type Config struct {
	LogPrompts bool // telemetry.logPrompts: the prompt's text is exported
	// Redact are values no exported string may contain: the environment's secrets (a
	// project's settings can name one in a value gem exports: "model": {"name": "$TOKEN"}).
	// An attribute holding one is dropped.
	Redact []string
}

type installed struct {
	rec Recorder
	cfg Config
}

var current atomic.Pointer[installed]

// Install makes r the process's recorder (nil: none, telemetry off).
func Install(r Recorder, cfg Config) {
	if r == nil {
		current.Store(nil)
		return
	}
	current.Store(&installed{rec: r, cfg: cfg})
}

// On reports whether a recorder is installed: callers that would build attributes ask first.
func On() bool { return current.Load() != nil }

// Span is one span being recorded; a nil *Span (telemetry off) does nothing.
type Span struct {
	kind Kind
	h    Handle
	cfg  Config
}

type spanKey struct{}

// Start begins a span of kind, a child of the span in ctx, and returns ctx with it; off, it
// returns ctx and nil.
func Start(ctx context.Context, kind Kind, attrs ...Attr) (context.Context, *Span) {
	in := current.Load()
	if in == nil {
		return ctx, nil
	}
	var parent Handle
	if p, ok := ctx.Value(spanKey{}).(*Span); ok && p != nil {
		parent = p.h
	}
	s := &Span{kind: kind, cfg: in.cfg}
	s.h = in.rec.Start(parent, kind, time.Now(), s.filter(attrs))
	return context.WithValue(ctx, spanKey{}, s), s
}

// Set adds attributes to s (those its kind allows).
func (s *Span) Set(attrs ...Attr) {
	if s == nil {
		return
	}
	s.h.Set(s.filter(attrs))
}

// End ends s, adding attrs.
func (s *Span) End(attrs ...Attr) {
	if s == nil {
		return
	}
	if len(attrs) > 0 {
		s.h.Set(s.filter(attrs))
	}
	s.h.End(time.Now())
}

// SetIn adds attributes to the span of kind in ctx, if there is one (the catalog's decision
// on the agent's tool call span).
func SetIn(ctx context.Context, kind Kind, attrs ...Attr) {
	if !On() {
		return
	}
	if s, ok := ctx.Value(spanKey{}).(*Span); ok && s != nil && s.kind == kind {
		s.Set(attrs...)
	}
}

// filter keeps the attributes kind allows, with a value of an exported type; the prompt's
// text only with LogPrompts.
func (s *Span) filter(attrs []Attr) []Attr {
	return Filter(s.kind, s.cfg, attrs)
}

// Filter keeps the attributes of attrs that a span of kind may carry under cfg: names in
// Allowed, values of the exported types, Prompt only with cfg.LogPrompts, no string holding
// one of cfg.Redact.
func Filter(kind Kind, cfg Config, attrs []Attr) []Attr {
	out := attrs[:0:0]
	for _, a := range attrs {
		if !slices.Contains(Allowed[kind], a.Key) || (a.Key == Prompt && !cfg.LogPrompts) {
			continue
		}
		switch v := a.Value.(type) {
		case string:
			if v != "" && !holds(cfg.Redact, v) {
				out = append(out, a)
			}
		case []string:
			if !slices.ContainsFunc(v, func(s string) bool { return holds(cfg.Redact, s) }) {
				out = append(out, a)
			}
		case int64, bool, float64:
			out = append(out, a)
		case int:
			out = append(out, Attr{a.Key, int64(a.Value.(int))})
		}
	}
	return out
}

// holds reports whether s contains one of secrets.
func holds(secrets []string, s string) bool {
	return slices.ContainsFunc(secrets, func(secret string) bool { return strings.Contains(s, secret) })
}
