package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// NeedsSignInError is a server that asks for a sign-in gem cannot give in a session: none
// was made, or the server refused the token and refreshing it did not help.
type NeedsSignInError struct {
	Server, Extension string
	Reason            string
}

func (e *NeedsSignInError) Error() string {
	return fmt.Sprintf("mcp server %s of %s needs a sign-in: %s", e.Server, e.Extension, e.Reason)
}

// Session gives a server's requests the token of its sign-in, refreshing it before it
// expires and keeping each new one; it is the SDK transport's auth.OAuthHandler (and
// RoundTrip's, for SSE).
type Session struct {
	store     Store
	extension string
	server    string
	resource  string
	client    *http.Client

	mu      sync.Mutex
	rec     *Record
	ts      oauth2.TokenSource
	forced  string // the access token a forced refresh gave: refused again, no more refreshes
	saveErr error
}

var _ auth.OAuthHandler = (*Session)(nil)

// NewSession reads the sign-in of server of extension at resource (none yet is fine: the
// server's 401 then says that a sign-in is needed).
func NewSession(store Store, extension, server, resource string, local bool) (*Session, error) {
	rec, err := store.Load(extension, server, resource)
	if err != nil {
		return nil, err
	}
	s := &Session{store: store, extension: extension, server: server, resource: resource, client: guardedClient(local, nil), rec: rec}
	if rec != nil {
		s.client = guardedClient(local, rec.Audiences)
		s.ts = s.source(rec.Token)
	}
	return s, nil
}

// SignedIn reports whether the session has a token.
func (s *Session) SignedIn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec != nil
}

func (s *Session) source(tok *oauth2.Token) oauth2.TokenSource {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.client)
	return oauth2.ReuseTokenSource(tok, s.rec.config().TokenSource(ctx, tok))
}

// TokenSource returns the source of the session's tokens (nil before a sign-in).
func (s *Session) TokenSource(context.Context) (oauth2.TokenSource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ts == nil {
		return nil, nil
	}
	return keeping{s}, nil
}

// keeping is the session's token source that keeps every new token.
type keeping struct{ s *Session }

func (k keeping) Token() (*oauth2.Token, error) {
	s := k.s
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, err := s.ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, &NeedsSignInError{s.server, s.extension, "refreshing the token failed: " + re.Error()}
		}
		return nil, err
	}
	s.keep(tok)
	return tok, nil
}

// keep saves tok when it is new (locked).
func (s *Session) keep(tok *oauth2.Token) {
	if tok.AccessToken == s.rec.Token.AccessToken {
		return
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = s.rec.Token.RefreshToken // the server kept the refresh token
	}
	rec := *s.rec
	rec.Token = tok
	s.rec = &rec
	s.saveErr = s.store.Save(s.extension, &rec)
}

// Authorize answers the server's 401 (or 403) mid-session: once, by refreshing the token,
// after which the transport retries the request; never with a browser.
func (s *Session) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	resp.Body.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return &NeedsSignInError{s.server, s.extension, fmt.Sprintf("it answered %d and gem has not signed in to it", resp.StatusCode)}
	}
	if resp.StatusCode == http.StatusForbidden {
		return &NeedsSignInError{s.server, s.extension, "it refused the token (403 " + challenge(resp) + "): sign in again for the access it asks for"}
	}
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	if s.rec.Token.RefreshToken == "" || (s.forced != "" && sent == s.forced) {
		return &NeedsSignInError{s.server, s.extension, "it refused the stored token (" + challenge(resp) + ")"}
	}
	expired := *s.rec.Token
	expired.Expiry = time.Now().Add(-time.Hour)
	ctx = context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, s.client)
	tok, err := s.rec.config().TokenSource(ctx, &expired).Token()
	if err != nil {
		return &NeedsSignInError{s.server, s.extension, "it refused the stored token, and refreshing it failed: " + err.Error()}
	}
	s.keep(tok)
	s.forced = tok.AccessToken
	s.ts = s.source(s.rec.Token)
	return nil
}

// challenge is what the server's WWW-Authenticate says, for messages.
func challenge(resp *http.Response) string {
	if h := resp.Header.Get("WWW-Authenticate"); h != "" {
		return h
	}
	return resp.Status
}

// RoundTrip sends r with the session's token; a 401 is answered once (Authorize) and r sent
// again. It serves the SSE transport, which has no OAuth handler of its own.
func (s *Session) RoundTrip(base http.RoundTripper, r *http.Request) (*http.Response, error) {
	send := func() (*http.Request, *http.Response, error) {
		req := r.Clone(r.Context())
		if r.GetBody != nil {
			body, err := r.GetBody()
			if err != nil {
				return nil, nil, err
			}
			req.Body = body
		}
		ts, _ := s.TokenSource(r.Context())
		if ts != nil {
			tok, err := ts.Token()
			if err != nil {
				return nil, nil, err
			}
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
		resp, err := base.RoundTrip(req)
		return req, resp, err
	}
	req, resp, err := send()
	if err != nil || resp.StatusCode != http.StatusUnauthorized || (r.Body != nil && r.GetBody == nil) {
		return resp, err
	}
	if err := s.Authorize(r.Context(), req, resp); err != nil {
		return nil, err
	}
	_, resp, err = send()
	return resp, err
}
