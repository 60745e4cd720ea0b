package cli

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/kballard/go-shellquote"
	"github.com/urfave/cli/v2"

	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/mcpauth"
)

type mcpAuthOptions struct {
	Server string `arg:"<server>" help:"a remote MCP server's name"`
	Logout bool   `flag:"logout" usage:"forget the server's sign-in (its tokens) instead"`
	jsonOutput
}

func mcpAuthCommand(f *Factory) *cli.Command {
	cmd := verb(f, "auth", "sign in to a remote MCP server that uses OAuth (or out, with --logout)", mcpAuth,
		"gem mcp auth linear", "gem mcp auth linear --logout", "BROWSER=firefox gem mcp auth notion")
	cmd.Description = "gem finds how the server signs users in (its OAuth metadata), registers itself as a\n" +
		"client, and opens the sign-in page with $BROWSER (or xdg-open on a desktop); the page's URL\n" +
		"is printed too, to open by hand where there is no browser. The browser comes back to gem\n" +
		"on 127.0.0.1. The tokens are kept encrypted in $GEM_HOME/secrets, for that server at that\n" +
		"URL only, and refreshed before they expire; sessions (gem -p, the shell, tools call) use\n" +
		"them and never open a browser.\n\n" + cmd.Description
	return cmd
}

// mcpAuthResult is gem mcp auth --json's output.
type mcpAuthResult struct {
	Server    string `json:"server"`
	Extension string `json:"extension"`
	SignedIn  bool   `json:"signedIn"`
	Tools     int    `json:"tools,omitempty"`
	Expires   string `json:"expires,omitempty"`
}

func mcpAuth(ctx context.Context, s *session, o mcpAuthOptions) error {
	return withMCPServer(ctx, s, o.Server, func(srv *mcphost.Client) error {
		res := mcpAuthResult{Server: srv.Name, Extension: srv.Extension}
		if o.Logout {
			had, err := srv.SignOut()
			if err != nil {
				return err
			}
			return render(s, o.JSON, res, func() error {
				if !had {
					_, err := fmt.Fprintf(s.stdout, "gem was not signed in to %s of %s.\n", srv.Name, srv.Extension)
					return err
				}
				_, err := fmt.Fprintf(s.stdout, "Signed out of %s of %s: its tokens are deleted.\n", srv.Name, srv.Extension)
				return err
			})
		}
		rec, err := srv.SignIn(ctx, mcpauth.SignInOptions{Open: s.openPage(srv.Name), ClientIDURL: s.env.Getenv("GEM_MCP_CLIENT_ID_URL")})
		if err != nil {
			return err
		}
		if err := srv.Start(ctx); err != nil {
			return err
		}
		res.SignedIn, res.Tools = true, len(srv.Tools())
		if !rec.Token.Expiry.IsZero() {
			res.Expires = rec.Token.Expiry.Format("2006-01-02T15:04:05Z07:00")
		}
		return render(s, o.JSON, res, func() error {
			_, err := fmt.Fprintf(s.stdout, "Signed in to %s of %s: %d tools.\n", srv.Name, srv.Extension, res.Tools)
			return err
		})
	})
}

// openPage shows the user a sign-in page: its URL on stderr always, and the page in
// $BROWSER (a command line; %s stands for the URL, else it comes last), or xdg-open on a
// desktop. A browser that fails to start leaves the printed URL.
func (s *session) openPage(server string) func(context.Context, string) error {
	return func(ctx context.Context, page string) error {
		fmt.Fprintf(s.stderr, "Sign in to %s in your browser; if it does not open, open this URL:\n  %s\n", server, page)
		argv, err := browserCommand(s.env.Getenv("BROWSER"), s.env.Getenv("DISPLAY") != "" || s.env.Getenv("WAYLAND_DISPLAY") != "", page)
		if err != nil || argv == nil {
			return err
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = s.environ
		cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(s.stderr, "warning: cannot start the browser (%v): open the URL above.\n", err)
			return nil
		}
		go cmd.Wait()
		return nil
	}
}

// browserCommand is the command line that opens page: $BROWSER's, else xdg-open on a
// desktop, else none (the URL is printed).
func browserCommand(browser string, desktop bool, page string) ([]string, error) {
	if browser == "" {
		if desktop {
			return []string{"xdg-open", page}, nil
		}
		return nil, nil
	}
	argv, err := shellquote.Split(browser)
	if err != nil || len(argv) == 0 {
		return nil, fmt.Errorf("BROWSER=%q: not a command line: %v", browser, err)
	}
	for i, a := range argv {
		if strings.Contains(a, "%s") {
			argv[i] = strings.ReplaceAll(a, "%s", page)
			return argv, nil
		}
	}
	return append(argv, page), nil
}
