package oauthserver

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Browse is the scripted user: it opens pageURL and follows the authorization server's
// consent to the client's redirect, and returns what the last page says. With tamper, the
// redirect back to the client carries another state (a forged redirect).
func Browse(ctx context.Context, pageURL string, tamper bool) (string, error) {
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if tamper && req.URL.Query().Get("state") != "" {
			q := req.URL.Query()
			q.Set("state", "forged-"+q.Get("state"))
			req.URL.RawQuery = q.Encode()
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body))), nil
}

// BrowserMain is the scripted browser as a program ($BROWSER): it browses its argument,
// prints the last page, and appends the URL it was given to log when set (the test
// binary's main passes $GEM_TEST_BROWSER_LOG); with tamper it forges the state of the
// redirect back.
func BrowserMain(args []string, log string, tamper bool, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: fake-browser URL")
		return 2
	}
	if log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, args[0])
			f.Close()
		}
	}
	page, err := Browse(context.Background(), args[0], tamper)
	if err != nil {
		fmt.Fprintln(stderr, "fake-browser:", err)
		return 1
	}
	fmt.Fprintln(stdout, page)
	return 0
}

// Main runs an authorization server and an MCP server it protects until killed, and
// prints the MCP server's URL (its /admin/revoke refuses the tokens issued so far, its
// /admin/seen lists the Authorization headers it received).
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("oauth-mcp", flag.ContinueOnError)
	ttl := fs.Duration("ttl", time.Hour, "how long access tokens live")
	redirect := fs.String("redirect-to", "", "attack: redirect every MCP request there")
	metadata := fs.String("metadata-url", "", "attack: the resource metadata URL the 401 names")
	authServer := fs.String("auth-server", "", "attack: the authorization server the metadata names")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	as, err := NewAuthServer(*ttl)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	r, err := NewResource(as, Attack{RedirectTo: *redirect, MetadataURL: *metadata, AuthServer: *authServer})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, r.URL)
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	select {}
}

// AdminURL is the URL of a resource's admin page (revoke, seen) for its MCP URL.
func AdminURL(mcpURL, page string) string {
	u, err := url.Parse(mcpURL)
	if err != nil {
		return ""
	}
	u.Path = "/admin/" + page
	return u.String()
}
