// Package mcpserve owns gem's side as an MCP server (`gem mcp serve`): every tool of the
// catalog (go-plugin tools and the tools of extensions' MCP servers) is offered under its
// catalog name with its JSON Schema, and calls go through the catalog, with its argument
// validation and its policy.
//
// Mapping (chosen where the spec is silent):
//   - A call that fails before or outside the tool (invalid arguments, a crashed plugin, a
//     timeout) is a tool result with isError, so the model sees why and can correct itself;
//     an unknown tool name is a protocol error, as the SDK does.
//   - Progress from a tool (host service Progress, or a streaming tool's output lines) becomes
//     notifications/progress when the client sent a progress token; a fraction is reported
//     as progress out of 100.
//   - Cancellation (notifications/cancelled) cancels the tool's context.
//   - A tool's confirmation is asked of the client by elicitation when it supports it (an
//     input request, SEP-2322; the SDK sends elicitation/create to older clients), and an
//     unanswered one cancels the call after 10 minutes; a client without elicitation gets
//     the confirmation approved only when the server runs with Approve (gem mcp serve
//     --yes), refused otherwise.
//   - The tool list follows the catalog: MCP servers' list-changed notifications reach the
//     client as list-changed notifications of its own.
//   - Read-only kinds (read, search, think) carry readOnlyHint; delete and execute carry
//     destructiveHint.
package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/internal/prompt"
)

// Options configure the server.
type Options struct {
	// Approve answers yes to confirmations when the client cannot be asked (no elicitation).
	Approve bool
	Logger  hclog.Logger
}

// New makes an MCP server over the catalog's tools, kept in step with the catalog.
func New(reg *tools.Catalog, opts Options) *sdk.Server { return newBridge(reg, opts).srv }

func newBridge(reg *tools.Catalog, opts Options) *bridge {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "gem", Version: buildinfo.Version}, &sdk.ServerOptions{
		Instructions: "Tools of the extensions gem manages (go-plugin tools and extensions' MCP servers).",
	})
	b := &bridge{reg: reg, srv: srv, opts: opts, offered: map[string]string{}, pending: map[string]*pendingCall{}}
	b.sync()
	reg.OnChange(b.sync)
	return b
}

type bridge struct {
	reg       *tools.Catalog
	srv       *sdk.Server
	opts      Options
	mu        sync.Mutex
	offered   map[string]string       // tool name → what was offered (JSON), to offer changes only
	pending   map[string]*pendingCall // calls waiting for a confirmation, by request state
	nextState atomic.Uint64
}

// sync offers the catalog's tools that are new or changed and withdraws the ones that left.
// The SDK tells clients (notifications/tools/list_changed) on every AddTool and RemoveTools,
// so a tool offered as it was is not offered again: the catalog changes often without a
// change in what clients see (a server started, its tools found again), and clients that
// read the next line as their answer must not get a notification instead.
func (b *bridge) sync() {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := map[string]string{}
	for _, t := range b.reg.List() {
		tool := toolOf(t)
		seen, err := json.Marshal(tool)
		if err != nil {
			b.opts.Logger.Warn("tool not offered over MCP", "tool", t.Name, "error", err)
			continue
		}
		if prev, ok := b.offered[t.Name]; ok && prev == string(seen) {
			now[t.Name] = prev
			continue
		}
		if err := b.offer(tool); err != nil {
			b.opts.Logger.Warn("tool not offered over MCP", "tool", t.Name, "error", err)
			continue
		}
		now[t.Name] = string(seen)
	}
	var gone []string
	for name := range b.offered {
		if _, ok := now[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		b.srv.RemoveTools(gone...)
	}
	b.offered = now
}

// toolOf is how a catalog tool is described over MCP.
func toolOf(t *tools.Tool) *sdk.Tool {
	schema := t.Spec.InputSchema
	if !objectSchema(schema) {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	tool := &sdk.Tool{Name: t.Name, Description: t.Spec.Description, InputSchema: schema, Annotations: annotations(t.Kind())}
	if objectSchema(t.Spec.OutputSchema) { // MCP allows object output schemas only
		tool.OutputSchema = t.Spec.OutputSchema
	}
	return tool
}

func (b *bridge) offer(tool *sdk.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil { // the SDK panics on schemas it refuses
			err = fmt.Errorf("%v", p)
		}
	}()
	name := tool.Name
	b.srv.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return b.call(ctx, name, req)
	})
	return nil
}

// objectSchema reports whether schema is a JSON Schema of type object.
func objectSchema(schema json.RawMessage) bool {
	var probe struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(schema, &probe) == nil && probe.Type == "object"
}

func annotations(kind tools.Kind) *sdk.ToolAnnotations {
	a := &sdk.ToolAnnotations{}
	switch kind {
	case tools.KindRead, tools.KindSearch, tools.KindThink:
		a.ReadOnlyHint = true
	case tools.KindDelete, tools.KindExecute:
		yes := true
		a.DestructiveHint = &yes
	}
	return a
}

// A call runs in a goroutine of its own so that it can outlive the MCP request that started
// it: when the tool asks for a confirmation, the request returns an input request
// (elicitation, SEP-2322 multi round-trip) and the client's retry, carrying the answer and
// the request state, picks the same call up again. For clients of older protocol versions
// the SDK turns the input request into an elicitation/create request and retries itself.
type pendingCall struct {
	ctx    context.Context
	cancel context.CancelFunc
	asks   chan string // questions from the tool
	answer chan bool   // the client's answers
	done   chan outcome
	mu     sync.Mutex
	req    *sdk.CallToolRequest // the request serving the call now (for progress)
	steps  atomic.Int64
}

type outcome struct {
	res *tools.Result
	err error
}

// confirmTimeout bounds how long a call waits for the client to answer a confirmation.
const confirmTimeout = 10 * time.Minute

func (b *bridge) call(ctx context.Context, name string, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if state := req.Params.RequestState; state != "" {
		b.mu.Lock()
		p := b.pending[state]
		delete(b.pending, state)
		b.mu.Unlock()
		if p == nil {
			return errorResult("this confirmation is no longer pending (it was answered, or timed out): call the tool again"), nil
		}
		approved := false
		if r, ok := req.Params.InputResponses["confirm"].(*sdk.ElicitResult); ok {
			approved = r.Action == "accept"
		}
		p.setRequest(req)
		p.answer <- approved
		return b.await(ctx, p)
	}
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &pendingCall{ctx: pctx, cancel: cancel, asks: make(chan string), answer: make(chan bool, 1), done: make(chan outcome, 1), req: req}
	host := &callHost{p: p, opts: b.opts, canAsk: clientCanElicit(req)}
	go func() {
		defer cancel()
		res, err := b.reg.Call(pctx, name, req.Params.Arguments, tools.CallOptions{
			Host:     host,
			Prompt:   elicitation{host},
			OnUpdate: func(line string) { host.Progress(pctx, line, -1) },
		})
		p.done <- outcome{res, err}
	}()
	return b.await(ctx, p)
}

// await waits for the call's end or its next question; the client cancelling its request
// cancels the call.
func (b *bridge) await(ctx context.Context, p *pendingCall) (*sdk.CallToolResult, error) {
	select {
	case o := <-p.done:
		return convert(o)
	case q := <-p.asks:
		state := fmt.Sprintf("gem-confirm-%d", b.nextState.Add(1))
		b.mu.Lock()
		b.pending[state] = p
		b.mu.Unlock()
		time.AfterFunc(confirmTimeout, func() {
			b.mu.Lock()
			_, still := b.pending[state]
			delete(b.pending, state)
			b.mu.Unlock()
			if still {
				p.cancel()
			}
		})
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{"confirm": &sdk.ElicitParams{
				Mode:            "form",
				Message:         q,
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: state,
		}, nil
	case <-ctx.Done():
		p.cancel()
		return nil, ctx.Err()
	}
}

func convert(o outcome) (*sdk.CallToolResult, error) {
	if o.err != nil {
		return errorResult(o.err.Error()), nil
	}
	res := o.res
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text}}}
	if len(res.Structured) > 0 {
		out.StructuredContent = res.Structured
	}
	if res.Error != nil {
		msg := res.Error.Summary()
		if res.Text != "" && res.Text != res.Error.Message {
			msg = res.Text + "\n" + msg
		}
		return errorResult(msg), nil
	}
	return out, nil
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

func clientCanElicit(req *sdk.CallToolRequest) bool {
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

func (p *pendingCall) setRequest(req *sdk.CallToolRequest) {
	p.mu.Lock()
	p.req = req
	p.mu.Unlock()
}

func (p *pendingCall) request() *sdk.CallToolRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.req
}

// callHost serves one call's host services (pluginsdk.HostServices) from the MCP client.
type callHost struct {
	p      *pendingCall
	opts   Options
	canAsk bool
}

func (h *callHost) Confirm(ctx context.Context, title, details string) (bool, error) {
	question := title
	if details != "" {
		question += "\n" + details
	}
	if !h.canAsk {
		if !h.opts.Approve {
			h.opts.Logger.Info("confirmation refused: the client cannot be asked and approvals are not automatic", "question", question)
		}
		return h.opts.Approve, nil
	}
	select {
	case h.p.asks <- question:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case ok := <-h.p.answer:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// elicitation asks the MCP client's user (prompt.Prompter): a yes/no question by
// elicitation, a choice as yes (the first) or no (the last). Free text is not asked.
type elicitation struct{ h *callHost }

func (e elicitation) Confirm(ctx context.Context, q prompt.Question) (bool, error) {
	return e.h.Confirm(ctx, q.Text, "")
}

func (e elicitation) Choose(ctx context.Context, question string, choices []prompt.Choice, def int) (int, error) {
	ok, err := e.h.Confirm(ctx, question, "")
	if ok {
		return 0, err
	}
	return len(choices) - 1, err
}

func (e elicitation) Input(context.Context, string) (string, error) {
	return "", &prompt.NotAskedError{Reason: "the MCP client is asked yes or no only"}
}

func (e elicitation) CanPrompt() bool { return e.h.canAsk }

func (h *callHost) Progress(ctx context.Context, message string, fraction float64) {
	req := h.p.request()
	token := req.Params.GetProgressToken()
	if token == nil {
		return
	}
	p := &sdk.ProgressNotificationParams{ProgressToken: token, Message: message}
	if fraction >= 0 {
		p.Progress, p.Total = fraction*100, 100
	} else {
		p.Progress = float64(h.p.steps.Add(1))
	}
	if err := req.Session.NotifyProgress(ctx, p); err != nil && !errors.Is(err, context.Canceled) {
		h.opts.Logger.Debug("progress notification", "error", err)
	}
}

func (h *callHost) Log(_ context.Context, level, message string) {
	h.opts.Logger.Named("mcp-serve").Info(message, "level", level)
}
