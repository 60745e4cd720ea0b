package netaddr

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		addr string
		want Class
	}{
		{"8.8.8.8", ClassPublic},
		{"2001:4860:4860::8888", ClassPublic},
		{"127.0.0.1", ClassLoopback},
		{"::1", ClassLoopback},
		{"::ffff:127.0.0.1", ClassLoopback},
		{"10.1.2.3", ClassPrivate},
		{"172.16.0.1", ClassPrivate},
		{"192.168.0.1", ClassPrivate},
		{"fd00::1", ClassPrivate},
		{"100.64.0.1", ClassPrivate},
		{"169.254.169.254", ClassLinkLocal},
		{"::ffff:169.254.169.254", ClassLinkLocal},
		{"fe80::1", ClassLinkLocal},
		{"0.0.0.0", ClassReserved},
		{"::", ClassReserved},
		{"224.0.0.1", ClassReserved},
		{"198.18.0.1", ClassReserved},
		{"2001:db8::1", ClassReserved},
		{"64:ff9b::a00:1", ClassReserved},
	}
	for _, c := range cases {
		if got := Classify(netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("Classify(%s) = %s, want %s", c.addr, got, c.want)
		}
		if Public(netip.MustParseAddr(c.addr), nil) != (c.want == ClassPublic) {
			t.Errorf("Public(%s) disagrees with its class %s", c.addr, c.want)
		}
	}
}

// TestAllowed: the rule of each purpose, address class by address class.
func TestAllowed(t *testing.T) {
	cases := []struct {
		purpose Purpose
		addr    string
		want    bool
	}{
		{MCPServer, "8.8.8.8", true},
		{MCPServer, "127.0.0.1", false},
		{MCPServer, "10.1.2.3", false},
		{MCPServer, "169.254.169.254", false},
		{MCPServer, "0.0.0.0", false},
		{MCPServerLocal, "127.0.0.1", true},
		{MCPServerLocal, "10.1.2.3", true},
		{MCPServerLocal, "169.254.169.254", true}, // the extension may reach the network
		{OAuth, "8.8.8.8", true},
		{OAuth, "127.0.0.1", false},
		{OAuth, "192.168.0.1", false},
		{OAuth, "::1", false},
		{OAuth, "169.254.169.254", false},
		{OAuthLocal, "127.0.0.1", true},
		{OAuthLocal, "10.1.2.3", true},
		{OAuthLocal, "169.254.169.254", false}, // a metadata service is never an authorization server
		{OAuthLocal, "::ffff:169.254.169.254", false},
		{OAuthLocal, "fe80::1", false},
	}
	for _, c := range cases {
		if got := Allowed(c.purpose, netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("Allowed(%s, %s) = %v, want %v", c.purpose, c.addr, got, c.want)
		}
	}
	for p := range purposeNames {
		if rules[p] == nil {
			t.Errorf("%s has no rule", p)
		}
	}
}

// TestGuard: a host is checked by what it resolves to, and a connection by its address, on
// a real listener on 127.0.0.1.
func TestGuard(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })}
	go srv.Serve(ln)
	defer srv.Close()
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		return map[string][]netip.Addr{"public.test": {netip.MustParseAddr("8.8.8.8")},
			"sneaky.test": {netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("169.254.169.254")}}[host], nil
	}
	cases := []struct {
		purpose Purpose
		host    string
		refused bool
	}{
		{OAuth, "public.test", false},
		{OAuth, "sneaky.test", true},
		{OAuthLocal, "sneaky.test", true},
		{MCPServerLocal, "sneaky.test", false},
	}
	for _, c := range cases {
		err := Guard{Purpose: c.purpose, Lookup: lookup}.Check(context.Background(), c.host)
		var re *RefusedError
		if errors.As(err, &re) != c.refused {
			t.Errorf("%s %s: %v", c.purpose, c.host, err)
		}
		if c.refused && (re.Class != ClassLinkLocal || !strings.Contains(err.Error(), "link-local")) {
			t.Errorf("%s %s: %v", c.purpose, c.host, err)
		}
	}
	url := "http://" + ln.Addr().String()
	for _, c := range []struct {
		g       Guard
		refused bool
	}{
		{Guard{Purpose: OAuth}, true},
		{Guard{Purpose: MCPServer, Refuse: func(e *RefusedError) error { return errors.New("mine: " + e.Host) }}, true},
		{Guard{Purpose: OAuth, ViaProxy: func() bool { return true }}, false}, // the user's proxy
		{Guard{Purpose: OAuthLocal}, false},
		{Guard{Purpose: MCPServerLocal}, false},
	} {
		resp, err := (&http.Client{Transport: c.g.Transport()}).Get(url)
		if err == nil {
			resp.Body.Close()
		}
		if (err != nil) != c.refused {
			t.Errorf("%s: %v", c.g.Purpose, err)
		}
		if c.g.Refuse != nil && (err == nil || !strings.Contains(err.Error(), "mine: 127.0.0.1")) {
			t.Errorf("Refuse not used: %v", err)
		}
	}
}

func TestSameSite(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"https://auth.example.com/a", "https://auth.example.com/t", true},
		{"https://linear.app/oauth/authorize", "https://api.linear.app/oauth/token", true},
		{"https://login.example.co.uk/a", "https://api.example.co.uk/t", true},
		{"https://auth.example.com/a", "https://auth.example.net/t", false},
		{"https://a.github.io/a", "https://b.github.io/t", false}, // tenants of a shared host
		{"https://auth.example.com/a", "http://auth.example.com/t", false},
		{"http://127.0.0.1:9000/a", "http://127.0.0.1:9000/t", true},
		{"http://127.0.0.1:9000/a", "http://127.0.0.1:9001/t", false},
		{"http://localhost:9000/a", "http://127.0.0.1:9000/t", false},
		{"https://auth.example.com:8443/a", "https://auth.example.com/t", true}, // the same site, another port
		{"::", "https://x/t", false},
	}
	for _, c := range cases {
		if got := SameSite(c.a, c.b); got != c.want {
			t.Errorf("SameSite(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
