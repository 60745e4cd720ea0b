package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/sdk"
)

// ask is the session agent's Options.Ask when the client offers form elicitation: the
// question as elicitation/create (a form of one field, sdk.Question.Schema), scoped to the
// session and the tool call running now. A declined or dismissed form is no answer (the
// model reads "(no answer)"); a client that fails to answer fails the question.
func (ss *session) ask(s *server) func(context.Context, sdk.Question) (sdk.Answer, error) {
	return func(ctx context.Context, q sdk.Question) (sdk.Answer, error) {
		meta := map[string]any{scopeSession: string(ss.id)}
		ss.mu.Lock()
		if ss.current != nil {
			meta[scopeCall] = string(ss.current.id)
		}
		ss.mu.Unlock()
		var schema acp.UnstableElicitationSchema
		data, _ := json.Marshal(q.Schema())
		if err := json.Unmarshal(data, &schema); err != nil {
			return sdk.Answer{}, err
		}
		resp, err := s.conn.UnstableCreateElicitation(ctx, acp.UnstableCreateElicitationRequest{Form: &acp.UnstableCreateElicitationForm{
			Meta: meta, Message: termsafe.Show(q.Message(), ""), RequestedSchema: schema}})
		if err != nil {
			return sdk.Answer{}, err
		}
		if resp.Accept == nil {
			return sdk.Answer{Declined: true}, nil
		}
		return q.FormAnswer("accept", resp.Accept.Content), nil
	}
}

// The keys of _meta that carry an elicitation's scope to scoped, which lifts them into the
// request's params: acp-go-sdk v0.13.0's generated form type has no sessionId or toolCallId
// (its generator drops the schema's ElicitationSessionScope), which the spec puts there.
const (
	scopeSession = "gem/sessionId"
	scopeCall    = "gem/toolCallId"
)

// scoped is the connection's output: each message is one Write (acp-go-sdk writes a line
// at a time); an elicitation/create request has its scope lifted from _meta into params.
type scoped struct{ w io.Writer }

func (s scoped) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte(`"elicitation/create"`)) {
		return s.w.Write(p)
	}
	var msg map[string]json.RawMessage
	var params map[string]any
	if json.Unmarshal(p, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil {
		return s.w.Write(p)
	}
	if meta, ok := params["_meta"].(map[string]any); ok {
		for key, field := range map[string]string{scopeSession: "sessionId", scopeCall: "toolCallId"} {
			if v, ok := meta[key]; ok {
				params[field] = v
				delete(meta, key)
			}
		}
		if len(meta) == 0 {
			delete(params, "_meta")
		}
	}
	msg["params"], _ = json.Marshal(params)
	out, err := json.Marshal(msg)
	if err != nil {
		return s.w.Write(p)
	}
	if _, err := s.w.Write(append(out, '\n')); err != nil {
		return 0, err
	}
	return len(p), nil
}
