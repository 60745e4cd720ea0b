package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/netaddr"
)

// AddressError is an OAuth request (metadata, registration, token, the sign-in page) to an
// address of this machine or the local network, for a server that is not there itself:
// refused before connecting. Link-local addresses (a cloud's metadata service) are refused
// for every server.
type AddressError struct {
	URL, Host string
	LinkLocal bool
}

func (e *AddressError) Error() string {
	if e.LinkLocal {
		return fmt.Sprintf("refused to reach %s: %s is a link-local address (a cloud's metadata service), never an authorization server", e.URL, e.Host)
	}
	return fmt.Sprintf("refused to reach %s: %s is an address of this machine or the local network, and the MCP server is not", e.URL, e.Host)
}

// guard is the address rule of a server's OAuth requests (netaddr's OAuth purposes): public
// addresses always, the others only for a server that is local itself, link-local ones (a
// cloud's metadata service) never.
func guard(local bool) netaddr.Guard {
	p := netaddr.OAuth
	if local {
		p = netaddr.OAuthLocal
	}
	return netaddr.Guard{Purpose: p, ViaProxy: proxied, Refuse: func(e *netaddr.RefusedError) error {
		return &AddressError{URL: e.Host, Host: e.Host, LinkLocal: e.Class == netaddr.ClassLinkLocal}
	}}
}

// checkURL refuses raw when its host is, or resolves to, an address gem may not reach.
func checkURL(ctx context.Context, local bool, raw string) error {
	err := guard(local).CheckURL(ctx, raw)
	var ae *AddressError
	if errors.As(err, &ae) {
		ae.URL = raw
	}
	return err
}

// guardedClient is the HTTP client of a server's OAuth requests: each is checked before it
// is sent (its host resolved) and again when it connects (a name that resolves elsewhere the
// second time). It has taken over dialing, so the SDK's own discovery client uses it as is.
// With audiences, its token requests carry them (audienceTransport).
func guardedClient(local bool, audiences []string) *http.Client {
	var t http.RoundTripper = checkedTransport{local: local, base: guard(local).Transport()}
	if len(audiences) > 0 {
		t = audienceTransport{audience: strings.Join(audiences, " "), base: t}
	}
	return &http.Client{Transport: t, Timeout: 60 * time.Second}
}

// proxied reports whether the environment names a proxy for https requests.
func proxied() bool {
	u, err := http.ProxyFromEnvironment(&http.Request{URL: &url.URL{Scheme: "https", Host: "example.com"}})
	return err == nil && u != nil
}

type checkedTransport struct {
	local bool
	base  http.RoundTripper
}

func (c checkedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := checkURL(r.Context(), c.local, r.URL.String()); err != nil {
		return nil, err
	}
	return c.base.RoundTrip(r)
}
