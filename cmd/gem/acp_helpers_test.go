package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/internal/acptest"
)

// editor is an ACP client as an editor is one: it offers fs/read_text_file and answers with
// an open file's unsaved text, else with the file read by its path on disk, links followed,
// with the user's rights (as Zed or VS Code read).
type editor struct {
	acptest.Refuse // no terminals, no writes
	open           map[string]string
	mu             sync.Mutex
	reads          int
}

func (e *editor) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	e.mu.Lock()
	e.reads++
	text, ok := e.open[p.Path]
	e.mu.Unlock()
	if ok {
		return acp.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	return acp.ReadTextFileResponse{Content: string(data)}, nil
}

func (e *editor) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

func (e *editor) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected("allow_once")}, nil
}

func init() {
	// acpeditor [-open FILE=TEXT]... PROMPT: drive `gem acp` in the script's folder as an
	// editor (type editor): one session, one prompt; -open makes FILE (relative to the
	// folder) open with the unsaved text TEXT. Prints "stop REASON" and "editor reads N".
	scriptCmds["acpeditor"] = func(ts *testscript.TestScript, neg bool, args []string) {
		dir := ts.MkAbs(".")
		e := &editor{open: map[string]string{}}
		for len(args) > 1 && args[0] == "-open" {
			file, text, _ := strings.Cut(args[1], "=")
			e.open[filepath.Join(dir, file)] = text
			args = args[2:]
		}
		if len(args) != 1 {
			ts.Fatalf("usage: acpeditor [-open FILE=TEXT]... PROMPT")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, findInPath(ts, "gem"), "acp")
		cmd.Dir = dir
		cmd.Env = scriptEnv(ts)
		for _, k := range []string{"GEM_GEMINI_BASE_URL", "GEMINI_API_KEY", "GEM_SANDBOX_NAMESPACES"} {
			cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
		}
		cmd.Stderr = ts.Stderr()
		in, err := cmd.StdinPipe()
		ts.Check(err)
		out, err := cmd.StdoutPipe()
		ts.Check(err)
		ts.Check(cmd.Start())
		defer func() { in.Close(); cmd.Wait() }()
		conn := acp.NewClientSideConnection(e, in, out)
		_, err = conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
			ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true}}})
		ts.Check(err)
		sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
		ts.Check(err)
		resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(args[0])}})
		ts.Check(err)
		e.mu.Lock()
		defer e.mu.Unlock()
		fmt.Fprintf(ts.Stdout(), "stop %s\neditor reads %d\n", resp.StopReason, e.reads)
	}
}
