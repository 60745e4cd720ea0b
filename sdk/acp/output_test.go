package acp_test

import (
	"context"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/sdk"
)

// TestToolLiveOutput: what a program's tool sends with pluginsdk.Output while it runs
// reaches the client as tool_call_updates of the running call (in_progress, its output so
// far: ACP's content replaces the last), before the call's completed update.
func TestToolLiveOutput(t *testing.T) {
	build := sdk.NewTool("build", "Builds", func(sc sdk.SessionContext, _ struct{}) (string, error) {
		pluginsdk.Output(sc, "compile\n")
		pluginsdk.Output(sc, "link\n")
		return "built", nil
	})
	conn, c, proj, _ := serveWith(t, sdk.Options{Tools: []sdk.Tool{build}}, chunks(call("build", `{}`)), chunks(text("Built.")))
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("build")}}); err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	var calls []string
	for _, line := range strings.Split(c.all(), "\n") {
		if strings.Contains(line, `"toolCallId":"c1"`) {
			calls = append(calls, line)
		}
	}
	want := []string{`"sessionUpdate":"tool_call"`,
		`"content":[{"content":{"text":"compile\n","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"in_progress"`,
		`"content":[{"content":{"text":"compile\nlink\n","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"in_progress"`,
		`"rawOutput":{"error":"","output":"built"},"sessionUpdate":"tool_call_update","status":"completed"`}
	if len(calls) != len(want) {
		t.Fatalf("the call's updates:\n%s\nwant %d", strings.Join(calls, "\n"), len(want))
	}
	for i, w := range want {
		if w = strings.ReplaceAll(w, "\n", `\n`); !strings.Contains(calls[i], w) {
			t.Errorf("update %d: %s\nwant %s", i+1, calls[i], w)
		}
	}
}
