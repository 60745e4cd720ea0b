package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// bgurl VAR PROGRAM ARGS...: start PROGRAM in the background (killed when the script
	// ends), wait for the first line it prints on stdout (a URL) and set VAR to it.
	scriptCmds["bgurl"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: bgurl VAR program [args...]")
		}
		ts.Setenv(args[0], startForURL(ts, args[1], args[2:]...))
	}
	// mcpclient [-http] list | call TOOL JSON: drive `gem mcp serve` (over stdio, or over
	// streamable HTTP with -http) with the official SDK's client; list prints one tool name
	// per line, call prints the result's text (and "isError" when the result is an error).
	scriptCmds["mcpclient"] = func(ts *testscript.TestScript, neg bool, args []string) {
		useHTTP := len(args) > 0 && args[0] == "-http"
		if useHTTP {
			args = args[1:]
		}
		if len(args) == 0 {
			ts.Fatalf("usage: mcpclient [-http] list | call TOOL JSON")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var transport sdk.Transport
		if useHTTP {
			url := startForURL(ts, findInPath(ts, "gem"), "mcp", "serve", "--http", "127.0.0.1:0")
			transport = &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{serveToken(ts, url)}}}
		} else {
			cmd := exec.Command(findInPath(ts, "gem"), "mcp", "serve")
			cmd.Dir, cmd.Env = ts.Getenv("WORK"), scriptEnv(ts)
			cmd.Stderr = ts.Stderr()
			transport = &sdk.CommandTransport{Command: cmd}
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "gem-test", Version: "1"}, nil).Connect(ctx, transport, nil)
		ts.Check(err)
		defer cs.Close()
		switch args[0] {
		case "list":
			var names []string
			for tool, err := range cs.Tools(ctx, nil) {
				ts.Check(err)
				names = append(names, tool.Name)
			}
			sort.Strings(names)
			fmt.Fprintln(ts.Stdout(), strings.Join(names, "\n"))
		case "call":
			if len(args) != 3 {
				ts.Fatalf("usage: mcpclient call TOOL JSON")
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: args[1], Arguments: json.RawMessage(args[2])})
			ts.Check(err)
			for _, c := range res.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					fmt.Fprintln(ts.Stdout(), tc.Text)
				}
			}
			if res.IsError {
				fmt.Fprintln(ts.Stdout(), "isError")
			}
		default:
			ts.Fatalf("mcpclient: unknown verb %q", args[0])
		}
	}
}

// scriptEnv is the environment a program started by a helper gets: the script's own.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "GEM_HOME", "GEMINI_CLI_HOME", "GEM_ENGINE", "TMPDIR", "NOTES_MCP_FILE", "NOTES_URL"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

func findInPath(ts *testscript.TestScript, name string) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
			return filepath.Join(dir, name)
		}
	}
	ts.Fatalf("no %s in PATH", name)
	return ""
}

// startForURL runs a program in the background until the script ends and returns the first
// line it prints.
// bearer adds gem mcp serve's token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}

// serveToken reads the token of the gem mcp serve listening at url from
// $HOME/.gem/mcp-serve/<port>.token.
func serveToken(ts *testscript.TestScript, url string) string {
	port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/")]
	return strings.TrimSpace(ts.ReadFile(filepath.Join(ts.Getenv("HOME"), ".gem", "mcp-serve", port+".token")))
}

func init() {
	// mcpserveauth: start gem mcp serve --http and print the HTTP status of an initialize
	// request without a token, with a wrong one, from a foreign Origin, with a foreign Host,
	// and with the token: "none wrong origin host ok" as numbers.
	scriptCmds["mcpserveauth"] = func(ts *testscript.TestScript, neg bool, args []string) {
		url := startForURL(ts, findInPath(ts, "gem"), "mcp", "serve", "--http", "127.0.0.1:0")
		token := serveToken(ts, url)
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		status := func(auth, origin, host string) int {
			req, err := http.NewRequest("POST", url, strings.NewReader(body))
			ts.Check(err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if auth != "" {
				req.Header.Set("Authorization", "Bearer "+auth)
			}
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			if host != "" {
				req.Host = host
			}
			resp, err := http.DefaultClient.Do(req)
			ts.Check(err)
			resp.Body.Close()
			return resp.StatusCode
		}
		fmt.Fprintln(ts.Stdout(), status("", "", ""), status("not-the-token", "", ""), status(token, "https://evil.example", ""), status(token, "", "evil.example:80"), status(token, "", ""))
	}
}

func startForURL(ts *testscript.TestScript, program string, args ...string) string {
	path := program
	if strings.ContainsRune(program, '/') {
		path = ts.MkAbs(program)
	} else {
		path = findInPath(ts, program)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env = ts.Getenv("WORK"), scriptEnv(ts)
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	ts.Defer(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		ts.Fatalf("%s printed no URL: %v\n%s", program, err, stderr.String())
	}
	return strings.TrimSpace(line)
}

func init() {
	// listen VAR: listen on a TCP port of 127.0.0.1 until the script ends (accepting and
	// closing connections) and set VAR to the port.
	scriptCmds["listen"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: listen VAR")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		ts.Defer(func() { ln.Close() })
		go acceptAndClose(ln)
		ts.Setenv(args[0], fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	}
	// listenunix VAR [DIR|@]: listen on a unix socket until the script ends, VAR its path: in a
	// fresh folder under /tmp (outside any sandbox, like an ssh-agent's or GnuPG's), in DIR
	// (made; a session bus under $HOME/.run, say), or at a fresh abstract address ("@…").
	scriptCmds["listenunix"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 && len(args) != 2 {
			ts.Fatalf("usage: listenunix VAR [DIR|@]")
		}
		var path string
		switch {
		case len(args) == 2 && args[1] == "@":
			path = fmt.Sprintf("@gem-test-%d-%d", os.Getpid(), time.Now().UnixNano())
		case len(args) == 2:
			ts.Check(os.MkdirAll(ts.MkAbs(args[1]), 0o700))
			path = filepath.Join(ts.MkAbs(args[1]), "bus")
		default:
			dir, err := os.MkdirTemp("/tmp", "gem-test-agent-")
			ts.Check(err)
			ts.Defer(func() { os.RemoveAll(dir) })
			path = filepath.Join(dir, "agent.sock")
		}
		ln, err := net.Listen("unix", path)
		ts.Check(err)
		ts.Defer(func() { ln.Close() })
		go acceptAndClose(ln)
		ts.Setenv(args[0], path)
	}
	// noproc TEXT: no running process has TEXT in its command line (with neg: one has).
	scriptCmds["noproc"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: noproc TEXT")
		}
		var found []string
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			found = found[:0]
			dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, d := range dirs {
				data, err := os.ReadFile(d)
				if err != nil || !strings.Contains(strings.ReplaceAll(string(data), "\x00", " "), args[0]) {
					continue
				}
				// This script's processes only (they work in $WORK): the same test runs
				// again as another user, and its processes are not this run's.
				if cwd, err := os.Readlink(filepath.Join(filepath.Dir(d), "cwd")); err == nil && !strings.HasPrefix(cwd, ts.Getenv("WORK")) {
					continue
				}
				found = append(found, d)
			}
			if (len(found) == 0) != neg || time.Now().After(deadline) {
				break
			}
		}
		if (len(found) == 0) == neg {
			ts.Fatalf("processes with %q: %v", args[0], found)
		}
	}
}

// packageJSON reads package/package.json out of an npm tarball.
// acceptAndClose accepts connections on ln and closes each, until ln is closed.
func acceptAndClose(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

func init() {
	// mcpexchange N TOOL: the README demo's exchange with `gem mcp serve`, as a bare client
	// speaks it (JSON lines on stdio: initialize, initialized, tools/list, tools/call TOOL
	// with {}), N times, each with a fresh server. Answers are read by id; a
	// notifications/tools/list_changed fails it (the list does not change). Prints the
	// call's text of the last run.
	scriptCmds["mcpexchange"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: mcpexchange N TOOL")
		}
		var runs int
		if _, err := fmt.Sscan(args[0], &runs); err != nil || runs < 1 {
			ts.Fatalf("mcpexchange: bad count %q", args[0])
		}
		var text string
		for i := range runs {
			t, err := mcpExchange(ts, args[1])
			if err != nil {
				ts.Fatalf("mcpexchange run %d of %d: %v", i+1, runs, err)
			}
			text = t
		}
		fmt.Fprintln(ts.Stdout(), text)
	}
}

func mcpExchange(ts *testscript.TestScript, tool string) (string, error) {
	cmd := exec.Command(findInPath(ts, "gem"), "mcp", "serve")
	cmd.Dir, cmd.Env = ts.Getenv("WORK"), scriptEnv(ts)
	cmd.Stderr = io.Discard
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(outPipe)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	send := func(msg string) error { _, err := io.WriteString(in, msg+"\n"); return err }
	// answer reads messages until the response with id; a list_changed notification is an
	// error, other notifications (logging, progress) are passed over.
	answer := func(id int) (map[string]json.RawMessage, error) {
		timeout := time.After(60 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					return nil, fmt.Errorf("gem mcp serve ended before answering request %d", id)
				}
				var msg map[string]json.RawMessage
				if err := json.Unmarshal(line, &msg); err != nil {
					return nil, fmt.Errorf("not JSON-RPC: %s", line)
				}
				if string(msg["method"]) == `"notifications/tools/list_changed"` {
					return nil, fmt.Errorf("a tools/list_changed notification though the list did not change (before the answer to %d)", id)
				}
				if string(msg["id"]) == fmt.Sprint(id) {
					if msg["error"] != nil {
						return nil, fmt.Errorf("request %d: %s", id, msg["error"])
					}
					return msg, nil
				}
			case <-timeout:
				return nil, fmt.Errorf("no answer to request %d in 60 s", id)
			}
		}
	}
	steps := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":` + strconvQuote(tool) + `,"arguments":{}}}`,
	}
	var last map[string]json.RawMessage
	for i, step := range steps {
		if err := send(step); err != nil {
			return "", err
		}
		if i == 1 {
			continue // a notification: no answer
		}
		id := map[int]int{0: 1, 2: 2, 3: 3}[i]
		msg, err := answer(id)
		if err != nil {
			return "", err
		}
		last = msg
	}
	// Anything the server says after the call, until stdin closes, is checked as well.
	in.Close()
	for line := range lines {
		if bytes.Contains(line, []byte(`"notifications/tools/list_changed"`)) {
			return "", fmt.Errorf("a tools/list_changed notification after the call")
		}
	}
	var result struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(last["result"], &result); err != nil || len(result.Content) == 0 {
		return "", fmt.Errorf("the call's result: %s", last["result"])
	}
	if result.IsError {
		return "", fmt.Errorf("the call failed: %s", result.Content[0].Text)
	}
	return strings.TrimSpace(result.Content[0].Text), nil
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
