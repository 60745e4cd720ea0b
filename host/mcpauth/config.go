package mcpauth

import (
	"encoding/json"
	"net"
	"net/url"

	"github.com/gemhost/gem/internal/netaddr"
	"github.com/gemhost/gem/manifest"
)

// Config is a server's `oauth` field, with the fields Gemini CLI reads.
type Config = manifest.OAuth

// ConfigError is an `oauth` field gem cannot use.
type ConfigError = manifest.OAuthError

// ParseConfig reads a server's `oauth` field (raw JSON; empty means none) and checks it:
// its values, and that its endpoints are on the authorization page's site.
func ParseConfig(raw json.RawMessage) (Config, error) {
	c, err := manifest.ParseOAuth(raw)
	if err != nil {
		return c, err
	}
	return c, c.CheckSites(netaddr.SameSite)
}

// defaultCallbackPath is where the authorization server sends the browser back to, as in
// Gemini CLI.
const defaultCallbackPath = "/oauth/callback"

// redirectAddr is the loopback address to listen on for redirect URI u (its port: 80 when
// it names none), and the path.
func redirectAddr(u string) (*url.URL, error) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	if p.Path == "" {
		p.Path = "/"
	}
	if p.Port() == "" {
		p.Host = net.JoinHostPort(p.Hostname(), "80")
	}
	return p, nil
}
