package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
// plugin in.
func (t Tool) Plugin() pluginsdk.Tool { return t.tool }

// MCPServer is an MCP server (the MCP Go SDK's) offering tools, to serve the same typed
// tools to any MCP client: server.Run(ctx, &mcp.StdioTransport{}). Arguments are validated
// against each tool's schema; a ModelError (or any error) is a tool result with isError,
// which the client's model reads; a typed result is structured content with its JSON as
// the text. The tools' SessionContext is as with Plugin.
func MCPServer(name, version string, ts ...Tool) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, nil)
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
			if err := pt.Validate(args); err != nil {
				return failed(err), nil
			}
			res, err := pt.Call(ctx, args)
			if err != nil {
				return failed(err), nil
			}
			out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Text}}}
			if res.Structured != nil {
				out.StructuredContent = res.Structured
			}
			return out, nil
		})
	}
	return s, nil
}

func failed(err error) *mcp.CallToolResult {
	msg := err.Error()
	if te, ok := errors.AsType[*pluginsdk.ToolError](err); ok {
		msg = fmt.Sprintf("%s: %s", te.Type, te.Message)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// standalone is the SessionContext of a tool served outside an agent (Plugin, MCPServer).
func standalone() *sessionContext {
	wd, _ := os.Getwd()
	return &sessionContext{cwd: wd, at: time.Now()}
}
