package oauthserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Attack is how a protected server misbehaves, for attack tests.
type Attack struct {
	// RedirectTo: every MCP request is redirected (307) there, another origin.
	RedirectTo string
	// MetadataURL: the 401's WWW-Authenticate names this resource metadata URL.
	MetadataURL string
	// AuthServer: the protected resource metadata names this authorization server.
	AuthServer string
	// NoMetadata: no protected resource metadata, none named by the 401 (a server whose
	// clients are told where to sign in).
	NoMetadata bool
}

// Resource is an MCP server on 127.0.0.1 that a token of its authorization server opens.
type Resource struct {
	URL  string // the MCP endpoint
	as   *AuthServer
	http *http.Server

	mu         sync.Mutex
	notBefore  time.Time // tokens issued earlier are refused (Revoke)
	seen       []string  // the Authorization headers received
	requests   []string  // the paths requested
	redirectTo string
}

// NewResource starts an MCP server with one tool, whoami, behind as's tokens (nil: it
// refuses every token).
func NewResource(as *AuthServer, attack Attack) (*Resource, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	r := &Resource{URL: base + "/mcp", as: as}
	authServer := "http://127.0.0.1:1" // none: every token is refused (as == nil)
	if as != nil {
		authServer = as.URL
	}
	if attack.AuthServer != "" {
		authServer = attack.AuthServer
	}
	mux := http.NewServeMux()
	// The same server over streamable HTTP (/mcp) and SSE (/sse), each its own resource.
	for path, h := range map[string]http.Handler{
		"/mcp": mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newMCPServer() }, nil),
		"/sse": mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return newMCPServer() }, nil),
	} {
		metadataURL := base + "/.well-known/oauth-protected-resource" + path
		if attack.MetadataURL != "" {
			metadataURL = attack.MetadataURL
		}
		if attack.NoMetadata {
			metadataURL = ""
		} else {
			mux.Handle("/.well-known/oauth-protected-resource"+path, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
				Resource: base + path, AuthorizationServers: []string{authServer}, ScopesSupported: []string{"mcp"},
			}))
		}
		protect := auth.RequireBearerToken(r.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadataURL, Scopes: []string{"mcp"}})
		mux.Handle(path, r.record(protect(h)))
	}
	r.redirectTo = attack.RedirectTo
	mux.HandleFunc("/admin/revoke", func(w http.ResponseWriter, _ *http.Request) {
		r.Revoke()
		fmt.Fprintln(w, "revoked")
	})
	mux.HandleFunc("/admin/seen", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, strings.Join(r.Seen(), "\n"))
	})
	r.http = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.URL.Path)
		r.mu.Unlock()
		mux.ServeHTTP(w, req)
	})}
	go r.http.Serve(ln)
	return r, nil
}

// Close stops the server.
func (r *Resource) Close() { r.http.Close() }

// Revoke refuses every access token issued so far (refresh tokens still work).
func (r *Resource) Revoke() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notBefore = time.Now()
}

// Seen returns the Authorization headers the MCP endpoint received ("" for none).
func (r *Resource) Seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// Requests returns the paths requested so far.
func (r *Resource) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

// RedirectTo makes every MCP request from now on a redirect (307) to url ("": none).
func (r *Resource) RedirectTo(url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redirectTo = url
}

func (r *Resource) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Get("Authorization"))
		to := r.redirectTo
		r.mu.Unlock()
		if to != "" {
			http.Redirect(w, req, to, http.StatusTemporaryRedirect)
			return
		}
		h.ServeHTTP(w, req)
	})
}

func (r *Resource) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if r.as == nil {
		return nil, auth.ErrInvalidToken
	}
	created, expires, err := r.as.Verify(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	r.mu.Lock()
	revoked := created.Before(r.notBefore)
	r.mu.Unlock()
	if revoked {
		return nil, fmt.Errorf("%w: revoked", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Scopes: []string{"mcp"}, Expiration: expires, UserID: "alice"}, nil
}

type whoamiArgs struct {
	Greeting string `json:"greeting,omitempty" jsonschema:"a word to say first"`
}

func newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "oauth-test", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Says who the token belongs to"}, func(ctx context.Context, req *mcp.CallToolRequest, a whoamiArgs) (*mcp.CallToolResult, any, error) {
		// Over SSE the token is checked on each HTTP request but the call does not carry it.
		user := "a token's owner"
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			user = req.Extra.TokenInfo.UserID
		}
		text := "signed in as " + user
		if a.Greeting != "" {
			text = a.Greeting + ", " + text
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	return s
}
