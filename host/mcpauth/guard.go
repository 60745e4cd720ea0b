package mcpauth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
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

func addressError(url, host string, a netip.Addr) *AddressError {
	return &AddressError{URL: url, Host: host, LinkLocal: a.Unmap().IsLinkLocalUnicast()}
}

// mayReach reports whether gem may send a server's OAuth requests to a: public addresses
// always, the others only for a server that is local itself, link-local ones (a cloud's
// metadata service) never.
func mayReach(local bool, a netip.Addr) bool {
	if a.Unmap().IsLinkLocalUnicast() {
		return false
	}
	return local || netaddr.Public(a, nil)
}

// checkURL refuses raw when its host is, or resolves to, an address gem may not reach.
func checkURL(ctx context.Context, local bool, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %w", u.Hostname(), err)
	}
	for _, a := range addrs {
		if !mayReach(local, a) {
			return addressError(raw, u.Hostname(), a)
		}
	}
	return nil
}

// guardedClient is the HTTP client of a server's OAuth requests: each is checked before it
// is sent (its host resolved) and again when it connects (a name that resolves elsewhere the
// second time). It has taken over dialing, so the SDK's own discovery client uses it as is.
func guardedClient(local bool) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		a, err := netip.ParseAddr(host)
		if err != nil || !mayReach(local, a) {
			if t.Proxy != nil && proxied(t) {
				return nil // the user's proxy (each URL was checked before)
			}
			return addressError(address, host, a)
		}
		return nil
	}}
	t.DialContext = d.DialContext
	return &http.Client{Transport: checkedTransport{local: local, base: t}, Timeout: 60 * time.Second}
}

// proxied reports whether the environment names a proxy for https requests.
func proxied(t *http.Transport) bool {
	u, err := t.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: "example.com"}})
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
