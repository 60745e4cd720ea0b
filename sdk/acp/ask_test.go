package acp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/sdk"
)

// UnstableCreateElicitation answers a form with elicit.
func (c *client) UnstableCreateElicitation(_ context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.elicits = append(c.elicits, p)
	if c.elicit == nil {
		return acp.UnstableCreateElicitationResponse{}, errors.New("no elicitation")
	}
	return c.elicit(p), nil
}

// wire records the server's messages.
type wire struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// line is the first message written whose text holds s ("" when none).
func (w *wire) line(s string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(w.buf.String(), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	if c.first != nil && n.Update.AgentMessageChunk != nil {
		c.first <- time.Now()
		c.first = nil
	}
	return nil
}

func (c *client) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	if c.answer == "" {
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(c.answer)}, nil
}

// TestAskUserByElicitation: the model's ask_user, over ACP to a client that offers form
// elicitation, is elicitation/create scoped to the session and the call (sessionId and
// toolCallId in its params, as the spec puts them), a form of the question's options; the
// answer goes back to the model.
func TestAskUserByElicitation(t *testing.T) {
	conn, c, proj, srv := serve(t,
		chunks(call("ask_user", `{"questions":[{"question":"Which auth?","header":"Auth","type":"choice","options":[{"label":"OAuth","description":"a browser login"},{"label":"Key","description":"an API key"}]}]}`)),
		chunks(text("OAuth it is.")))
	c.elicit = func(acp.UnstableCreateElicitationRequest) acp.UnstableCreateElicitationResponse {
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"answer": "OAuth"}}}
	}
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("set up auth")}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if len(c.elicits) != 1 || c.elicits[0].Form == nil || !strings.Contains(c.elicits[0].Form.Message, "Which auth?") ||
		!strings.Contains(c.elicits[0].Form.Message, "OAuth: a browser login") {
		t.Fatalf("elicited %+v", c.elicits)
	}
	if enum := fmt.Sprint(c.elicits[0].Form.RequestedSchema.Properties["answer"]); !strings.Contains(enum, "enum:[OAuth Key]") {
		t.Errorf("the form's field: %s", enum)
	}
	line := c.wire.line(`"elicitation/create"`)
	if !strings.Contains(line, `"sessionId":"`+string(sess.SessionId)+`"`) || !strings.Contains(line, `"toolCallId":"c1"`) || strings.Contains(line, "gem/") {
		t.Errorf("elicitation/create is not scoped to the session and call:\n%s", line)
	}
	if body := string(srv.Requests[1].Body); !strings.Contains(body, `Auth: OAuth`) {
		t.Errorf("the answer is not in the next request:\n%s", body)
	}
}

// TestCancelReachesTool: session/cancel while a program's tool runs cancels the tool's
// SessionContext (its context), and the turn ends cancelled.
func TestCancelReachesTool(t *testing.T) {
	started := make(chan struct{})
	seen := make(chan error, 1)
	wait := sdk.NewTool("wait", "Waits until cancelled", func(sc sdk.SessionContext, _ struct{}) (string, error) {
		close(started)
		select {
		case <-sc.Done():
			seen <- sc.Err()
		case <-time.After(30 * time.Second):
			seen <- errors.New("not cancelled in 30s")
		}
		return "", sc.Err()
	})
	conn, _, proj, _ := serveWith(t, sdk.Options{Tools: []sdk.Tool{wait}}, chunks(call("wait", `{}`)), chunks(text("never")))
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-started
		conn.Cancel(ctx, acp.CancelNotification{SessionId: sess.SessionId})
	}()
	res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("wait")}})
	if err != nil || res.StopReason != acp.StopReasonCancelled {
		t.Errorf("prompt: %+v, %v; want cancelled", res, err)
	}
	if err := <-seen; !errors.Is(err, context.Canceled) {
		t.Errorf("the tool saw %v; want context.Canceled", err)
	}
}
