package mcpauth

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
)

// Config is a server's `oauth` field, with the fields Gemini CLI reads.
type Config struct {
	Enabled          *bool    `json:"enabled"`
	ClientID         string   `json:"clientId"`
	ClientSecret     string   `json:"clientSecret"`
	AuthorizationURL string   `json:"authorizationUrl"`
	TokenURL         string   `json:"tokenUrl"`
	Issuer           string   `json:"issuer"`
	Scopes           []string `json:"scopes"`
	RedirectURI      string   `json:"redirectUri"`
	TokenParamName   string   `json:"tokenParamName"`
	Audiences        []string `json:"audiences"`
}

// ConfigError is an `oauth` field gem cannot use.
type ConfigError struct {
	Field, Value, Problem string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("oauth.%s %q: %s", e.Field, e.Value, e.Problem)
}

// ParseConfig reads a server's `oauth` field (raw JSON; empty means none).
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, fmt.Errorf("oauth: %w", err)
	}
	if c.RedirectURI != "" {
		if _, err := redirectAddr(c.RedirectURI); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Disabled reports whether the manifest turns OAuth off for the server.
func (c Config) Disabled() bool { return c.Enabled != nil && !*c.Enabled }

// defaultCallbackPath is where the authorization server sends the browser back to, as in
// Gemini CLI.
const defaultCallbackPath = "/oauth/callback"

// redirectAddr is the loopback address to listen on for redirect URI u, and the path.
func redirectAddr(u string) (*url.URL, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" {
		return nil, &ConfigError{"redirectUri", u, "not an http:// URL on this machine (a loopback redirect)"}
	}
	switch p.Hostname() {
	case "localhost", "127.0.0.1", "::1":
	default:
		return nil, &ConfigError{"redirectUri", u, "not a loopback address: gem receives the redirect on this machine (localhost, 127.0.0.1 or [::1])"}
	}
	if p.Path == "" {
		p.Path = "/"
	}
	if p.Port() == "" {
		p.Host = net.JoinHostPort(p.Hostname(), "80")
	}
	return p, nil
}
