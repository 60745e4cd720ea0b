package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/sdk"
)

// The options of a permission question, and what each decides.
var permissionOptions = []acp.PermissionOption{
	{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow_once"},
	{Kind: acp.PermissionOptionKindAllowAlways, Name: "Allow always (this session)", OptionId: "allow_always"},
	{Kind: acp.PermissionOptionKindAllowAlways, Name: "Allow always (saved as a rule in ~/.gem/policies.toml)", OptionId: "allow_always_save"},
	{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject_once"},
}

var decisions = map[acp.PermissionOptionId]sdk.Decision{"allow_once": sdk.ApproveOnce, "allow_always": sdk.ApproveAlways,
	"allow_always_save": sdk.ApproveAndSave, "reject_once": sdk.Deny}

// approve is the session agent's Options.Approve: the policy's question as
// session/request_permission about the call running now, with the terminal's text
// (escaped). A cancelled question refuses the call and cancels the turn.
func (ss *session) approve(s *server) func(context.Context, sdk.ApprovalRequest) (sdk.Decision, error) {
	return func(ctx context.Context, req sdk.ApprovalRequest) (sdk.Decision, error) {
		ss.mu.Lock()
		st := ss.current
		ss.mu.Unlock()
		if st == nil { // FS or Shell of a program's tool, outside a model's call
			st = ss.startOf(sdk.ToolCall{Name: req.Tool, Args: req.Args})
			st.id = ss.callID("")
		}
		question := termsafe.Show(req.Question, "")
		title, _, _ := strings.Cut(question, "\n")
		update := acp.ToolCallUpdate{ToolCallId: st.id, Title: acp.Ptr(title), Kind: acp.Ptr(st.kind), Status: acp.Ptr(acp.ToolCallStatusPending),
			RawInput: rawJSON(req.Args), Locations: locations(st.path),
			Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(question))}}
		resp, err := s.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: ss.id, ToolCall: update, Options: permissionOptions})
		if err != nil {
			return sdk.Deny, nil // the client could not answer: refused, as a terminal without a user
		}
		if resp.Outcome.Selected == nil {
			ss.mu.Lock()
			if ss.cancel != nil {
				ss.cancel()
			}
			ss.mu.Unlock()
			return sdk.Deny, nil
		}
		d, ok := decisions[resp.Outcome.Selected.OptionId]
		if !ok {
			return sdk.Deny, nil
		}
		return d, nil
	}
}

// startOf is what the server shows of a call before it runs: a title, its kind, the file
// it is about.
func (ss *session) startOf(c sdk.ToolCall) *callState {
	st := &callState{kind: kindOf(c.Kind), title: c.Name}
	if c.Kind == "" {
		st.kind = kindOf(ss.agent.KindOf(c.Name))
	}
	var args map[string]any
	json.Unmarshal(c.Args, &args)
	for _, key := range []string{"file_path", "dir_path", "path", "absolute_path"} {
		if p, ok := args[key].(string); ok && p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(ss.cwd, p)
			}
			st.path = filepath.Clean(p)
			break
		}
	}
	switch {
	case args["command"] != nil:
		st.title = termsafe.Show(firstLine(args["command"]), "")
	case st.path != "":
		rel, err := filepath.Rel(ss.cwd, st.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = st.path
		}
		st.title = c.Name + " " + rel
	case args["pattern"] != nil:
		st.title = c.Name + " " + termsafe.Show(firstLine(args["pattern"]), "")
	}
	return st
}

func firstLine(v any) string {
	s, _ := v.(string)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func rawJSON(data []byte) any {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	return v
}

// planOf is write_todos' list as plan entries.
func planOf(args []byte) []acp.PlanEntry {
	var in struct {
		Todos []struct{ Description, Status string }
	}
	if json.Unmarshal(args, &in) != nil || len(in.Todos) == 0 {
		return nil
	}
	var out []acp.PlanEntry
	for _, t := range in.Todos {
		status := acp.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			status = acp.PlanEntryStatusInProgress
		case "completed", "cancelled":
			status = acp.PlanEntryStatusCompleted
		}
		out = append(out, acp.PlanEntry{Content: t.Description, Priority: acp.PlanEntryPriorityMedium, Status: status})
	}
	return out
}

// The modes, Gemini CLI's ids for gem's approval modes.
var modes = []acp.SessionMode{
	{Id: "default", Name: "Default", Description: acp.Ptr("Ask before edits, commands and other changes")},
	{Id: "autoEdit", Name: "Auto edit", Description: acp.Ptr("Edit files without asking; ask before commands")},
	{Id: "yolo", Name: "YOLO", Description: acp.Ptr("Run every tool without asking (a trusted folder only)")},
	{Id: "plan", Name: "Plan", Description: acp.Ptr("Read-only: no edits, no commands that change things")},
}

// modeID is the agent's approval mode as its ACP mode id.
func (ss *session) modeID() acp.SessionModeId {
	m := ss.agent.ApprovalMode()
	if m == "auto_edit" {
		return "autoEdit"
	}
	return acp.SessionModeId(m)
}

func (ss *session) modes() *acp.SessionModeState {
	return &acp.SessionModeState{AvailableModes: modes, CurrentModeId: ss.modeID()}
}

func (s *server) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if err := s.setMode(ss, string(p.ModeId)); err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	return acp.SetSessionModeResponse{}, nil
}

// switchMode sets the agent's approval mode; yolo is refused in an untrusted folder (the
// policy would ask as in default mode all the same: the client must not show yolo).
func (ss *session) switchMode(id string) error {
	if id == "yolo" && !ss.agent.Trusted() {
		return fmt.Errorf("yolo applies only in a trusted folder, and %s is not: trust it with `gem trust`", ss.cwd)
	}
	return ss.agent.SetApprovalMode(id)
}

// setMode switches the session's approval mode and tells the client.
func (s *server) setMode(ss *session, id string) error {
	if !slices.ContainsFunc(modes, func(m acp.SessionMode) bool { return string(m.Id) == id }) {
		return acp.NewInvalidParams(map[string]any{"modeId": id, "error": "use default, autoEdit, yolo or plan"})
	}
	if err := ss.switchMode(id); err != nil {
		return acp.NewInvalidParams(map[string]any{"modeId": id, "error": err.Error()})
	}
	if err := ss.sess.Save(); err != nil && s.opts.Logger != nil { // a client that loads it later finds it in this mode
		s.opts.Logger.Warn("the session's mode not saved", "session", ss.id, "error", err)
	}
	ctx := context.Background()
	s.update(ctx, ss, acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: ss.modeID()}})
	s.update(ctx, ss, acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: s.configOptions(ss)}})
	return nil
}

// configOptions are the session's mode and model as select options.
func (s *server) configOptions(ss *session) []acp.SessionConfigOption {
	var modeOpts []acp.SessionConfigSelectOption
	for _, m := range modes {
		modeOpts = append(modeOpts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	models := slices.Clone(s.opts.Models)
	if cur := ss.sess.Model(); !slices.Contains(models, cur) {
		models = append([]string{cur}, models...)
	}
	var modelOpts []acp.SessionConfigSelectOption
	for _, m := range models {
		modelOpts = append(modelOpts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m), Name: m})
	}
	return []acp.SessionConfigOption{
		{Select: &acp.SessionConfigOptionSelect{Id: "mode", Name: "Mode", Category: acp.Ptr(acp.SessionConfigOptionCategoryMode),
			CurrentValue: acp.SessionConfigValueId(ss.modeID()), Options: acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&modeOpts)}}},
		{Select: &acp.SessionConfigOptionSelect{Id: "model", Name: "Model", Category: acp.Ptr(acp.SessionConfigOptionCategoryModel),
			CurrentValue: acp.SessionConfigValueId(ss.sess.Model()), Options: acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&modelOpts)}}},
	}
}

func (s *server) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "gem's options (mode, model) take a value id"})
	}
	ss, err := s.session(v.SessionId)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case "mode":
		if err := s.setMode(ss, string(v.Value)); err != nil {
			return acp.SetSessionConfigOptionResponse{}, err
		}
	case "model":
		if strings.TrimSpace(string(v.Value)) == "" {
			return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "model: a model name"})
		}
		ss.sess.SetModel(string(v.Value))
	default:
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"configId": v.ConfigId, "error": "gem's options are mode and model"})
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions(ss)}, nil
}
