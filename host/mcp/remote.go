package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/gemhost/gem/internal/netaddr"
	"github.com/gemhost/gem/manifest"
)

// guard is the address rule of the server's connections: public addresses only, unless
// the extension has the network capability.
func (s *Client) guard() netaddr.Guard {
	p := netaddr.MCPServer
	if s.LocalAllowed {
		p = netaddr.MCPServerLocal
	}
	return netaddr.Guard{Purpose: p, ViaProxy: s.viaProxy, Refuse: func(e *netaddr.RefusedError) error {
		return &LocalEndpointError{Server: s.Name, Extension: s.Extension, Host: e.Host}
	}}
}

// httpClient sends the declared headers with every request.
func (s *Client) httpClient() *http.Client {
	var base http.RoundTripper = s.guard().Transport()
	c := &http.Client{Transport: base}
	if len(s.Server.Headers) > 0 {
		c.Transport = headerTransport{headers: s.Server.Headers, base: base}
	}
	// A redirect stays on the server's origin (it would take the headers and the token
	// along), and goes to a host checked like the endpoint (a proxy would follow it anywhere).
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		if err := sameOrigin(s.Name, via[0].URL, r.URL); err != nil {
			return err
		}
		if s.LocalAllowed {
			return nil
		}
		return s.checkHost(r.Context(), r.URL.Hostname())
	}
	return c
}

// endpoint is a remote server's URL.
func (s *Client) endpoint() string {
	if s.Server.HTTPURL != "" {
		return s.Server.HTTPURL
	}
	return s.Server.URL
}

// viaProxy reports whether the user's proxy settings send the endpoint through a proxy.
func (s *Client) viaProxy() bool {
	u, err := url.Parse(s.endpoint())
	if err != nil {
		return false
	}
	p, err := http.ProxyFromEnvironment(&http.Request{URL: u})
	return err == nil && p != nil
}

// LocalEndpointError is a remote server on a loopback or private address, of an extension
// without the network capability.
type LocalEndpointError struct {
	Server, Extension, Host string
}

func (e *LocalEndpointError) Error() string {
	return fmt.Sprintf("mcp server %s of %s is at %s, a local or private address: reaching it needs the network capability, which %s does not have", e.Server, e.Extension, e.Host, e.Extension)
}

// checkEndpoint refuses a remote server whose host is (or resolves to) a non-public address
// when the extension may not reach those.
func (s *Client) checkEndpoint(ctx context.Context) error {
	if s.LocalAllowed {
		return nil
	}
	u, err := url.Parse(s.endpoint())
	if err != nil || u.Hostname() == "" {
		return nil // no host to reach: the transport says what is wrong with the URL
	}
	return s.checkHost(ctx, u.Hostname())
}

// checkHost refuses host when it is, or resolves to, an address the server may not reach.
func (s *Client) checkHost(ctx context.Context, host string) error {
	err := s.guard().Check(ctx, host)
	if err != nil && !errors.As(err, new(*LocalEndpointError)) {
		return fmt.Errorf("mcp server %s of %s: %w", s.Name, s.Extension, err)
	}
	return err
}

type headerTransport struct {
	headers []manifest.KV
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, kv := range h.headers {
		r.Header.Set(kv.Key, kv.Value)
	}
	return h.base.RoundTrip(r)
}
