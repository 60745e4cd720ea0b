// Package netaddr owns one question gem asks before it connects on someone's behalf (a
// page the model named, an extension's remote MCP server): is this address public, or one
// of the machine's or the local network's (loopback, private, link-local such as a cloud's
// metadata service, CGNAT, ULA, multicast, unspecified, NAT64, documentation ranges)?
//
// It also holds the one rule of which of those gem's guarded connections may reach, as data
// (rules: a purpose → the address classes it may reach), and Guard, which applies it to a
// URL's host before a request and to each connection's address when it is made: an
// extension's remote MCP server reaches public addresses only unless the extension has the
// network capability; a server's OAuth requests likewise, and never a link-local address (a
// cloud's metadata service).
package netaddr

import "net/netip"

var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "198.18.0.0/15", "240.0.0.0/4", "64:ff9b::/96", "2001:db8::/32"} {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}()

// Public reports whether a is a public address, or inside one of allow (what the user let
// through). IPv4 addresses mapped into IPv6 are judged as IPv4.
func Public(a netip.Addr, allow []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range allow {
		if p.Contains(a) {
			return true
		}
	}
	return Classify(a) == ClassPublic
}
