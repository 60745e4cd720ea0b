package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	urfave "github.com/urfave/cli/v2"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/cmd/gem/cli"
	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/internal/iostreams"
	"github.com/gemhost/gem/internal/npmregistry"
	"github.com/gemhost/gem/registry/mcpregistry"
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

func init() {
	// fakegemini SCRIPT: serve the scripted Gemini API replies of SCRIPT on 127.0.0.1 until
	// the script ends, recording each request as $WORK/gemini/request-N.json; sets
	// GEM_GEMINI_BASE_URL and GEMINI_API_KEY.
	scriptCmds["fakegemini"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: fakegemini script.json")
		}
		replies, err := fakegemini.LoadScript(ts.MkAbs(args[0]))
		ts.Check(err)
		dir := filepath.Join(ts.Getenv("WORK"), "gemini")
		os.RemoveAll(dir)
		srv, err := fakegemini.Start(replies, dir)
		ts.Check(err)
		ts.Defer(srv.Close)
		ts.Setenv("GEM_GEMINI_BASE_URL", srv.URL)
		ts.Setenv("GEMINI_API_KEY", "test-key")
	}
}

func init() {
	// npmregistry [-delay D] VAR DIR: serve the npm packages packed in DIR (npm pack's .tgz
	// files) as an npm registry on 127.0.0.1 (package metadata and tarballs, as npm and npx
	// read them) until the script ends; VAR is its URL (with a trailing slash). -delay holds
	// each tarball back for D, as a slow network would (a first download that takes long).
	scriptCmds["npmregistry"] = func(ts *testscript.TestScript, neg bool, args []string) {
		var delay time.Duration
		if len(args) == 4 && args[0] == "-delay" {
			d, err := time.ParseDuration(args[1])
			ts.Check(err)
			delay, args = d, args[2:]
		}
		if len(args) != 2 {
			ts.Fatalf("usage: npmregistry [-delay D] VAR DIR")
		}
		dir := ts.MkAbs(args[1])
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		base := "http://" + ln.Addr().String() + "/"
		srv := &http.Server{Handler: npmregistry.Handler(dir, base, delay)}
		go srv.Serve(ln)
		ts.Defer(func() { srv.Close() })
		ts.Setenv(args[0], base)
	}
	// tlsserver URLVAR CAFILE: an HTTPS server on 127.0.0.1 with a certificate of its own
	// CA (written to CAFILE, as a company proxy's would be) answering "hello over TLS".
	scriptCmds["tlsserver"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: tlsserver URLVAR CAFILE")
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello over TLS")
		}))
		srv.StartTLS()
		ts.Defer(srv.Close)
		cert := srv.Certificate()
		pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
		dst := ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		ts.Check(os.WriteFile(dst, pemData, 0o644))
		ts.Setenv(args[0], srv.URL)
	}
	// linkorcopy SRC DST: a hard link of SRC at DST, or a copy where the two are on different
	// filesystems (a toolchain "installed" in the test's home).
	scriptCmds["linkorcopy"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: linkorcopy src dst")
		}
		dst := ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		if os.Link(args[0], dst) == nil {
			return
		}
		data, err := os.ReadFile(args[0])
		ts.Check(err)
		ts.Check(os.WriteFile(dst, data, 0o755))
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

func init() {
	// jsonkeys [-lines] A B: the two JSON documents have the same keys at the same places
	// (values aside; arrays by their elements' keys). With -lines they are JSON lines, compared
	// event type by event type (the "type" field). Differences are listed.
	scriptCmds["jsonkeys"] = func(ts *testscript.TestScript, neg bool, args []string) {
		lines := len(args) > 0 && args[0] == "-lines"
		if lines {
			args = args[1:]
		}
		if len(args) != 2 {
			ts.Fatalf("usage: jsonkeys [-lines] A B")
		}
		a, b := keyPaths(ts, ts.ReadFile(args[0]), lines), keyPaths(ts, ts.ReadFile(args[1]), lines)
		var diff []string
		for k := range a {
			if !b[k] {
				diff = append(diff, "only in "+args[0]+": "+k)
			}
		}
		for k := range b {
			if !a[k] {
				diff = append(diff, "only in "+args[1]+": "+k)
			}
		}
		sort.Strings(diff)
		if len(diff) > 0 && !neg {
			ts.Fatalf("the keys differ:\n%s", strings.Join(diff, "\n"))
		}
		if len(diff) == 0 && neg {
			ts.Fatalf("the keys are the same")
		}
	}
}

// keyPaths lists the key paths of a JSON document ("stats.tools.byName.read_file.count"),
// or of JSON lines, each prefixed by its "type".
func keyPaths(ts *testscript.TestScript, text string, lines bool) map[string]bool {
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				out[prefix+k] = true
				walk(prefix+k+".", e)
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[].", e)
			}
		}
	}
	docs := []string{text}
	if lines {
		docs = strings.Split(strings.TrimSpace(text), "\n")
	}
	for _, d := range docs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(d), &v); err != nil {
			ts.Fatalf("not JSON: %v\n%s", err, d)
		}
		prefix := ""
		if m, ok := v.(map[string]any); ok && lines {
			prefix = fmt.Sprint(m["type"]) + ":"
		}
		walk(prefix, v)
	}
	return out
}

// sampleWords are the names of the bundled samples' extensions, tools and servers: a help
// example that names one can run against them.
var sampleWords = regexp.MustCompile(`\b(hello|notes|mcp_notes_\w+|gallery|shell-tools|run_shell_command)\b`)

// exampleSetup runs before an example that starts so (it needs a state the examples before it
// may have changed).
var exampleSetup = map[string]string{
	"gem ext uninstall hello":         "gem ext install $GEM_REPO/sample-extensions/hello --consent --force",
	"gem ext update hello --rollback": `rm -rf "$WORK/hello-src" && cp -r "$GEM_REPO/sample-extensions/hello" "$WORK/hello-src" && gem ext install "$WORK/hello-src" --consent --force && sed -i 's/"version": "[^"]*"/"version": "9.9.9"/' "$WORK/hello-src/gemini-extension.json" && gem ext update hello --consent`,
}

// exampleUndo runs after an example that starts so, to leave the state the next ones need.
var exampleUndo = map[string]string{
	"gem ext disable hello": "gem ext enable hello && gem ext enable hello --scope workspace",
}

// exampleExempt are examples that name a sample but cannot run here, and why.
var exampleExempt = map[string]string{
	"gem mcp serve --http 127.0.0.1:0": "serves until stopped (mcp.txtar drives it)",
}

func init() {
	// helpexamples: every EXAMPLES line of gem's help that names a bundled sample runs
	// (through sh, with gem on PATH) and exits 0; "| jq …" tails are dropped (jq may be
	// missing), comments too. Prints each example run.
	scriptCmds["helpexamples"] = func(ts *testscript.TestScript, neg bool, args []string) {
		app := cli.NewApp(cli.NewFactory(iostreams.FromFiles(os.Stdin, os.Stdout, os.Stderr, os.Getenv)))
		var examples []string
		var walk func(prefix string, cmds []*urfave.Command)
		collect := func(desc string) {
			_, rest, ok := strings.Cut(desc, "EXAMPLES\n")
			if !ok {
				return
			}
			for _, line := range strings.Split(rest, "\n") {
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				examples = append(examples, line)
			}
		}
		walk = func(prefix string, cmds []*urfave.Command) {
			for _, c := range cmds {
				collect(c.Description)
				walk(prefix+" "+c.Name, c.Subcommands)
			}
		}
		collect(app.Description)
		walk("gem", app.Commands)
		ran := 0
		// destructive ones last
		sort.SliceStable(examples, func(i, j int) bool {
			return !strings.Contains(examples[i], "uninstall") && strings.Contains(examples[j], "uninstall")
		})
		for _, ex := range examples {
			line := ex
			if i := strings.Index(line, "  #"); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			if i := strings.Index(line, " | jq "); i >= 0 {
				line = line[:i]
			}
			if !sampleWords.MatchString(line) || exampleExempt[line] != "" {
				continue
			}
			for prefix, setup := range exampleSetup {
				if strings.HasPrefix(line, prefix) {
					if out, err := exampleShell(ts, setup).CombinedOutput(); err != nil {
						ts.Fatalf("setting up for %q: %s: %v\n%s", line, setup, err, out)
					}
				}
			}
			out, err := exampleShell(ts, line).CombinedOutput()
			if err != nil {
				ts.Fatalf("help example %q failed: %v\n%s", line, err, out)
			}
			fmt.Fprintf(ts.Stdout(), "ran: %s\n", line)
			ran++
			for prefix, undo := range exampleUndo {
				if strings.HasPrefix(line, prefix) {
					if out, err := exampleShell(ts, undo).CombinedOutput(); err != nil {
						ts.Fatalf("after %q: %s: %v\n%s", line, undo, err, out)
					}
				}
			}
		}
		if ran == 0 {
			ts.Fatalf("no help example names a sample")
		}
	}
}

func exampleShell(ts *testscript.TestScript, line string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = ts.Getenv("PWD")
	if cmd.Dir == "" {
		cmd.Dir = ts.Getenv("WORK")
	}
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "GEM_REPO", "GEM_GITHUB_API_URL", "GEM_GEMINI_BASE_URL", "GIT_CONFIG_NOSYSTEM", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	return cmd
}

func init() {
	// mcpregistry VAR DIR: an MCP registry on 127.0.0.1 speaking the v0.1 API (GET
	// /v0.1/servers?search=&cursor=&limit=, GET /v0.1/servers/{name}/versions/{version|latest})
	// over the server.json files of DIR, several versions of one server allowed; any other
	// file of DIR is served at /files/<name> (an mcpb bundle). VAR is its URL.
	scriptCmds["mcpregistry"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: mcpregistry VAR DIR")
		}
		dir := ts.MkAbs(args[1])
		servers := func() []mcpregistry.Server {
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			sort.Strings(files)
			var out []mcpregistry.Server
			for _, f := range files {
				data, err := os.ReadFile(f)
				var s mcpregistry.Server
				if err == nil && json.Unmarshal(data, &s) == nil && s.Name != "" {
					out = append(out, s)
				}
			}
			return out
		}
		result := func(s mcpregistry.Server, latest bool) mcpregistry.ServerResult {
			r := mcpregistry.ServerResult{Server: s}
			r.Meta.Official = &struct {
				Status   string `json:"status"`
				IsLatest bool   `json:"isLatest"`
			}{"active", latest}
			return r
		}
		latestOf := func(all []mcpregistry.Server, name string) *mcpregistry.Server {
			var best *mcpregistry.Server
			for i := range all {
				if all[i].Name == name && (best == nil || all[i].Version > best.Version) {
					best = &all[i]
				}
			}
			return best
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path := r.URL.EscapedPath()
			switch {
			case strings.HasPrefix(path, "/files/"):
				http.ServeFile(w, r, filepath.Join(dir, filepath.Base(path)))
			case path == "/v0.1/servers":
				q := r.URL.Query()
				limit := 30
				fmt.Sscan(q.Get("limit"), &limit)
				start := 0
				fmt.Sscan(q.Get("cursor"), &start)
				var list mcpregistry.ServerList
				all := servers()
				var matched []mcpregistry.Server
				for _, s := range all {
					if strings.Contains(s.Name, q.Get("search")) && latestOf(all, s.Name).Version == s.Version {
						matched = append(matched, s)
					}
				}
				for i := start; i < len(matched) && len(list.Servers) < limit; i++ {
					list.Servers = append(list.Servers, result(matched[i], true))
					if i+1 < len(matched) && len(list.Servers) == limit {
						list.Metadata.NextCursor = fmt.Sprint(i + 1)
					}
				}
				list.Metadata.Count = len(list.Servers)
				json.NewEncoder(w).Encode(list)
			case strings.HasPrefix(path, "/v0.1/servers/"):
				rest := strings.TrimPrefix(path, "/v0.1/servers/")
				escName, ver, ok := strings.Cut(rest, "/versions/")
				name, _ := url.PathUnescape(escName)
				if !ok {
					http.NotFound(w, r)
					return
				}
				all := servers()
				if ver == "latest" {
					if s := latestOf(all, name); s != nil {
						json.NewEncoder(w).Encode(result(*s, true))
						return
					}
				}
				for _, s := range all {
					if s.Name == name && s.Version == ver {
						json.NewEncoder(w).Encode(result(s, latestOf(all, name).Version == ver))
						return
					}
				}
				http.Error(w, `{"title":"Not Found","status":404,"detail":"Server not found"}`, http.StatusNotFound)
			default:
				http.NotFound(w, r)
			}
		}))
		ts.Defer(srv.Close)
		ts.Setenv(args[0], srv.URL)
	}
}
