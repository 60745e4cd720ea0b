package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/pluginsdk"
)

// Plugin is t as a pluginsdk tool, to serve the same typed tool from a go-plugin that gem
// (or any pluginsdk host) runs in its sandbox:
//
//	func main() { pluginsdk.Serve(pluginsdk.Plugin{Name: "review", Tools: []pluginsdk.Tool{findTodos.Plugin()}}) }
//
// Outside an agent, its SessionContext knows no session: Agent and Session are nil, Cwd is
// the plugin's working folder, and FS and Shell work there under the sandbox gem runs the
// plugin in. It is the plugin call's context (pluginsdk's Confirm, Logger, Output reach
// the host); Confirm, and Ask of a yes/no question, are the host's confirmation, and other
// questions ErrNoAsk (the plugin protocol has no other).
func (t Tool) Plugin() pluginsdk.Tool { return t.tool }

// MCPServer is an MCP server (the MCP Go SDK's) offering tools, to serve the same typed
// tools to any MCP client: server.Run(ctx, &mcp.StdioTransport{}). Arguments are validated
// against each tool's schema; a ModelError (or any error) is a tool result with isError,
// which the client's model reads; a typed result is structured content with its JSON as
// the text. The tools' SessionContext is as with Plugin, its questions (Ask, Confirm,
// pluginsdk.Confirm) put to the client by elicitation (ErrNoAsk when it offers none), its
// logs (pluginsdk.Log, Logger) sent as MCP log messages and its progress and Output as
// progress notifications when the client asked for them.
func MCPServer(name, version string, ts ...Tool) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, nil)
	calls := &mcpCalls{waiting: map[string]*mcpCall{}}
	for _, t := range ts {
		if err := t.check(); err != nil {
			return nil, err
		}
		tool := &mcp.Tool{Name: t.Name(), Description: t.tool.Description(), InputSchema: json.RawMessage(t.tool.Schema())}
		if out := t.tool.OutputSchema(); out != nil {
			tool.OutputSchema = json.RawMessage(out)
		}
		pt := t.tool
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.Params.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			if req.Params.RequestState == "" {
				if err := pt.Validate(args); err != nil {
					return failed(err), nil
				}
			}
			return calls.handle(ctx, req, func(ctx context.Context, h mcpHost) *mcp.CallToolResult {
				ctx = pluginsdk.WithOutput(pluginsdk.WithHost(ctx, h), func(text string) { h.Progress(ctx, text, -1) })
				res, err := pt.Call(context.WithValue(ctx, askerKey{}, asker(h.ask)), args)
				if err != nil {
					return failed(err)
				}
				out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Text}}}
				if res.Structured != nil {
					out.StructuredContent = res.Structured
				}
				return out
			})
		})
	}
	return s, nil
}

// mcpCalls are an MCPServer's calls that wait on the client's answer to a question. A call
// runs in a goroutine of its own: when its tool asks, the request returns the question as
// an input request (SEP-2322's multi round-trip; the MCP SDK sends elicitation/create to
// clients of older versions), and the client's retry, carrying the answer and the request
// state, picks the call up again. A question unanswered for askTimeout cancels the call.
type mcpCalls struct {
	mu      sync.Mutex
	next    int
	waiting map[string]*mcpCall
}

type mcpCall struct {
	cancel  context.CancelFunc
	asks    chan *mcp.ElicitParams
	answers chan *mcp.ElicitResult
	done    chan *mcp.CallToolResult
}

const askTimeout = 10 * time.Minute

func (cs *mcpCalls) handle(ctx context.Context, req *mcp.CallToolRequest, run func(context.Context, mcpHost) *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if state := req.Params.RequestState; state != "" {
		cs.mu.Lock()
		c := cs.waiting[state]
		delete(cs.waiting, state)
		cs.mu.Unlock()
		if c == nil {
			return failed(errors.New("this question is no longer pending (answered, or timed out): call the tool again")), nil
		}
		r, _ := req.Params.InputResponses["answer"].(*mcp.ElicitResult)
		c.answers <- r
		return cs.await(ctx, c)
	}
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &mcpCall{cancel: cancel, asks: make(chan *mcp.ElicitParams), answers: make(chan *mcp.ElicitResult, 1), done: make(chan *mcp.CallToolResult, 1)}
	go func() {
		defer cancel()
		c.done <- run(cctx, mcpHost{req: req, call: c, tool: req.Params.Name})
	}()
	return cs.await(ctx, c)
}

// await waits for the call's end or its next question; the client cancelling its request
// cancels the call.
func (cs *mcpCalls) await(ctx context.Context, c *mcpCall) (*mcp.CallToolResult, error) {
	select {
	case res := <-c.done:
		return res, nil
	case q := <-c.asks:
		cs.mu.Lock()
		cs.next++
		state := fmt.Sprintf("sdk-ask-%d", cs.next)
		cs.waiting[state] = c
		cs.mu.Unlock()
		time.AfterFunc(askTimeout, func() {
			cs.mu.Lock()
			_, still := cs.waiting[state]
			delete(cs.waiting, state)
			cs.mu.Unlock()
			if still {
				c.cancel()
			}
		})
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"answer": q}, RequestState: state}, nil
	case <-ctx.Done():
		c.cancel()
		return nil, ctx.Err()
	}
}

func failed(err error) *mcp.CallToolResult {
	msg := err.Error()
	if te, ok := errors.AsType[*pluginsdk.ToolError](err); ok {
		msg = fmt.Sprintf("%s: %s", te.Type, te.Message)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// askerKey carries the asker of a tool served outside an agent (MCPServer's elicitation).
type askerKey struct{}

// standalone is the SessionContext of a tool served outside an agent (Plugin, MCPServer),
// with the call's ctx.
func standalone(ctx context.Context) *sessionContext {
	wd, _ := os.Getwd()
	ask, ok := ctx.Value(askerKey{}).(asker)
	if !ok {
		ask = hostConfirm
	}
	return (&sessionContext{cwd: wd, at: time.Now(), ask: ask}).withHost(ctx)
}

// hostConfirm asks a yes/no question through pluginsdk's host (a plugin's); other
// questions have no one to answer them.
func hostConfirm(ctx context.Context, q Question) (Answer, error) {
	if q.Type != AskYesNo {
		return Answer{}, fmt.Errorf("%w: the plugin's host answers yes/no questions only", ErrNoAsk)
	}
	yes, err := pluginsdk.Confirm(ctx, q.Text, q.Details)
	if errors.Is(err, pluginsdk.ErrNoHost) {
		err = fmt.Errorf("%w: %w", ErrNoAsk, err)
	}
	return Answer{Yes: yes}, err
}

// mcpHost is pluginsdk's Host of a tool served over MCP: questions by the client's
// elicitation, logs as log messages, progress as progress notifications (when the call
// asked for them).
type mcpHost struct {
	req  *mcp.CallToolRequest // the request that started the call
	call *mcpCall
	tool string
}

func (h mcpHost) ask(ctx context.Context, q Question) (Answer, error) {
	ip := h.req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return Answer{}, fmt.Errorf("%w: the MCP client offers no elicitation", ErrNoAsk)
	}
	select {
	case h.call.asks <- &mcp.ElicitParams{Mode: "form", Message: q.Message(), RequestedSchema: q.Schema()}:
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
	select {
	case r := <-h.call.answers:
		if r == nil {
			return Answer{Declined: true}, nil
		}
		return q.FormAnswer(r.Action, r.Content), nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

func (h mcpHost) Confirm(ctx context.Context, title, details string) (bool, error) {
	a, err := ask(ctx, h.ask, Question{Type: AskYesNo, Text: title, Details: details})
	return err == nil && a.Yes, err
}

func (h mcpHost) Progress(ctx context.Context, message string, fraction float64) {
	token := h.req.Params.GetProgressToken()
	if token == nil {
		return
	}
	p := &mcp.ProgressNotificationParams{ProgressToken: token, Message: message}
	if fraction >= 0 {
		p.Progress, p.Total = fraction, 1
	}
	h.req.Session.NotifyProgress(ctx, p)
}

func (h mcpHost) Log(ctx context.Context, level, message string) {
	lv := map[string]mcp.LoggingLevel{"trace": "debug", "warn": "warning"}[level]
	if lv == "" {
		lv = mcp.LoggingLevel(level)
	}
	h.req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: lv, Data: message, Logger: h.tool})
}
