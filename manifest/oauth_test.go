package manifest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/netaddr"
)

// TestParseOAuth: Gemini CLI's oauth fields as gem reads them, and each bad value named with
// its field and what is wanted.
func TestParseOAuth(t *testing.T) {
	cases := []struct {
		name, raw   string
		field, want string // the problem's field and words ("" for none)
		disabled    bool
		configured  bool
	}{
		{"none", ``, "", "", false, false},
		{"discovery, with a client and scopes", `{"enabled": true, "clientId": "gem", "scopes": ["read"], "audiences": ["api://x"]}`, "", "", false, false},
		{"off", `{"enabled": false}`, "", "", true, false},
		{"configured endpoints", `{"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "https://auth.example.com/token", "clientId": "c"}`, "", "", false, true},
		{"token endpoint on the same site", `{"authorizationUrl": "https://linear.app/oauth/authorize", "tokenUrl": "https://api.linear.app/oauth/token"}`, "", "", false, true},
		{"loopback http endpoints", `{"authorizationUrl": "http://127.0.0.1:9000/authorize", "tokenUrl": "http://127.0.0.1:9000/token", "registrationUrl": "http://127.0.0.1:9000/register"}`, "", "", false, true},
		{"token endpoint on another origin", `{"authorizationUrl": "http://127.0.0.1:9000/authorize", "tokenUrl": "http://127.0.0.1:9001/token"}`, "tokenUrl", "is not on the site of authorizationUrl (http://127.0.0.1:9000)", false, true},
		{"token endpoint on another site", `{"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "https://collector.example.net/token"}`, "tokenUrl", "the authorization code would go to another party", false, true},
		{"token endpoint on a shared host's other tenant", `{"authorizationUrl": "https://a.github.io/authorize", "tokenUrl": "https://b.github.io/token"}`, "tokenUrl", "not on the site", false, true},
		{"token endpoint over https when the page is http", `{"authorizationUrl": "http://localhost:9000/authorize", "tokenUrl": "https://localhost:9000/token"}`, "tokenUrl", "not on the site", false, true},
		{"registration endpoint elsewhere", `{"authorizationUrl": "https://auth.example.com/a", "tokenUrl": "https://auth.example.com/t", "registrationUrl": "https://evil.example/r"}`, "registrationUrl", "not on the site", false, true},
		{"authorization endpoint over plain http", `{"authorizationUrl": "http://auth.example.com/authorize", "tokenUrl": "http://auth.example.com/token"}`, "authorizationUrl", "must use https://", false, true},
		{"token endpoint over plain http", `{"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "http://auth.example.com/token"}`, "tokenUrl", "must use https://", false, true},
		{"not a URL", `{"authorizationUrl": "auth.example.com/authorize", "tokenUrl": "https://auth.example.com/token"}`, "authorizationUrl", "absolute https:// URL", false, true},
		{"javascript scheme", `{"authorizationUrl": "javascript:alert(1)", "tokenUrl": "https://a/t"}`, "authorizationUrl", "absolute https:// URL", false, true},
		{"credentials in the URL", `{"authorizationUrl": "https://u:p@auth.example.com/a", "tokenUrl": "https://auth.example.com/t"}`, "authorizationUrl", "must not carry credentials", false, true},
		{"authorization endpoint without a token endpoint", `{"authorizationUrl": "https://auth.example.com/authorize"}`, "tokenUrl", "is required with authorizationUrl", false, true},
		{"token endpoint alone", `{"tokenUrl": "https://auth.example.com/token"}`, "tokenUrl", "is used only with authorizationUrl", false, false},
		{"registration endpoint alone", `{"registrationUrl": "https://auth.example.com/register"}`, "registrationUrl", "is used only with authorizationUrl", false, false},
		{"issuer over plain http", `{"issuer": "http://auth.example.com"}`, "issuer", "must use https://", false, false},
		{"loopback redirect with a port", `{"redirectUri": "http://localhost:7777/oauth/callback"}`, "", "", false, false},
		{"IPv6 loopback redirect", `{"redirectUri": "http://[::1]:7777/cb"}`, "", "", false, false},
		{"redirect elsewhere", `{"redirectUri": "https://evil.example/cb"}`, "redirectUri", "must be an http:// URL on this machine", false, false},
		{"redirect on the local network", `{"redirectUri": "http://192.168.1.5:7777/cb"}`, "redirectUri", "must be on a loopback address", false, false},
		{"token parameter name", `{"tokenParamName": "access_token"}`, "", "", false, false},
		{"token parameter name with a separator", `{"tokenParamName": "t&x=1"}`, "tokenParamName", "must be a query parameter name", false, false},
		{"a scope with a space", `{"scopes": ["read write"]}`, "scopes", "must be one word", false, false},
		{"an empty audience", `{"audiences": [""]}`, "audiences", "must be one word", false, false},
		{"scopes as a string", `{"scopes": "read"}`, "scopes", "must be a list of strings, not a string", false, false},
		{"enabled as a string", `{"enabled": "yes"}`, "enabled", "must be true or false, not a string", false, false},
		{"not an object", `"on"`, "", "must be an object of Gemini CLI's oauth fields", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := ParseOAuth(json.RawMessage(c.raw))
			if err == nil {
				err = o.CheckSites(netaddr.SameSite)
			}
			if c.want == "" {
				if err != nil || o.Disabled() != c.disabled || o.Configured() != c.configured {
					t.Fatalf("got %+v, %v", o, err)
				}
				return
			}
			var oe *OAuthError
			if !errors.As(err, &oe) || oe.Field != c.field || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want oauth.%s: %q", err, c.field, c.want)
			}
			if c.field != "" && !strings.HasPrefix(err.Error(), "oauth."+c.field+" ") && !strings.HasPrefix(err.Error(), "oauth."+c.field+": ") {
				t.Fatalf("the error does not name the field first: %v", err)
			}
		})
	}
}

// TestOAuthErrorKeepsSecrets: an oauth field gem refuses is named without the client's
// secret (expanded from the environment before the check) or a URL's password.
func TestOAuthErrorKeepsSecrets(t *testing.T) {
	for _, raw := range []string{
		`{"clientSecret": "sekr1t-value", "scopes": "read"}`,
		`{"clientSecret": "sekr1t-value", "tokenUrl": 7}`,
		`{"clientSecret": "sekr1t-value",}`,
		`{"authorizationUrl": "https://u:sekr1t-value@auth.example.com/a", "tokenUrl": "https://auth.example.com/t"}`,
		`{"authorizationUrl": "http://u:sekr1t-value@auth.example.com/a", "tokenUrl": "https://auth.example.com/t"}`,
	} {
		_, err := ParseOAuth(json.RawMessage(raw))
		if err == nil || strings.Contains(err.Error(), "sekr1t-value") {
			t.Errorf("ParseOAuth(%s): %v; want an error without the secret", raw, err)
		}
	}
}

// FuzzParseOAuth: no oauth field makes the parser panic, and an accepted one has loopback
// redirects and endpoints gem may check.
func FuzzParseOAuth(f *testing.F) {
	f.Add(`{"authorizationUrl": "https://a.example.com/a", "tokenUrl": "https://b.example.com/t", "clientId": "c"}`)
	f.Add(`{"redirectUri": "http://[::1]:7/cb", "scopes": ["a"], "audiences": ["b"], "tokenParamName": "t"}`)
	f.Add(`{"authorizationUrl": "http://127.0.0.1:1/a", "tokenUrl": "http://127.0.0.1:2/t"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := ParseOAuth(json.RawMessage(raw))
		if err != nil {
			return
		}
		if o.RedirectURI != "" && redirectProblem(o.RedirectURI) != "" {
			t.Fatalf("accepted redirect %q", o.RedirectURI)
		}
		if o.TokenURL != "" && (endpointProblem(o.TokenURL) != "" || o.AuthorizationURL == "") {
			t.Fatalf("accepted token endpoint %q for %q", o.TokenURL, o.AuthorizationURL)
		}
		if o.CheckSites(netaddr.SameSite) == nil && o.TokenURL != "" && !netaddr.SameSite(o.AuthorizationURL, o.TokenURL) {
			t.Fatalf("accepted token endpoint %q on another site than %q", o.TokenURL, o.AuthorizationURL)
		}
	})
}

// TestOAuthResolved: a server's oauth strings are expanded like its URL (a secret from the
// environment), as Gemini CLI hydrates them; a field that is not JSON is left as is.
func TestOAuthResolved(t *testing.T) {
	e := Expander{Lookups: []Lookup{func(n string) (string, bool) {
		return map[string]string{"AUTH": "https://auth.example.com", "SECRET": "s3"}[n], n == "AUTH" || n == "SECRET"
	}}}
	cases := []struct{ in, want string }{
		{`{"authorizationUrl":"${AUTH}/authorize","clientSecret":"$SECRET","scopes":["${AUTH}"],"enabled":true}`,
			`{"authorizationUrl":"https://auth.example.com/authorize","clientSecret":"s3","enabled":true,"scopes":["https://auth.example.com"]}`},
		{`{"clientId":"${NOPE}"}`, `{"clientId":"${NOPE}"}`},
		{`not json`, `not json`},
		{``, ``},
	}
	for _, c := range cases {
		m := &Manifest{MCPServers: []MCPServer{{Name: "s", OAuth: json.RawMessage(c.in)}}}
		if got := string(m.Resolved(e).MCPServers[0].OAuth); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}
