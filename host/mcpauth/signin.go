package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Server is a remote MCP server as sign-in sees it.
type Server struct {
	Extension, Name string
	URL             string          // the MCP endpoint: the resource its tokens are for
	SSE             bool            // the SSE transport (else streamable HTTP)
	OAuth           json.RawMessage // the manifest's oauth field
	// Local: the server is on this machine or the local network and its extension may reach
	// those: its OAuth requests may go there too.
	Local bool
	// HTTP reaches the server itself (the host's client: its headers, its address checks).
	HTTP *http.Client
}

// SignInOptions are what a sign-in needs from its caller.
type SignInOptions struct {
	// Open shows the user the authorization page (a browser, the URL printed).
	Open func(ctx context.Context, pageURL string) error
	// ClientIDURL is gem's client ID metadata document (https), used when the authorization
	// server accepts those; "" uses dynamic registration (or the manifest's clientId).
	ClientIDURL string
	// Timeout bounds the wait for the browser (default 5 minutes).
	Timeout time.Duration
}

// NoSignInError is a server that answered without asking for a sign-in.
type NoSignInError struct {
	Server string
	Status int
}

func (e *NoSignInError) Error() string {
	return fmt.Sprintf("mcp server %s does not ask for a sign-in (it answered %d %s without one)", e.Server, e.Status, http.StatusText(e.Status))
}

// SignInError is a sign-in that did not complete.
type SignInError struct {
	Server string
	Err    error
}

func (e *SignInError) Error() string {
	return fmt.Sprintf("signing in to mcp server %s: %v", e.Server, e.Err)
}
func (e *SignInError) Unwrap() error { return e.Err }

// SignIn signs gem in to srv (the browser flow) and keeps the token in store.
func SignIn(ctx context.Context, srv Server, store Store, o SignInOptions) (*Record, error) {
	cfg, err := ParseConfig(srv.OAuth)
	if err != nil {
		return nil, err
	}
	if cfg.Disabled() {
		return nil, &ConfigError{Field: "enabled", Value: "false", Problem: "the manifest turns OAuth off for this server"}
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, resp, err := probe(ctx, srv)
	if err != nil {
		return nil, &SignInError{srv.Name, err}
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		resp.Body.Close()
		return nil, &NoSignInError{srv.Name, resp.StatusCode}
	}
	var rec *Record
	if cfg.Configured() {
		resp.Body.Close()
		rec, err = authorizeConfigured(ctx, srv, cfg, o)
	} else {
		rec, err = authorize(ctx, srv, cfg, o, req, resp)
	}
	if err != nil {
		return nil, &SignInError{srv.Name, err}
	}
	if err := store.Save(srv.Extension, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// probe asks the server for what it serves without a token: the 401 it answers names its
// protected resource metadata (WWW-Authenticate).
func probe(ctx context.Context, srv Server) (*http.Request, *http.Response, error) {
	method, body := http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"gem","version":"0"}}}`
	if srv.SSE {
		method, body = http.MethodGet, ""
	}
	req, err := http.NewRequestWithContext(ctx, method, srv.URL, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if !srv.SSE {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.HTTP.Do(req)
	return req, resp, err
}

// authorize runs the SDK's authorization code flow on the server's 401 and returns the
// record of what it obtained.
func authorize(ctx context.Context, srv Server, cfg Config, o SignInOptions, req *http.Request, resp *http.Response) (*Record, error) {
	rcv, err := listen(cfg.RedirectURI, srv.Name)
	if err != nil {
		return nil, err
	}
	defer rcv.close()
	var got *Record
	hc := handlerConfig(srv, cfg, o, rcv)
	hc.NewTokenSource = func(tctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
		got = &Record{Server: srv.Name, Resource: srv.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
			AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle,
			Scopes: c.Scopes, Audiences: cfg.Audiences, Token: tok, SignedIn: time.Now().UTC()}
		return c.TokenSource(tctx, tok), nil
	}
	h, err := auth.NewAuthorizationCodeHandler(hc)
	if err != nil {
		return nil, err
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		if rcv.err != nil {
			return nil, rcv.err
		}
		return nil, err
	}
	if got == nil {
		return nil, errors.New("the authorization server sent no token")
	}
	return got, nil
}

// handlerConfig is the SDK handler's configuration for srv: how gem is registered as a
// client (a metadata document, the manifest's client, dynamic registration), the redirect,
// the scopes, the guarded HTTP client.
func handlerConfig(srv Server, cfg Config, o SignInOptions, rcv *receiver) *auth.AuthorizationCodeHandlerConfig {
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              rcv.redirect,
		AuthorizationCodeFetcher: rcv.fetcher(srv, o.Open, cfg.Audiences),
		RequestRefreshToken:      true,
		AcceptUnadvertisedIss:    true,
		Client:                   guardedClient(srv.Local, cfg.Audiences),
	}
	if o.ClientIDURL != "" {
		hc.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientIDURL}
	}
	if cfg.ClientID != "" {
		hc.PreregisteredClient = &oauthex.ClientCredentials{ClientID: cfg.ClientID, Issuer: cfg.Issuer}
		if cfg.ClientSecret != "" {
			hc.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: cfg.ClientSecret}
		}
	} else {
		hc.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: registrationMetadata(rcv.redirect)}
	}
	if len(cfg.Scopes) > 0 {
		scopes := cfg.Scopes
		hc.ScopeFilter = func([]string) []string { return scopes }
	}
	return hc
}

// receiver is the loopback server the browser comes back to.
type receiver struct {
	redirect string
	path     string
	srv      *http.Server
	results  chan callback
	state    atomic.Value // the state of the request under way, set before the page opens
	err      error        // why the sign-in ended, when the redirect said so
}

type callback struct {
	res *auth.AuthorizationResult
	err error
}

// listen opens the loopback redirect: the manifest's redirectUri, or a free port of
// 127.0.0.1 at /oauth/callback.
func listen(redirectURI, server string) (*receiver, error) {
	addr, path := "127.0.0.1:0", defaultCallbackPath
	if redirectURI != "" {
		u, err := redirectAddr(redirectURI)
		if err != nil {
			return nil, err
		}
		addr, path = u.Host, u.Path
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot receive the sign-in redirect on %s: %w", addr, err)
	}
	r := &receiver{path: path, results: make(chan callback, 1)}
	r.redirect = redirectURI
	if r.redirect == "" {
		r.redirect = "http://" + ln.Addr().String() + path
	}
	mux := http.NewServeMux()
	mux.HandleFunc(path, r.serve(server))
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *receiver) close() { r.srv.Close() }

// serve answers the browser's return: the code and state go to the flow, which refuses a
// state it did not send; the page says what happened.
func (r *receiver) serve(server string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		var cb callback
		switch {
		case q.Get("error") != "":
			cb.err = fmt.Errorf("the authorization server refused: %s %s", q.Get("error"), q.Get("error_description"))
		case q.Get("code") == "":
			http.Error(w, "no authorization code in this redirect", http.StatusBadRequest)
			return
		case q.Get("state") != r.state.Load():
			cb.err = StateError{}
		default:
			cb.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		}
		select {
		case r.results <- cb:
		default:
			http.Error(w, "this sign-in is already answered", http.StatusConflict)
			return
		}
		if cb.err != nil {
			http.Error(w, "Sign-in to "+server+" failed: "+cb.err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "gem received the answer for MCP server %s: you can close this page.\n", server)
	}
}

// StateError is a redirect whose state is not the one gem sent: not the answer to this
// sign-in (a forged or replayed redirect).
type StateError struct{}

func (StateError) Error() string {
	return "the redirect's state does not match the sign-in gem started (a forged or stale redirect): refused"
}

// fetcher opens the authorization page (after checking where it is; with the manifest's
// audiences) and waits for the browser to come back.
func (r *receiver) fetcher(srv Server, open func(context.Context, string) error, audiences []string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		pageURL := withAudience(args.URL, audiences)
		page, err := url.Parse(pageURL)
		if err != nil {
			return nil, err
		}
		if page.Scheme != "https" && page.Scheme != "http" {
			return nil, fmt.Errorf("the authorization page %q is not a web page", args.URL)
		}
		if err := checkURL(ctx, srv.Local, pageURL); err != nil {
			return nil, err
		}
		r.state.Store(page.Query().Get("state"))
		if err := open(ctx, pageURL); err != nil {
			return nil, err
		}
		select {
		case cb := <-r.results:
			if cb.err != nil {
				r.err = cb.err
				return nil, cb.err
			}
			return cb.res, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("no answer from the browser: %w", ctx.Err())
		}
	}
}
