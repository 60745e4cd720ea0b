package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/sdk"
)

// Options configure a server.
type Options struct {
	// Name and Version are the agent's, told to the client at initialize.
	Name, Version string
	// Agent is the SDK options of a new session's agent; the server sets Cwd, MCPServers
	// and Approve (and ApprovalMode when the client switches modes).
	Agent sdk.Options
	// Models are the models offered as the "model" config option (the session's own is
	// added when missing).
	Models []string
	// Logger hears protocol diagnostics (nil: none).
	Logger *slog.Logger
}

// Serve answers the client on in and out until in closes (or ctx ends), then closes every
// session.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	s := &server{opts: o, sessions: map[acp.SessionId]*session{}}
	conn := acp.NewAgentSideConnection(s, scoped{out}, in)
	if o.Logger != nil {
		conn.SetLogger(o.Logger)
	} else {
		conn.SetLogger(slog.New(slog.DiscardHandler)) // never the process's stderr
	}
	s.conn = conn
	defer s.closeAll()
	select {
	case <-conn.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type server struct {
	opts Options
	conn *acp.AgentSideConnection

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	client   acp.ClientCapabilities // told at initialize
}

var (
	_ acp.Agent       = (*server)(nil)
	_ acp.AgentLoader = (*server)(nil)
)

// session is one client session: its own agent (its cwd, the client's MCP servers).
type session struct {
	id    acp.SessionId
	cwd   string
	agent *sdk.Agent
	sess  *sdk.Session
	note  string          // said in the first update (an untrusted folder)
	ctx   context.Context // ends when the session closes (its background work)
	stop  context.CancelFunc
	wg    sync.WaitGroup // the background work

	mu      sync.Mutex
	cancel  context.CancelFunc // the running turn's
	current *callState         // the tool call running now (its permission question)
	calls   int                // for ids of calls the model sent without one
}

// callState is what the server keeps of a tool call between its start and its result.
type callState struct {
	id      acp.ToolCallId
	title   string
	kind    acp.ToolKind
	path    string // the file it edits, for the diff
	oldText *string
	output  string // its live output so far (each tool_call_update carries it all)
}

func (s *server) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: s.opts.Name, Version: s.opts.Version},
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:    acp.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acp.SessionCapabilities{
				List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{}, Close: &acp.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{Id: "gemini-api-key", Name: "Gemini API key",
			Description: acp.Ptr("GEMINI_API_KEY in the agent's environment, as gem -p reads it")}}},
	}, nil
}

// Authenticate accepts the one method: the key comes from the environment, checked when a
// session's agent is made.
func (s *server) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	if p.MethodId != "gemini-api-key" {
		return acp.AuthenticateResponse{}, acp.NewInvalidParams(map[string]any{"methodId": p.MethodId, "error": "the one method is gemini-api-key"})
	}
	return acp.AuthenticateResponse{}, nil
}

func (s *server) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	ss, err := s.open(ctx, p.Cwd, p.McpServers, "")
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	s.announce(ss)
	return acp.NewSessionResponse{SessionId: ss.id, Modes: ss.modes(), ConfigOptions: s.configOptions(ss)}, nil
}

func (s *server) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	ss, err := s.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	s.replay(ctx, ss)
	s.announce(ss)
	return acp.LoadSessionResponse{Modes: ss.modes(), ConfigOptions: s.configOptions(ss)}, nil
}

func (s *server) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	ss, err := s.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	s.announce(ss)
	return acp.ResumeSessionResponse{Modes: ss.modes(), ConfigOptions: s.configOptions(ss)}, nil
}

// open makes a session's agent for cwd with the client's servers, and a new session of it
// or the saved one resume names.
func (s *server) open(ctx context.Context, cwd string, servers []acp.McpServer, resume string) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, acp.NewInvalidParams(map[string]any{"cwd": cwd, "error": "cwd must be an absolute path"})
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, acp.NewInvalidParams(map[string]any{"cwd": cwd, "error": "cwd must be an existing folder"})
	}
	if resume != "" {
		s.mu.Lock()
		_, open := s.sessions[acp.SessionId(resume)]
		s.mu.Unlock()
		if open {
			return nil, acp.NewInvalidParams(map[string]any{"sessionId": resume, "error": "the session is open already"})
		}
	}
	ss := &session{cwd: cwd}
	o := s.opts.Agent
	o.Cwd = cwd
	o.MCPServers = map[string]sdk.MCPServerConfig{}
	for name, srv := range o.MCPServers {
		o.MCPServers[name] = srv
	}
	for _, m := range servers {
		name, cfg := serverConfig(m)
		if name == "" {
			return nil, acp.NewInvalidParams(map[string]any{"error": "an MCP server without a name, or of a transport gem does not run (acp)"})
		}
		o.MCPServers[name] = cfg
	}
	o.Approve = ss.approve(s)
	s.mu.Lock()
	readsBuffers := s.client.Fs.ReadTextFile
	elicits := s.client.Elicitation != nil && s.client.Elicitation.Form != nil
	s.mu.Unlock()
	if elicits {
		o.Ask = ss.ask(s)
	}
	if readsBuffers {
		o.Buffers = ss.buffers(s)
	}
	a, err := sdk.NewAgent(ctx, o)
	if err != nil {
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	var sess *sdk.Session
	if resume != "" {
		sess, err = a.ResumeSession(ctx, resume)
	} else {
		sess, err = a.Session(ctx)
	}
	if err != nil {
		a.Close()
		if resume != "" {
			return nil, notFound(resume)
		}
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	if resume == "" {
		if err := sess.Save(); err != nil { // the client may load it before any prompt
			sess.Close()
			a.Close()
			return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	ss.agent, ss.sess, ss.id = a, sess, acp.SessionId(sess.ID())
	if !a.Trusted() {
		ss.note = fmt.Sprintf("This folder (%s) is not trusted: its project settings, hooks, policies, MCP servers and commands are not used. Trust it with `gem trust` to use them.", cwd)
	}
	// A session goes on in the mode it was left in (when that mode is still allowed: yolo
	// is not in a folder no longer trusted, nor when an admin disabled it).
	if m := sess.SavedApprovalMode(); m != "" && m != a.ApprovalMode() {
		if err := ss.switchMode(m); err != nil {
			ss.note = strings.TrimSpace(ss.note + fmt.Sprintf("\n\nThe session was in %s mode, which is not allowed here (%v): it goes on in %s mode.", m, err, a.ApprovalMode()))
		}
	}
	ss.ctx, ss.stop = context.WithCancel(context.Background())
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

// serverConfig is a client's MCP server as the SDK takes it ("" for a transport gem does
// not run).
func serverConfig(m acp.McpServer) (string, sdk.MCPServerConfig) {
	headers := func(hs []acp.HttpHeader) map[string]string {
		out := map[string]string{}
		for _, h := range hs {
			out[h.Name] = h.Value
		}
		return out
	}
	switch {
	case m.Stdio != nil:
		env := map[string]string{}
		for _, e := range m.Stdio.Env {
			env[e.Name] = e.Value
		}
		return m.Stdio.Name, sdk.MCPServerConfig{Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env}
	case m.Http != nil:
		return m.Http.Name, sdk.MCPServerConfig{HTTPURL: m.Http.Url, Headers: headers(m.Http.Headers)}
	case m.Sse != nil:
		return m.Sse.Name, sdk.MCPServerConfig{URL: m.Sse.Url, Headers: headers(m.Sse.Headers)}
	}
	return "", sdk.MCPServerConfig{}
}

// announce tells the client what the session starts with: the untrusted-folder note at
// once, then the commands, gem's built-in ones first (listing the MCP servers' prompts starts them: in the
// background, as Gemini CLI sends its list after the session is made).
func (s *server) announce(ss *session) {
	ctx := context.Background()
	if ss.note != "" {
		s.update(ctx, ss, acp.UpdateAgentMessageText(ss.note+"\n\n"))
	}
	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		cmds := []acp.AvailableCommand{}
		for _, c := range ss.sess.Commands(ss.ctx) {
			hint := c.Hint
			switch {
			case hint == "" && c.Source == "builtin": // takes nothing: no input
				cmds = append(cmds, acp.AvailableCommand{Name: c.Name, Description: c.Description})
				continue
			case hint == "" && c.Source == "skill":
				hint = "what to do with the skill"
			case hint == "":
				hint = "arguments"
			}
			desc := c.Description
			if c.Source == "skill" {
				desc = strings.TrimSpace("Skill: " + desc)
			}
			cmds = append(cmds, acp.AvailableCommand{Name: c.Name, Description: desc, Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: hint}}})
		}
		if ss.ctx.Err() == nil {
			s.update(ctx, ss, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
		}
	}()
}

// replay sends a loaded session's transcript as the updates that made it.
func (s *server) replay(ctx context.Context, ss *session) {
	for _, m := range ss.sess.Context().Transcript() {
		if m.Text != "" {
			if m.Role == "user" {
				s.update(ctx, ss, acp.UpdateUserMessageText(m.Text))
			} else {
				s.update(ctx, ss, acp.UpdateAgentMessageText(m.Text))
			}
		}
		for _, c := range m.ToolCalls {
			id := ss.callID(c.ID)
			st := ss.startOf(c)
			s.update(ctx, ss, acp.StartToolCall(id, st.title, acp.WithStartKind(st.kind), acp.WithStartStatus(acp.ToolCallStatusCompleted),
				acp.WithStartRawInput(rawJSON(c.Args)), acp.WithStartLocations(locations(st.path)),
				acp.WithStartContent(textContent(c))))
		}
	}
}

func (s *server) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	o := s.opts.Agent
	o.Cwd, o.Settings, o.MCPServers = cwd, sdk.NoSettings, nil
	a, err := sdk.NewAgent(ctx, o)
	if err != nil {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	defer a.Close()
	infos, err := a.ListSessions()
	if err != nil {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, in := range infos {
		out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(in.ID), Cwd: cwd, Title: acp.Ptr(in.Title),
			UpdatedAt: acp.Ptr(in.Updated.UTC().Format("2006-01-02T15:04:05Z"))})
	}
	return out, nil
}

func (s *server) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s.mu.Lock()
	ss := s.sessions[p.SessionId]
	delete(s.sessions, p.SessionId)
	s.mu.Unlock()
	if ss == nil {
		return acp.CloseSessionResponse{}, notFound(string(p.SessionId))
	}
	ss.close()
	return acp.CloseSessionResponse{}, nil
}

func (s *server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[acp.SessionId]*session{}
	s.mu.Unlock()
	for _, ss := range all {
		ss.close()
	}
}

func (ss *session) close() {
	ss.stop()
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	ss.mu.Unlock()
	ss.wg.Wait()
	ss.sess.Close()
	ss.agent.Close()
}

func (s *server) session(id acp.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[id]; ss != nil {
		return ss, nil
	}
	return nil, notFound(string(id))
}

func (s *server) Cancel(ctx context.Context, p acp.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return nil // a notification: nothing to answer
	}
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.cancel()
	}
	ss.mu.Unlock()
	return nil
}

// update sends one session/update (a failure to send means the client is gone: the
// connection ends the server).
func (s *server) update(ctx context.Context, ss *session, u acp.SessionUpdate) {
	if err := s.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: ss.id, Update: u}); err != nil && s.opts.Logger != nil {
		s.opts.Logger.Debug("session/update not sent", "error", err)
	}
}

func (s *server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	typed, attached, images, err := promptText(p.Prompt)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.mu.Unlock()
		cancel()
		return acp.PromptResponse{}, acp.NewInvalidRequest(map[string]any{"error": "a prompt of this session is running: cancel it or wait"})
	}
	ss.cancel = cancel
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		ss.cancel = nil
		ss.mu.Unlock()
		cancel()
	}()
	if name, args, ok := commandLine(typed); ok && attached == "" && len(images) == 0 {
		if resp, ran := s.runCommand(ctx, ss, name, args); ran {
			return resp, nil
		}
	}
	// What the user typed is expanded as gem -p expands it (/command, @path); what the
	// editor attached is not: a file's text naming @.env must not pull .env in.
	text, err := ss.sess.Expand(ctx, typed)
	if err != nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	text += attached
	if err := ss.sess.Attach(images...); err != nil { // all or none
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	var turnErr error
	for ev, err := range ss.sess.SendStream(ctx, text) {
		if err != nil {
			turnErr = err
			break
		}
		s.event(ctx, ss, ev)
	}
	resp := acp.PromptResponse{StopReason: acp.StopReasonEndTurn}
	if res := ss.sess.LastResult(); res != nil {
		u := res.Usage
		resp.Usage = &acp.Usage{InputTokens: u.PromptTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
		s.update(context.Background(), ss, acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{Used: u.PromptTokens, Size: contextWindow}})
	}
	switch {
	case ctx.Err() != nil:
		resp.StopReason = acp.StopReasonCancelled
	case errors.Is(turnErr, sdk.ErrStepLimit):
		resp.StopReason = acp.StopReasonMaxTurnRequests
	case turnErr != nil:
		var stopped *sdk.StoppedError
		if errors.As(turnErr, &stopped) {
			s.update(context.Background(), ss, acp.UpdateAgentMessageText("\n\n"+stopped.Error()))
			return resp, nil
		}
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": turnErr.Error()})
	}
	return resp, nil
}

// contextWindow is the Gemini models' input limit, the size usage_update reports against.
const contextWindow = 1_048_576

// promptText is the prompt's blocks as the text the user typed (text as is, a link to a file
// as @path, read through the workspace's rules when expanded), the text the editor attached
// (each embedded text resource under its URI), which is not expanded, and the images.
func promptText(blocks []acp.ContentBlock) (typed, attached string, images []sdk.Image, err error) {
	var t, a strings.Builder
	for _, c := range blocks {
		switch {
		case c.Image != nil:
			data, derr := base64.StdEncoding.DecodeString(c.Image.Data)
			if derr != nil {
				return "", "", nil, acp.NewInvalidParams(map[string]any{"error": "an image block whose data is not base64: " + derr.Error()})
			}
			images = append(images, sdk.Image{MIMEType: c.Image.MimeType, Data: data})
		case c.Text != nil:
			t.WriteString(c.Text.Text)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&a, "\n\n--- %s ---\n%s\n", r.Uri, r.Text)
		case c.ResourceLink != nil && strings.HasPrefix(c.ResourceLink.Uri, "file://"):
			fmt.Fprintf(&t, " @%s ", strings.TrimPrefix(c.ResourceLink.Uri, "file://"))
		case c.ResourceLink != nil:
			fmt.Fprintf(&t, " %s ", c.ResourceLink.Uri)
		default:
			return "", "", nil, acp.NewInvalidParams(map[string]any{"error": "gem takes text, images, embedded text resources and resource links (no audio or binary blocks: the agent did not advertise them)"})
		}
	}
	return t.String(), a.String(), images, nil
}

// event turns one SDK event into session updates.
func (s *server) event(ctx context.Context, ss *session, ev sdk.Event) {
	switch ev.Type {
	case sdk.EventMessage:
		if ev.Role == "assistant" { // the user's own prompt is the client's already
			s.update(ctx, ss, acp.UpdateAgentMessageText(ev.Text))
		}
	case sdk.EventThought:
		s.update(ctx, ss, acp.UpdateAgentThoughtText(ev.Text))
	case sdk.EventToolUse:
		c := ev.ToolCall
		st := ss.startOf(*c)
		st.id = ss.callID(c.ID)
		if st.kind == acp.ToolKindEdit && st.path != "" {
			if data, err := ss.readWorkspace(st.path); err == nil {
				st.oldText = acp.Ptr(string(data))
			}
		}
		ss.mu.Lock()
		ss.current = st
		ss.mu.Unlock()
		s.update(ctx, ss, acp.StartToolCall(st.id, st.title, acp.WithStartKind(st.kind), acp.WithStartStatus(acp.ToolCallStatusInProgress),
			acp.WithStartRawInput(rawJSON(c.Args)), acp.WithStartLocations(locations(st.path))))
		if base(c.Name) == "write_todos" {
			if plan := planOf(c.Args); plan != nil {
				s.update(ctx, ss, acp.UpdatePlan(plan...))
			}
		}
	case sdk.EventToolOutput:
		ss.mu.Lock()
		st := ss.current
		var text string
		if st != nil && len(st.output) <= outputMax {
			st.output += ev.Text
			text = st.output
		}
		ss.mu.Unlock()
		if text != "" {
			s.update(ctx, ss, acp.UpdateToolCall(st.id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress), acp.WithUpdateContent(textContent(sdk.ToolCall{Output: text}))))
		}
	case sdk.EventToolResult:
		c := ev.ToolCall
		ss.mu.Lock()
		st := ss.current
		ss.current = nil
		ss.mu.Unlock()
		if st == nil {
			st = ss.startOf(*c)
			st.id = ss.callID(c.ID)
		}
		status := acp.ToolCallStatusCompleted
		if c.Err != nil {
			status = acp.ToolCallStatusFailed
		}
		content := textContent(*c)
		if st.kind == acp.ToolKindEdit && st.path != "" && c.Err == nil {
			if data, err := ss.readWorkspace(st.path); err == nil && (st.oldText == nil || *st.oldText != string(data)) {
				if st.oldText != nil {
					content = []acp.ToolCallContent{acp.ToolDiffContent(st.path, string(data), *st.oldText)}
				} else {
					content = []acp.ToolCallContent{acp.ToolDiffContent(st.path, string(data))}
				}
			}
		}
		s.update(ctx, ss, acp.UpdateToolCall(st.id, acp.WithUpdateStatus(status), acp.WithUpdateContent(content), acp.WithUpdateRawOutput(map[string]any{"output": c.Output, "error": errText(c.Err)})))
	}
}

// bufferWait is how long a file's text is waited for from the editor before gem reads
// the file on disk.
const bufferWait = 5 * time.Second

// buffers is the session agent's Options.Buffers: fs/read_text_file of a workspace file
// (gem has checked the path), so the model reads what the user sees, unsaved changes
// included. An editor that does not answer leaves gem reading the file on disk.
func (ss *session) buffers(s *server) func(string) (string, bool) {
	return func(path string) (string, bool) {
		ctx, cancel := context.WithTimeout(ss.ctx, bufferWait)
		defer cancel()
		resp, err := s.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: ss.id, Path: path})
		if err != nil {
			return "", false
		}
		return resp.Content, true
	}
}

// diffMax is the largest file shown as a diff.
const diffMax = 1 << 20

// readWorkspace reads a file an edit names, for its diff, as gem's own reads go: inside the
// workspace only (the path comes from the model), never through a link out, never a FIFO
// or a device, at most diffMax bytes.
func (ss *session) readWorkspace(path string) ([]byte, error) {
	rel, err := filepath.Rel(ss.cwd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside the workspace", path)
	}
	return fsx.ReadBeneath(ss.cwd, rel, diffMax)
}

// callID is the ACP id of a call: the model's, else one of the session's own.
func (ss *session) callID(id string) acp.ToolCallId {
	if id != "" {
		return acp.ToolCallId(id)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.calls++
	return acp.ToolCallId(fmt.Sprintf("gem-call-%d", ss.calls))
}

// base is a tool's name without the subagent that called it ("worker/touch").
func base(name string) string {
	if _, inner, ok := strings.Cut(name, "/"); ok {
		return inner
	}
	return name
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// outputMax is the most of a call's output a client is shown.
const outputMax = 64 << 10

// textContent is a call's output (and error) as a tool call's content.
func textContent(c sdk.ToolCall) []acp.ToolCallContent {
	text := c.Output
	if c.Err != nil {
		text = strings.TrimSpace(text + "\n" + c.Err.Error())
	}
	if text == "" {
		return nil
	}
	if len(text) > outputMax {
		text = text[:outputMax] + "\n… (cut)"
	}
	return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))}
}

func locations(path string) []acp.ToolCallLocation {
	if path == "" {
		return nil
	}
	return []acp.ToolCallLocation{{Path: path}}
}

// kinds are gem's tool kinds as ACP's (the same words).
var kinds = []acp.ToolKind{acp.ToolKindRead, acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove, acp.ToolKindSearch,
	acp.ToolKindExecute, acp.ToolKindThink, acp.ToolKindFetch, acp.ToolKindOther}

func kindOf(k sdk.Kind) acp.ToolKind {
	if i := slices.Index(kinds, acp.ToolKind(k)); i >= 0 {
		return kinds[i]
	}
	return acp.ToolKindOther
}

// notFound is the schema's resource_not_found error (-32002) for a session id.
func notFound(id string) *acp.RequestError {
	return &acp.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"sessionId": id}}
}
