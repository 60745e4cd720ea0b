// Package oauthserver is test support: a real OAuth 2.1 authorization server (the
// go-oauth2 library: authorization code with PKCE, refresh tokens; with its metadata and
// dynamic client registration) and MCP servers it protects (the official SDK's server
// behind its RequireBearerToken middleware), all on 127.0.0.1, and a scripted browser that
// goes through the consent to the client's loopback redirect.
package oauthserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/generates"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/go-oauth2/oauth2/v4/store"
)

// AuthServer is an authorization server on 127.0.0.1.
type AuthServer struct {
	URL     string
	manager *manage.Manager
	server  *server.Server
	clients *store.ClientStore
	http    *http.Server

	mu        sync.Mutex
	redirects map[string][]string // a client's first redirect URI → all it registered
	lastErr   error

	// plain: no metadata and no dynamic registration (a server whose clients are given
	// its endpoints and a client ID); SetPlain.
	plain atomic.Bool
	// loopbackClients are the pre-registered clients, whose redirect may be on any port of
	// a loopback address (RFC 8252 7.3) at the registered path.
	loopbackClients  map[string]bool
	authorizeQueries []url.Values // the authorization requests received
	tokenForms       []url.Values // the token requests received

	Registrations atomic.Int32 // dynamic registrations
	Codes         atomic.Int32 // authorization codes exchanged
	Refreshes     atomic.Int32 // refresh grants
	Hits          atomic.Int32 // requests of any kind
}

// NewAuthServer starts an authorization server whose access tokens live ttl.
func NewAuthServer(ttl time.Duration) (*AuthServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &AuthServer{URL: "http://" + ln.Addr().String(), manager: manage.NewDefaultManager(), clients: store.NewClientStore(), redirects: map[string][]string{}, loopbackClients: map[string]bool{}}
	a.manager.SetAuthorizeCodeTokenCfg(&manage.Config{AccessTokenExp: ttl, RefreshTokenExp: 24 * time.Hour, IsGenerateRefresh: true})
	a.manager.SetRefreshTokenCfg(&manage.RefreshingConfig{AccessTokenExp: ttl, IsGenerateRefresh: true, IsRemoveAccess: true, IsRemoveRefreshing: true})
	a.manager.MustTokenStorage(store.NewMemoryTokenStore())
	a.manager.MapAccessGenerate(generates.NewAccessGenerate())
	a.manager.MapClientStorage(a.clients)
	a.manager.SetValidateURIHandler(a.validRedirect)
	cfg := server.NewConfig()
	cfg.ForcePKCE = true
	cfg.AllowedCodeChallengeMethods = []oauth2.CodeChallengeMethod{oauth2.CodeChallengeS256}
	a.server = server.NewServer(cfg, a.manager)
	a.server.SetAllowedGrantType(oauth2.AuthorizationCode, oauth2.Refreshing)
	a.server.SetClientInfoHandler(server.ClientFormHandler)
	a.server.SetInternalErrorHandler(func(err error) *errors.Response {
		a.mu.Lock()
		a.lastErr = err
		a.mu.Unlock()
		return nil
	})
	// The consent: the scripted user agrees at once.
	a.server.SetUserAuthorizationHandler(func(http.ResponseWriter, *http.Request) (string, error) { return "alice", nil })
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", a.unlessPlain(a.metadata))
	mux.HandleFunc("/register", a.unlessPlain(a.register))
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.authorizeQueries = append(a.authorizeQueries, r.URL.Query())
		a.mu.Unlock()
		if err := a.server.HandleAuthorizeRequest(w, r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		a.tokenForms = append(a.tokenForms, r.PostForm)
		a.mu.Unlock()
		switch r.FormValue("grant_type") {
		case "refresh_token":
			a.Refreshes.Add(1)
		case "authorization_code":
			a.Codes.Add(1)
		}
		a.server.HandleTokenRequest(w, r)
	})
	a.http = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.Hits.Add(1)
		mux.ServeHTTP(w, r)
	})}
	go a.http.Serve(ln)
	return a, nil
}

// Close stops the server.
func (a *AuthServer) Close() { a.http.Close() }

// validRedirect accepts only a redirect URI the client registered (its "domain", the first
// of them), exactly; for a pre-registered client, on any port of the loopback address.
func (a *AuthServer) validRedirect(registered, redirect string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.loopbackClients[registered] {
		r, err1 := url.Parse(registered)
		u, err2 := url.Parse(redirect)
		if err1 == nil && err2 == nil && u.Scheme == r.Scheme && u.Hostname() == r.Hostname() && u.Path == r.Path {
			return nil
		}
		return errors.ErrInvalidRedirectURI
	}
	for _, u := range a.redirects[registered] {
		if u == redirect {
			return nil
		}
	}
	return errors.ErrInvalidRedirectURI
}

// SetPlain makes the server offer no metadata and no dynamic registration: its clients are
// given its endpoints and a client ID (AddClient).
func (a *AuthServer) SetPlain() { a.plain.Store(true) }

func (a *AuthServer) unlessPlain(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.plain.Load() {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}
}

// AddClient registers a client (confidential when secret is given) whose redirect is
// redirect on any port of its loopback address.
func (a *AuthServer) AddClient(id, secret, redirect string) {
	a.clients.Set(id, &models.Client{ID: id, Secret: secret, Domain: redirect, Public: secret == ""})
	a.mu.Lock()
	a.loopbackClients[redirect] = true
	a.mu.Unlock()
}

// AuthorizeQueries are the authorization requests received so far.
func (a *AuthServer) AuthorizeQueries() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.Values(nil), a.authorizeQueries...)
}

// TokenForms are the token requests received so far.
func (a *AuthServer) TokenForms() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.Values(nil), a.tokenForms...)
}

func (a *AuthServer) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                a.URL,
		"authorization_endpoint":                a.URL + "/authorize",
		"token_endpoint":                        a.URL + "/token",
		"registration_endpoint":                 a.URL + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"mcp", "offline_access"},
	})
}

// register is dynamic client registration (RFC 7591) of a public client.
func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := rand.Text()
	// go-oauth2 checks a redirect against the client's domain; validRedirect checks it
	// against the registered URIs.
	a.clients.Set(id, &models.Client{ID: id, Domain: req.RedirectURIs[0], Public: true})
	a.mu.Lock()
	a.redirects[req.RedirectURIs[0]] = req.RedirectURIs
	a.mu.Unlock()
	a.Registrations.Add(1)
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_name": req.ClientName, "redirect_uris": req.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
	})
}

// Verify reports whether token is a live access token, and when it expires.
func (a *AuthServer) Verify(ctx context.Context, token string) (created time.Time, expires time.Time, err error) {
	ti, err := a.manager.LoadAccessToken(ctx, token)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	return ti.GetAccessCreateAt(), ti.GetAccessCreateAt().Add(ti.GetAccessExpiresIn()), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// String describes the server's counters, for test failures.
func (a *AuthServer) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return fmt.Sprintf("registrations %d, codes %d, refreshes %d, last internal error %v", a.Registrations.Load(), a.Codes.Load(), a.Refreshes.Load(), a.lastErr)
}
