package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/mcpserve"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/fsx"
)

func mcpCommand(f *Factory) *cli.Command {
	return group("mcp", "the MCP servers extensions declare, and gem as an MCP server", nil,
		aliased(mcpListCommand(f), "ls"), mcpToolsCommand(f), mcpResourcesCommand(f), mcpReadCommand(f), mcpAuthCommand(f), mcpServeCommand(f),
		mcpSearchCommand(f), mcpInstallCommand(f))
}

// mcpServerRow is one server in gem mcp list --json.
type mcpServerRow struct {
	Name      string `json:"name"`
	Extension string `json:"extension"`
	Transport string `json:"transport"`
	Endpoint  string `json:"endpoint"`
	State     string `json:"state"`
	Tools     int    `json:"tools"`
	Error     string `json:"error,omitempty"`
}

type mcpListOptions struct {
	jsonOutput
}

func mcpListCommand(f *Factory) *cli.Command {
	return verb(f, "list", "start every MCP server of the enabled extensions and show its state and tools", mcpList,
		"gem mcp list", "gem mcp list --json | jq '.[] | select(.error)'")
}

func mcpList(ctx context.Context, s *session, o mcpListOptions) error {
	reg, err := s.openTools(ctx, nil, callFlags{})
	if err != nil {
		return err
	}
	defer reg.Close()
	s.startMCPShown(ctx, reg) // failures are shown per server below
	rows, failed := []mcpServerRow{}, 0
	for _, srv := range reg.Servers() {
		x := mcpServerRow{srv.Name, srv.Extension, srv.Transport, srv.Endpoint, srv.State, srv.Tools, ""}
		if srv.Error != nil {
			x.Error = errorText(srv.Error)
			if srv.State != tools.StateNeedsConfig { // waits for the user, never started: no failure
				failed++
			}
		}
		rows = append(rows, x)
	}
	err = render(s, o.JSON, rows, func() error {
		if len(rows) == 0 {
			_, err := fmt.Fprintln(s.stdout, "No MCP servers: no enabled extension declares mcpServers.")
			return err
		}
		var table [][]string
		for _, x := range rows {
			msg, _, _ := strings.Cut(x.Error, "\n")
			table = append(table, []string{x.Name, x.Extension, x.Transport, x.State, strconv.Itoa(x.Tools), msg})
		}
		return printTable(s.stdout, []string{"SERVER", "EXTENSION", "TRANSPORT", "STATE", "TOOLS", "ERROR"}, table)
	})
	if err == nil && failed > 0 {
		msg := fmt.Sprintf("%d of %d MCP servers failed", failed, len(rows))
		if !o.JSON {
			msg += " (gem mcp list --json has each whole error, with the server's last stderr lines)"
		}
		return exitError{code: 1, msg: msg}
	}
	return err
}

type mcpToolsOptions struct {
	Server string `arg:"<server>" help:"a server name"`
	jsonOutput
}

func mcpToolsCommand(f *Factory) *cli.Command {
	return verb(f, "tools", "list the tools of one MCP server, as gem names them", mcpTools, "gem mcp tools notes")
}

func mcpTools(ctx context.Context, s *session, o mcpToolsOptions) error {
	reg, err := s.openTools(ctx, nil, callFlags{})
	if err != nil {
		return err
	}
	defer reg.Close()
	list, err := reg.ServerTools(ctx, o.Server)
	if err != nil {
		return err
	}
	type row struct {
		Name        string     `json:"name"`
		Declared    string     `json:"declared"`
		Kind        tools.Kind `json:"kind"`
		Description string     `json:"description"`
	}
	rows, table := []row{}, [][]string{}
	for _, t := range list {
		rows = append(rows, row{t.Name, t.Declared, t.Kind(), t.Spec.Description})
		table = append(table, []string{t.Name, t.Declared, string(t.Kind()), t.Spec.Description})
	}
	return render(s, o.JSON, rows, func() error {
		return printTableOr(s.stdout, []string{"TOOL", "DECLARED", "KIND", "DESCRIPTION"}, table,
			fmt.Sprintf("No tools: MCP server %s lists none (or includeTools/excludeTools hide them).", o.Server))
	})
}

type mcpResourcesOptions struct {
	Server string `arg:"<server>" help:"a server name"`
	jsonOutput
}

func mcpResourcesCommand(f *Factory) *cli.Command {
	return verb(f, "resources", "list an MCP server's resources and resource templates", mcpResources, "gem mcp resources notes")
}

func mcpResources(ctx context.Context, s *session, o mcpResourcesOptions) error {
	return withMCPServer(ctx, s, o.Server, func(srv *mcphost.Client) error {
		list, err := srv.Resources(ctx)
		if err != nil {
			return err
		}
		return render(s, o.JSON, orEmpty(list), func() error {
			var table [][]string
			for _, x := range list {
				table = append(table, []string{x.URI, x.Name, x.Description})
			}
			return printTableOr(s.stdout, []string{"URI", "NAME", "DESCRIPTION"}, table, fmt.Sprintf("No resources: MCP server %s offers none.", o.Server))
		})
	})
}

type mcpReadOptions struct {
	Server string `arg:"<server>" help:"a server name"`
	URI    string `arg:"<uri>" help:"a resource URI"`
}

func mcpReadCommand(f *Factory) *cli.Command {
	return verb(f, "read", "print a resource of an MCP server", mcpRead, "gem mcp read notes notes://index", "gem mcp read notes notes://note/1")
}

func mcpRead(ctx context.Context, s *session, o mcpReadOptions) error {
	return withMCPServer(ctx, s, o.Server, func(srv *mcphost.Client) error {
		text, err := srv.ReadResource(ctx, o.URI)
		if err != nil {
			return err
		}
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		_, err = fmt.Fprint(s.stdout, text)
		return err
	})
}

// withMCPServer opens the invocation's tools, finds the named MCP server and calls fn.
func withMCPServer(ctx context.Context, s *session, name string, fn func(*mcphost.Client) error) error {
	reg, err := s.openTools(ctx, nil, callFlags{})
	if err != nil {
		return err
	}
	defer reg.Close()
	srv, err := reg.MCPServerByName(name)
	if err != nil {
		return err
	}
	return fn(srv)
}

type mcpServeOptions struct {
	callFlags
	HTTP string `flag:"http" usage:"serve streamable HTTP on this loopback address (host:port)"`
}

func mcpServeCommand(f *Factory) *cli.Command {
	cmd := verb(f, "serve", "serve every enabled tool (plugins and MCP servers) over MCP: stdio, or streamable HTTP with --http", mcpServe,
		`gem mcp serve                       # for an MCP host's config: {"command": "gem", "args": ["mcp", "serve"]}`,
		"gem mcp serve --http 127.0.0.1:0")
	cmd.Description = "Over stdio (the default) an MCP host starts `gem mcp serve` itself; stdout carries the\n" +
		"protocol and warnings go to stderr. With --http 127.0.0.1:PORT gem serves streamable HTTP\n" +
		"at http://127.0.0.1:PORT/mcp and prints that URL on stdout (PORT 0 picks a free one).\n" +
		"Only loopback addresses are served, and only to clients that send the bearer token gem\n" +
		"prints on stderr and writes to $GEM_HOME/mcp-serve/PORT.token (0600): tools run with your\n" +
		"permissions, and any local user can reach a loopback port. --yes approves confirmations\n" +
		"when the client cannot be asked (no elicitation).\n\n" + cmd.Description
	return cmd
}

func mcpServe(ctx context.Context, s *session, o mcpServeOptions) error {
	if o.HTTP != "" {
		if err := loopbackOnly(o.HTTP); err != nil {
			return err
		}
	}
	reg, err := s.openTools(ctx, &tools.Services{Logger: s.log}, o.callFlags)
	if err != nil {
		return err
	}
	defer reg.Close()
	s.startMCP(ctx, reg)
	server := mcpserve.New(reg, mcpserve.Options{Approve: o.Yes, Logger: s.log})
	if o.HTTP == "" {
		err := server.Run(ctx, &sdk.StdioTransport{})
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("serving MCP on stdio: %w", err)
		}
		return nil
	}
	return serveHTTP(ctx, s, o.HTTP, server)
}

// loopbackOnly refuses addresses other hosts could reach.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--http %q: want host:port, e.g. 127.0.0.1:8808", addr)
	}
	if loopbackHost(host) {
		return nil
	}
	return usagef("--http %q: gem serves only loopback addresses (127.0.0.1, ::1, localhost), since tools run with your permissions", addr)
}

func serveHTTP(ctx context.Context, s *session, addr string, server *sdk.Server) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (is the port taken?)", addr, err)
	}
	token, tokenFile, err := newServeToken(s, ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		ln.Close()
		return err
	}
	defer os.Remove(tokenFile)
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(token, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.stdout, "http://%s/mcp\n", ln.Addr())
	if f, ok := s.stdout.(*os.File); ok {
		f.Sync()
	}
	fmt.Fprintf(s.stderr, "Clients must send the header \"Authorization: Bearer %s\" (also in %s, readable only by you).\n", token, tokenFile)
	s.log.Info("serving MCP over HTTP", "address", ln.Addr().String(), "tokenFile", tokenFile)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving MCP on %s: %w", addr, err)
	}
	return nil
}

// newServeToken makes the bearer token of one `gem mcp serve --http` and writes it to
// $GEM_HOME/mcp-serve/<port>.token (0600): any local user or process can reach a loopback
// port, and the tools run with this user's permissions.
func newServeToken(s *session, port int) (token, file string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = hex.EncodeToString(b)
	dir := s.env.ServeTokenDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	file = filepath.Join(dir, strconv.Itoa(port)+".token")
	return token, file, fsx.WriteFileAtomic(file, []byte(token+"\n"), 0o600)
}

// requireToken answers 401 to a request without the bearer token, and 403 to one whose
// Origin or Host is not a loopback name (a web page the user visits must not reach the
// tools through DNS rebinding or a cross-site request).
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if o := req.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !loopbackHost(u.Hostname()) {
				http.Error(w, "cross-origin requests are refused", http.StatusForbidden)
				return
			}
		}
		if host, _, err := net.SplitHostPort(req.Host); err != nil || !loopbackHost(host) {
			http.Error(w, "only loopback host names are served", http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(req.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gem"`)
			http.Error(w, "missing or wrong bearer token: send the token gem mcp serve printed", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, req)
	})
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
