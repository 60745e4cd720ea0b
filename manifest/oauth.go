package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// OAuth is an MCP server's `oauth` field (in an extension's manifest or in settings'
// mcpServers), with the fields Gemini CLI's MCPOAuthConfig has.
type OAuth struct {
	Enabled          *bool    `json:"enabled"`
	ClientID         string   `json:"clientId"`
	ClientSecret     string   `json:"clientSecret"`
	AuthorizationURL string   `json:"authorizationUrl"`
	TokenURL         string   `json:"tokenUrl"`
	RegistrationURL  string   `json:"registrationUrl"`
	Issuer           string   `json:"issuer"`
	Scopes           []string `json:"scopes"`
	Audiences        []string `json:"audiences"`
	RedirectURI      string   `json:"redirectUri"`
	TokenParamName   string   `json:"tokenParamName"`
}

// Disabled reports whether the field turns OAuth off for the server.
func (o OAuth) Disabled() bool { return o.Enabled != nil && !*o.Enabled }

// Configured reports whether the field names the authorization server's endpoints, so that
// nothing is discovered.
func (o OAuth) Configured() bool { return o.AuthorizationURL != "" }

// OAuthError is an `oauth` field gem cannot use: which one, its value, and what is wanted.
type OAuthError struct {
	Field, Value, Problem string
}

func (e *OAuthError) Error() string {
	switch {
	case e.Field == "":
		return "oauth: " + e.Problem
	case e.Value == "":
		return fmt.Sprintf("oauth.%s: %s", e.Field, e.Problem)
	}
	return fmt.Sprintf("oauth.%s %q: %s", e.Field, e.Value, e.Problem)
}

// oauthTypes are the values each Go type of OAuth's fields takes, as the user writes them.
var oauthTypes = map[string]string{"string": "a string", "[]string": "a list of strings", "bool": "true or false"}

// decodeError is the OAuthError of an oauth field JSON cannot decode into OAuth: the field
// and the type wanted, never the value (the field holds the client's secret, expanded from
// the environment by then).
func decodeError(err error) *OAuthError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" && oauthTypes[te.Type.String()] != "" {
		return &OAuthError{Field: te.Field, Problem: "must be " + oauthTypes[te.Type.String()] + ", not a " + te.Value}
	}
	return &OAuthError{Problem: "must be an object of Gemini CLI's oauth fields (docs: the oauth field of an MCP server)"}
}

// withoutPassword is v for a message: a URL's password hidden (https://user:xxxxx@host).
func withoutPassword(v string) string {
	if u, err := url.Parse(v); err == nil && u.User != nil {
		return u.Redacted()
	}
	return v
}

// ParseOAuth reads an `oauth` field (raw JSON; empty means none) and checks its values
// (oauthRules; CheckSites is the check of where its endpoints are): the first problem is
// returned.
func ParseOAuth(raw json.RawMessage) (OAuth, error) {
	var o OAuth
	if len(raw) == 0 || string(raw) == "null" {
		return o, nil
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, decodeError(err)
	}
	for _, r := range oauthRules {
		if v := r.value(o); v != "" || r.field == "tokenUrl" {
			if msg := r.check(o, v); msg != "" {
				return o, &OAuthError{Field: r.field, Value: withoutPassword(v), Problem: msg}
			}
		}
	}
	for i, lists := range [][]string{o.Scopes, o.Audiences} {
		for _, s := range lists {
			if strings.TrimSpace(s) == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
				return o, &OAuthError{Field: []string{"scopes", "audiences"}[i], Value: s, Problem: "must be one word, without spaces or quotes (a list gives several)"}
			}
		}
	}
	return o, nil
}

// CheckSites refuses a tokenUrl or registrationUrl that is not on the site of the
// authorizationUrl (sameSite, internal/netaddr's rule: the public suffix list is not the
// manifest's to carry), so that the authorization code and the client's secret go only to
// the party whose sign-in page the user saw.
func (o OAuth) CheckSites(sameSite func(a, b string) bool) error {
	for _, f := range []struct{ field, url string }{{"tokenUrl", o.TokenURL}, {"registrationUrl", o.RegistrationURL}} {
		if o.AuthorizationURL != "" && f.url != "" && !sameSite(o.AuthorizationURL, f.url) {
			origin := o.AuthorizationURL
			if u, err := url.Parse(origin); err == nil {
				origin = u.Scheme + "://" + u.Host
			}
			return &OAuthError{Field: f.field, Value: f.url, Problem: "is not on the site of authorizationUrl (" + origin +
				"): the authorization code would go to another party than the sign-in page's; use the authorization server's own endpoint"}
		}
	}
	return nil
}

// oauthRules are the checks of the fields that are URLs or names, in the order they are
// reported.
var oauthRules = []struct {
	field string
	value func(OAuth) string
	check func(o OAuth, v string) string // "" when fine, else what is wrong and the fix
}{
	{"authorizationUrl", func(o OAuth) string { return o.AuthorizationURL }, func(_ OAuth, v string) string { return endpointProblem(v) }},
	{"tokenUrl", func(o OAuth) string { return o.TokenURL }, func(o OAuth, v string) string {
		if v == "" {
			if o.AuthorizationURL != "" {
				return "is required with authorizationUrl: give the authorization server's token endpoint (or neither, to discover both)"
			}
			return ""
		}
		if o.AuthorizationURL == "" {
			return "is used only with authorizationUrl: give the authorization endpoint too (or neither, to discover both)"
		}
		return endpointProblem(v)
	}},
	{"registrationUrl", func(o OAuth) string { return o.RegistrationURL }, func(o OAuth, v string) string {
		if o.AuthorizationURL == "" {
			return "is used only with authorizationUrl and tokenUrl (without them gem discovers the registration endpoint)"
		}
		return endpointProblem(v)
	}},
	{"issuer", func(o OAuth) string { return o.Issuer }, func(_ OAuth, v string) string { return endpointProblem(v) }},
	{"redirectUri", func(o OAuth) string { return o.RedirectURI }, func(_ OAuth, v string) string { return redirectProblem(v) }},
	{"tokenParamName", func(o OAuth) string { return o.TokenParamName }, func(_ OAuth, v string) string {
		if !paramName.MatchString(v) {
			return "must be a query parameter name (letters, digits, '_', '-', '.')"
		}
		return ""
	}},
}

var paramName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// isLoopbackHost reports whether host names this machine's loopback interface.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// endpointProblem checks an authorization server URL: absolute, https (http only on this
// machine's loopback address, for a server there), no credentials, no fragment.
func endpointProblem(v string) string {
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "must be an absolute https:// URL"
	case u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
		return "must use https:// (http:// only on this machine: localhost, 127.0.0.1 or [::1])"
	case u.User != nil:
		return "must not carry credentials (user:password@): give clientId and clientSecret"
	case u.Fragment != "":
		return "must not have a #fragment"
	}
	return ""
}

// redirectProblem checks a redirect URI: http:// on this machine's loopback address, where
// gem receives the browser's return.
func redirectProblem(v string) string {
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Scheme != "http":
		return "must be an http:// URL on this machine (a loopback redirect), such as http://localhost:7777/oauth/callback"
	case u.Hostname() != "localhost" && u.Hostname() != "127.0.0.1" && u.Hostname() != "::1":
		return "must be on a loopback address: gem receives the redirect on this machine (localhost, 127.0.0.1 or [::1])"
	}
	return ""
}
