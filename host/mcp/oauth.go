package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/host/mcpauth"
)

// RedirectError is a remote server's redirect to another origin: refused, as it would take
// the server's headers and token there.
type RedirectError struct {
	Server   string
	From, To string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("mcp server %s redirected to another origin (%s, from %s): refused, it would take the server's headers and token along", e.Server, e.To, e.From)
}

// origin is a URL's scheme, host and port.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + u.Hostname() + ":" + port
}

func sameOrigin(server string, from, to *url.URL) error {
	if origin(from) != origin(to) {
		return &RedirectError{Server: server, From: origin(from), To: origin(to)}
	}
	return nil
}

// usesOAuth reports whether gem signs in to the server: a remote server with a sign-in
// store, whose manifest neither sends its own Authorization header (a token from a
// setting) nor turns OAuth off.
func (s *Client) usesOAuth() bool {
	if s.Auth == nil || s.Transport == Stdio {
		return false
	}
	for _, kv := range s.Server.Headers {
		if http.CanonicalHeaderKey(kv.Key) == "Authorization" {
			return false
		}
	}
	cfg, err := mcpauth.ParseConfig(s.Server.OAuth)
	return err != nil || !cfg.Disabled() // a field gem cannot use is told at sign-in

}

// authorize gives a remote transport the server's sign-in (its token, refreshed; a 401
// answered by NeedsSignInError until there is one).
func (s *Client) authorize(t sdk.Transport) error {
	if !s.usesOAuth() {
		return nil
	}
	sess, err := mcpauth.NewSession(*s.Auth, s.Extension, s.Name, s.endpoint(), s.LocalAllowed)
	if err != nil {
		return err
	}
	switch t := t.(type) {
	case *sdk.StreamableClientTransport:
		t.OAuthHandler = sess
	case *sdk.SSEClientTransport:
		base := t.HTTPClient.Transport
		t.HTTPClient.Transport = sessionTransport{sess, base}
	}
	return nil
}

type sessionTransport struct {
	sess *mcpauth.Session
	base http.RoundTripper
}

func (t sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.sess.RoundTrip(t.base, r)
}

// OAuthFieldError is a server's oauth field gem cannot use (a bad value, an endpoint it may
// not reach), with the file that declares it.
type OAuthFieldError struct {
	File, Server, Extension string
	Err                     error
}

func (e *OAuthFieldError) Error() string {
	return fmt.Sprintf("%s: mcpServers.%s.%v", e.File, e.Server, e.Err)
}

func (e *OAuthFieldError) Unwrap() error { return e.Err }

// SignInError is a server gem cannot sign in to by its nature.
type SignInError struct {
	Server, Extension, Reason string
}

func (e *SignInError) Error() string {
	return fmt.Sprintf("mcp server %s of %s: %s", e.Server, e.Extension, e.Reason)
}

// SignIn signs gem in to the server (the browser flow) and stops it, so the next request
// starts it with the new token.
func (s *Client) SignIn(ctx context.Context, o mcpauth.SignInOptions) (*mcpauth.Record, error) {
	switch {
	case s.Transport == Stdio:
		return nil, &SignInError{s.Name, s.Extension, "a local (stdio) server: there is nothing to sign in to"}
	case s.Auth == nil:
		return nil, &SignInError{s.Name, s.Extension, "sign-ins are not kept here"}
	case !s.usesOAuth():
		return nil, &SignInError{s.Name, s.Extension, "its manifest sends its own Authorization header, or turns OAuth off"}
	}
	if err := s.checkEndpoint(ctx); err != nil {
		return nil, err
	}
	srv := mcpauth.Server{Extension: s.Extension, Name: s.Name, URL: s.endpoint(), SSE: s.Transport == SSE,
		OAuth: s.Server.OAuth, Local: s.LocalAllowed, HTTP: s.httpClient()}
	rec, err := mcpauth.SignIn(ctx, srv, *s.Auth, o)
	var ce *mcpauth.ConfigError
	var ee *mcpauth.EndpointError
	switch {
	case errors.As(err, &ce):
		return nil, &OAuthFieldError{File: s.Source, Server: s.Name, Extension: s.Extension, Err: ce}
	case errors.As(err, &ee):
		return nil, &OAuthFieldError{File: s.Source, Server: s.Name, Extension: s.Extension, Err: ee}
	}
	if err != nil {
		return nil, err
	}
	s.startMu.Lock()
	s.mu.Lock()
	s.stopLocked()
	s.state, s.err = Stopped, nil
	s.backoff.Succeeded()
	s.mu.Unlock()
	s.startMu.Unlock()
	return rec, nil
}

// SignOut forgets the server's sign-ins and reports whether there was one.
func (s *Client) SignOut() (bool, error) {
	if s.Auth == nil {
		return false, nil
	}
	return s.Auth.Delete(s.Extension, s.Name)
}
