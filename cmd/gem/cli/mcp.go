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
	"github.com/gemhost/gem/registry"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "the MCP servers extensions declare, and gem as an MCP server",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "start every MCP server of the enabled extensions and show its state and tools",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
				Action: func(c *cli.Context) error {
					r, reg, err := openMCPRegistry(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					reg.StartMCP(c.Context) // failures are shown per server below
					type row struct {
						Name      string `json:"name"`
						Extension string `json:"extension"`
						Transport string `json:"transport"`
						Endpoint  string `json:"endpoint"`
						State     string `json:"state"`
						Tools     int    `json:"tools"`
						Error     string `json:"error,omitempty"`
					}
					rows := []row{}
					failed := 0
					for _, s := range reg.Servers() {
						x := row{s.Name, s.Extension, s.Transport, s.Endpoint, s.State, s.Tools, ""}
						if s.Error != nil {
							x.Error = s.Error.Error()
							failed++
						}
						rows = append(rows, x)
					}
					if c.Bool("json") {
						if err := printJSON(r, rows); err != nil {
							return err
						}
					} else if len(rows) == 0 {
						fmt.Fprintln(r.stdout, "no MCP servers: no enabled extension declares mcpServers")
					} else {
						var table [][]string
						for _, x := range rows {
							msg, _, _ := strings.Cut(x.Error, "\n")
							table = append(table, []string{x.Name, x.Extension, x.Transport, x.State, strconv.Itoa(x.Tools), msg})
						}
						if err := printTable(r.stdout, []string{"SERVER", "EXTENSION", "TRANSPORT", "STATE", "TOOLS", "ERROR"}, table); err != nil {
							return err
						}
					}
					if failed > 0 {
						msg := fmt.Sprintf("%d of %d MCP servers failed", failed, len(rows))
						if !c.Bool("json") {
							msg += " (gem mcp list --json has each whole error, with the server's last stderr lines)"
						}
						return exitError{code: 1, msg: msg}
					}
					return nil
				},
			},
			{
				Name:      "tools",
				Usage:     "list the tools of one MCP server, as gem names them",
				ArgsUsage: "<server>",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
				Action: func(c *cli.Context) error {
					if err := exactArgs(c, 1, "a server name"); err != nil {
						return err
					}
					r, reg, err := openMCPRegistry(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					list, err := reg.ServerTools(c.Context, c.Args().First())
					if err != nil {
						return err
					}
					type row struct {
						Name        string `json:"name"`
						Declared    string `json:"declared"`
						Kind        string `json:"kind"`
						Description string `json:"description"`
					}
					rows, table := []row{}, [][]string{}
					for _, t := range list {
						rows = append(rows, row{t.Name, t.Declared, t.Kind(), t.Spec.Description})
						table = append(table, []string{t.Name, t.Declared, t.Kind(), t.Spec.Description})
					}
					if c.Bool("json") {
						return printJSON(r, rows)
					}
					return printTable(r.stdout, []string{"TOOL", "DECLARED", "KIND", "DESCRIPTION"}, table)
				},
			},
			{
				Name:      "resources",
				Usage:     "list an MCP server's resources and resource templates",
				ArgsUsage: "<server>",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
				Action: func(c *cli.Context) error {
					if err := exactArgs(c, 1, "a server name"); err != nil {
						return err
					}
					r, reg, srv, err := mcpServerArg(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					list, err := srv.Resources(c.Context)
					if err != nil {
						return err
					}
					if c.Bool("json") {
						if list == nil {
							list = []mcphost.Resource{}
						}
						return printJSON(r, list)
					}
					var table [][]string
					for _, x := range list {
						table = append(table, []string{x.URI, x.Name, x.Description})
					}
					return printTable(r.stdout, []string{"URI", "NAME", "DESCRIPTION"}, table)
				},
			},
			{
				Name:      "read",
				Usage:     "print a resource of an MCP server",
				ArgsUsage: "<server> <uri>",
				Action: func(c *cli.Context) error {
					if err := exactArgs(c, 2, "a server name and a resource URI"); err != nil {
						return err
					}
					r, reg, srv, err := mcpServerArg(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					text, err := srv.ReadResource(c.Context, c.Args().Get(1))
					if err != nil {
						return err
					}
					fmt.Fprint(r.stdout, text)
					if !strings.HasSuffix(text, "\n") {
						fmt.Fprintln(r.stdout)
					}
					return nil
				},
			},
			{
				Name:  "serve",
				Usage: "serve every enabled tool (plugins and MCP servers) over MCP: stdio, or streamable HTTP with --http",
				Description: "Over stdio (the default) an MCP host starts `gem mcp serve` itself; stdout carries the\n" +
					"protocol and warnings go to stderr. With --http 127.0.0.1:PORT gem serves streamable HTTP\n" +
					"at http://127.0.0.1:PORT/mcp and prints that URL on stdout (PORT 0 picks a free one).\n" +
					"Only loopback addresses are served, and only to clients that send the bearer token gem\n" +
					"prints on stderr and writes to $GEM_HOME/mcp-serve/PORT.token (0600): tools run with your\n" +
					"permissions, and any local user can reach a loopback port.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on this loopback address (host:port)"},
					&cli.DurationFlag{Name: "timeout", Usage: "per-call time limit (default 10m)"},
					&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve confirmations when the client cannot be asked (no elicitation)"},
					approvalModeFlag,
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 0 {
						return usagef("mcp serve takes no arguments")
					}
					r, err := newRuntime(c)
					if err != nil {
						return err
					}
					addr := c.String("http")
					if addr != "" {
						if err := loopbackOnly(addr); err != nil {
							return err
						}
					}
					reg, err := openRegistry(c, r, &tools.Services{Logger: r.log})
					if err != nil {
						return err
					}
					defer reg.Close()
					startMCP(c, r, reg)
					server := mcpserve.New(reg, mcpserve.Options{Approve: c.Bool("yes"), Logger: r.log})
					if addr == "" {
						err := server.Run(c.Context, &sdk.StdioTransport{})
						if err != nil && !errors.Is(err, context.Canceled) {
							return fmt.Errorf("serving MCP on stdio: %w", err)
						}
						return nil
					}
					return serveHTTP(c.Context, r, addr, server)
				},
			},
		},
	}
}

// openMCPRegistry opens the session's registry for the mcp verbs (no host services: they
// call no tools).
func openMCPRegistry(c *cli.Context) (*runtime, *tools.Registry, error) {
	r, err := newRuntime(c)
	if err != nil {
		return nil, nil, err
	}
	reg, err := openRegistry(c, r, nil)
	return r, reg, err
}

// mcpServerArg opens the session's registry and finds the server named by the first argument.
func mcpServerArg(c *cli.Context) (*runtime, *tools.Registry, *mcphost.Server, error) {
	r, reg, err := openMCPRegistry(c)
	if err != nil {
		return nil, nil, nil, err
	}
	srv, err := reg.MCPServerByName(c.Args().First())
	if err != nil {
		reg.Close()
		return nil, nil, nil, err
	}
	return r, reg, srv, nil
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

func serveHTTP(ctx context.Context, r *runtime, addr string, server *sdk.Server) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (is the port taken?)", addr, err)
	}
	token, tokenFile, err := newServeToken(r, ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		ln.Close()
		return err
	}
	defer os.Remove(tokenFile)
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(token, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(r.stdout, "http://%s/mcp\n", ln.Addr())
	if f, ok := r.stdout.(*os.File); ok {
		f.Sync()
	}
	fmt.Fprintf(r.stderr, "Clients must send the header \"Authorization: Bearer %s\" (also in %s, readable only by you).\n", token, tokenFile)
	r.log.Info("serving MCP over HTTP", "address", ln.Addr().String(), "tokenFile", tokenFile)
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
func newServeToken(r *runtime, port int) (token, file string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = hex.EncodeToString(b)
	dir := r.env.ServeTokenDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	file = filepath.Join(dir, strconv.Itoa(port)+".token")
	return token, file, registry.WriteFileAtomic(file, []byte(token+"\n"), 0o600)
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
