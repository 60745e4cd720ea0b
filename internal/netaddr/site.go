package netaddr

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// SameSite reports whether URLs a and b are on one site: the same scheme and host, or, for
// names, the same scheme and registrable domain (auth.example.com and api.example.com; not
// two tenants of a shared host such as a.github.io and b.github.io, which the public
// suffix list separates). Addresses must be the same host.
func SameSite(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.Scheme != ub.Scheme {
		return false
	}
	if strings.EqualFold(ua.Host, ub.Host) {
		return true
	}
	ha, hb := strings.ToLower(ua.Hostname()), strings.ToLower(ub.Hostname())
	if net.ParseIP(ha) != nil || net.ParseIP(hb) != nil {
		return false
	}
	da, e1 := publicsuffix.EffectiveTLDPlusOne(ha)
	db, e2 := publicsuffix.EffectiveTLDPlusOne(hb)
	return e1 == nil && e2 == nil && da == db
}
