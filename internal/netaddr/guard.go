package netaddr

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Class is the kind of an address, for deciding who may connect to it.
type Class int

const (
	ClassPublic    Class = iota
	ClassLoopback        // this machine: 127.0.0.0/8, ::1
	ClassPrivate         // the local network: RFC 1918, ULA, CGNAT
	ClassLinkLocal       // 169.254.0.0/16, fe80::/10: a cloud's metadata service lives there
	ClassReserved        // unspecified, multicast, documentation, benchmarking, NAT64, invalid
)

var classNames = map[Class]string{ClassPublic: "public", ClassLoopback: "loopback", ClassPrivate: "private",
	ClassLinkLocal: "link-local", ClassReserved: "reserved"}

func (c Class) String() string { return classNames[c] }

// Classify is a's class (an IPv4 address mapped into IPv6 is judged as IPv4).
func Classify(a netip.Addr) Class {
	a = a.Unmap()
	switch {
	case !a.IsValid() || a.IsUnspecified() || a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast():
		return ClassReserved
	case a.IsLoopback():
		return ClassLoopback
	case a.IsLinkLocalUnicast():
		return ClassLinkLocal
	case a.IsPrivate() || cgnat.Contains(a):
		return ClassPrivate
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return ClassReserved
		}
	}
	return ClassPublic
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Purpose is why gem connects: each has its own rule of which address classes it may reach.
type Purpose int

const (
	// MCPServer: an extension's remote MCP server, the extension without the network
	// capability.
	MCPServer Purpose = iota
	// MCPServerLocal: an extension's remote MCP server, the extension with the network
	// capability (its server may be on this machine or the local network).
	MCPServerLocal
	// OAuth: the metadata, registration, token and sign-in requests of a remote server
	// that is itself public.
	OAuth
	// OAuthLocal: the same for a server on this machine or the local network whose
	// extension may reach those; a link-local address is never an authorization server.
	OAuthLocal
)

var purposeNames = map[Purpose]string{MCPServer: "an MCP server", MCPServerLocal: "an MCP server of an extension with the network capability",
	OAuth: "an MCP server's sign-in", OAuthLocal: "the sign-in of an MCP server on this machine or the local network"}

func (p Purpose) String() string { return purposeNames[p] }

// rules are the address classes each purpose may reach: the one table gem's guarded
// connections consult.
var rules = map[Purpose]map[Class]bool{
	MCPServer:      {ClassPublic: true},
	MCPServerLocal: {ClassPublic: true, ClassLoopback: true, ClassPrivate: true, ClassLinkLocal: true, ClassReserved: true},
	OAuth:          {ClassPublic: true},
	OAuthLocal:     {ClassPublic: true, ClassLoopback: true, ClassPrivate: true, ClassReserved: true},
}

// Allowed reports whether a connection for p may go to a.
func Allowed(p Purpose, a netip.Addr) bool { return rules[p][Classify(a)] }

// RefusedError is a connection to an address its purpose may not reach.
type RefusedError struct {
	Host    string // as named (a name, or the address)
	Addr    netip.Addr
	Class   Class
	Purpose Purpose
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s is a %s address (%s), which %s may not reach", e.Host, e.Class, e.Addr, e.Purpose)
}

// Guard checks the connections of one purpose: the hosts of URLs before a request, and the
// address of every connection when it is made (a name that resolves elsewhere the second
// time).
type Guard struct {
	Purpose Purpose
	// ViaProxy reports whether requests go through the user's proxy (nil: never): the
	// connection to the proxy is then let through, each URL having been checked first.
	ViaProxy func() bool
	// Lookup resolves a host (nil: the system's resolver).
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Refuse makes the caller's error of a refusal (nil: the *RefusedError itself).
	Refuse func(*RefusedError) error
}

func (g Guard) refuse(host string, a netip.Addr) error {
	e := &RefusedError{Host: host, Addr: a, Class: Classify(a), Purpose: g.Purpose}
	if g.Refuse != nil {
		return g.Refuse(e)
	}
	return e
}

// Check resolves host and refuses it (Refuse, or a *RefusedError) when an address it has is
// one the purpose may not reach.
func (g Guard) Check(ctx context.Context, host string) error {
	lookup := g.Lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if !Allowed(g.Purpose, a) {
			return g.refuse(host, a)
		}
	}
	return nil
}

// CheckURL is Check of raw's host.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	return g.Check(ctx, u.Hostname())
}

// Transport is a clone of http.DefaultTransport whose connections go only to addresses
// the purpose may reach (or to the user's proxy, when ViaProxy says so).
func (g Guard) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		a, err := netip.ParseAddr(host)
		if err == nil && Allowed(g.Purpose, a) {
			return nil
		}
		if g.ViaProxy != nil && g.ViaProxy() {
			return nil
		}
		return g.refuse(host, a)
	}}
	t.DialContext = d.DialContext
	return t
}
