package mcpauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// EndpointError is an endpoint the manifest names that gem may not reach (a private or
// link-local address for a server that is not there itself).
type EndpointError struct {
	Field, URL string
	Err        error
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("oauth.%s %q: %v", e.Field, e.URL, e.Err)
}

func (e *EndpointError) Unwrap() error { return e.Err }

// checkEndpoints refuses, before anything is sent, a configured endpoint gem may not reach.
func checkEndpoints(ctx context.Context, srv Server, cfg Config) error {
	for _, f := range []struct{ field, url string }{{"authorizationUrl", cfg.AuthorizationURL}, {"tokenUrl", cfg.TokenURL}, {"registrationUrl", cfg.RegistrationURL}} {
		if f.url == "" {
			continue
		}
		if err := checkURL(ctx, srv.Local, f.url); err != nil {
			return &EndpointError{f.field, f.url, err}
		}
	}
	return nil
}

// authorizeConfigured is the authorization code flow (PKCE, golang.org/x/oauth2) on the
// endpoints the manifest names, as Gemini CLI runs it when authorizationUrl is set: no
// discovery; the manifest's clientId, else a dynamic registration at registrationUrl (the
// SDK's oauthex.RegisterClient).
func authorizeConfigured(ctx context.Context, srv Server, cfg Config, o SignInOptions) (*Record, error) {
	if err := checkEndpoints(ctx, srv, cfg); err != nil {
		return nil, err
	}
	rcv, err := listen(cfg.RedirectURI, srv.Name)
	if err != nil {
		return nil, err
	}
	defer rcv.close()
	client := guardedClient(srv.Local, cfg.Audiences)
	conf := &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: rcv.redirect, Scopes: cfg.Scopes,
		// The client's credentials in the form, as Gemini CLI sends them.
		Endpoint: oauth2.Endpoint{AuthURL: cfg.AuthorizationURL, TokenURL: cfg.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	if conf.ClientID == "" {
		if cfg.RegistrationURL == "" {
			return nil, &ConfigError{Field: "clientId", Value: "", Problem: "is required with authorizationUrl and tokenUrl (gem discovers nothing then): give the client registered for gem, or registrationUrl for a dynamic registration"}
		}
		reg, err := oauthex.RegisterClient(ctx, cfg.RegistrationURL, registrationMetadata(rcv.redirect), client)
		if err != nil {
			return nil, fmt.Errorf("registering at oauth.registrationUrl %s: %w", cfg.RegistrationURL, err)
		}
		conf.ClientID, conf.ClientSecret = reg.ClientID, reg.ClientSecret
	}
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	res, err := rcv.fetcher(srv, o.Open, cfg.Audiences)(ctx, &auth.AuthorizationArgs{URL: conf.AuthCodeURL(state,
		oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", srv.URL))})
	if err != nil {
		return nil, err
	}
	if res.State != state {
		return nil, StateError{}
	}
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), res.Code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", srv.URL))
	if err != nil {
		return nil, fmt.Errorf("token exchange at oauth.tokenUrl %s: %w", cfg.TokenURL, err)
	}
	return &Record{Server: srv.Name, Resource: srv.URL, ClientID: conf.ClientID, ClientSecret: conf.ClientSecret,
		AuthURL: conf.Endpoint.AuthURL, TokenURL: conf.Endpoint.TokenURL, AuthStyle: conf.Endpoint.AuthStyle, Scopes: conf.Scopes, Audiences: cfg.Audiences,
		Token: tok, SignedIn: time.Now().UTC()}, nil
}

// registrationMetadata is how gem registers itself as a public client with redirect.
func registrationMetadata(redirect string) *oauthex.ClientRegistrationMetadata {
	return &oauthex.ClientRegistrationMetadata{
		ClientName: "gem", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
	}
}

// withAudience adds the manifest's audiences to an authorization page URL as Gemini CLI
// sends them: one `audience` parameter, space-separated.
func withAudience(page string, audiences []string) string {
	if len(audiences) == 0 {
		return page
	}
	u, err := url.Parse(page)
	if err != nil {
		return page
	}
	q := u.Query()
	q.Set("audience", strings.Join(audiences, " "))
	u.RawQuery = q.Encode()
	return u.String()
}

// audienceTransport adds the audiences to token requests (the code exchange and every
// refresh), as Gemini CLI sends them.
type audienceTransport struct {
	audience string
	base     http.RoundTripper
}

func (t audienceTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.Body == nil {
		return t.base.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errors.New("a token request that is not a form")
	}
	if g := form.Get("grant_type"); (g == "authorization_code" || g == "refresh_token") && form.Get("audience") == "" {
		form.Set("audience", t.audience)
		body = []byte(form.Encode())
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(string(body))), nil }
	return t.base.RoundTrip(r)
}
