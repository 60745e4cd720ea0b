package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry/registrytest"
)

func TestPublicAddr(t *testing.T) {
	allow, err := ParseAllow("10.1.0.0/16, 192.168.7.7")
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2001:4860:4860::8888": true, "1.1.1.1": true,
		"127.0.0.1": false, "127.1.2.3": false, "::1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "::": false, "fd00::1": false, "fe80::1": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "224.0.0.1": false, "198.18.0.1": false,
		"10.1.2.3": true, "192.168.7.7": true, "192.168.7.8": false,
	} {
		if got := publicAddr(netip.MustParseAddr(addr), allow); got != want {
			t.Errorf("%s: %v, want %v", addr, got, want)
		}
	}
	if _, err := ParseAllow("nonsense"); err == nil {
		t.Error("a bad allow entry must be an error")
	}
}

// TestWebFetch: real HTTP servers on 127.0.0.1. A private address is refused (directly, by
// name, through a redirect, through the proxy); what the user allows is fetched, HTML
// reduced to text; behind a proxy on a private address, public pages go through it.
func TestInetAton(t *testing.T) {
	for host, want := range map[string]string{
		"127.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f.0.0.1": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"0x7f000001": "127.0.0.1", "10.1.2": "10.1.0.2", "169.254.169.254": "169.254.169.254", "0": "0.0.0.0",
		"example.com": "", "1.2.3.4.5": "", "256.1.1.1": "", "1.2.65536": "", "1_0.0.0.1": "", "08.1.1.1": "", "": "",
		"127.0.0.1.nip.io": "", "-1": "",
	} {
		a, ok := inetAton(host)
		if got := a.String(); (ok && got != want) || (!ok && want != "") {
			t.Errorf("inetAton(%q) = %v %v, want %q", host, a, ok, want)
		}
	}
}

func TestWebFetch(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><style>body{}</style><script>var secret = 1;</script></head><body><h1>Release notes</h1><p>Version 2 is out.</p></body></html>`)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-other-loopback":
			http.Redirect(w, r, "http://127.0.0.2:9/", http.StatusFound)
		}
	}))
	defer page.Close()
	var proxied []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied = append(proxied, r.URL.String())
		fmt.Fprint(w, "through the proxy")
	}))
	defer proxy.Close()

	env := registrytest.Env(t, nil)
	fetch := func(r *Catalog, prompt string) *Result {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"prompt": prompt})
		res, err := r.Call(context.Background(), "web_fetch", args, CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	closed := load(t, env, Options{CoreWorkspace: env.Cwd})
	for _, u := range []string{page.URL + "/page", strings.Replace(page.URL, "127.0.0.1", "localhost", 1) + "/page", "http://[::1]:1/", "http://169.254.169.254/"} {
		if res := fetch(closed, "summarize "+u); res.Error == nil || !strings.Contains(res.Text, "private address") {
			t.Errorf("%s was fetched: %s", u, res.Text)
		}
	}
	if res := fetch(closed, "read file:///etc/passwd"); res.Error == nil || strings.Contains(res.Text, "root:") {
		t.Errorf("file URL: %s", res.Text)
	}

	allow, _ := ParseAllow("127.0.0.1")
	open := load(t, env, Options{CoreWorkspace: env.Cwd, WebFetchAllow: allow})
	res := fetch(open, "What is new? "+page.URL+"/page")
	if res.Error != nil || !strings.Contains(res.Text, "Release notes") || !strings.Contains(res.Text, "Version 2 is out.") || strings.Contains(res.Text, "secret") || !strings.Contains(res.Text, "What is new?") {
		t.Errorf("allowed page: %+v", res)
	}
	for _, path := range []string{"/to-metadata", "/to-other-loopback"} {
		if res := fetch(open, page.URL+path); res.Error == nil || !strings.Contains(res.Text, "private address") {
			t.Errorf("redirect %s followed: %s", path, res.Text)
		}
	}

	behind := load(t, env, Options{CoreWorkspace: env.Cwd})
	behind.core.web = newWebFetcher([]string{"HTTP_PROXY=" + proxy.URL}, nil)
	// The public name resolves through a table (no DNS here): only the proxy is dialed.
	behind.core.web.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "docs.example.com" {
			return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
		}
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	// a name gem cannot resolve is not handed to the proxy (which might read it as an
	// address gem refuses); one it resolves and allows goes through
	if res := fetch(behind, "http://example.invalid/docs"); res.Error == nil || !strings.Contains(res.Text, "cannot be resolved here") || len(proxied) != 0 {
		t.Errorf("an unresolvable name through the proxy: %+v %v", res, proxied)
	}
	if res := fetch(behind, "http://docs.example.com/docs"); res.Error != nil || !strings.Contains(res.Text, "through the proxy") || len(proxied) != 1 {
		t.Errorf("through the proxy: %+v %v", res, proxied)
	}
	if res := fetch(behind, "http://127.0.0.3/admin"); res.Error == nil || len(proxied) != 1 {
		t.Errorf("a private address through the proxy: %+v %v", res, proxied)
	}
	// short and numeric forms are the address they stand for, before the proxy sees them
	strict := load(t, env, Options{CoreWorkspace: env.Cwd})
	strict.core.web = newWebFetcher([]string{"HTTP_PROXY=" + proxy.URL}, nil)
	for _, u := range []string{"http://127.1:9/", "http://2130706433:9/", "http://0x7f.0.0.1:9/", "http://0177.0.0.1:9/", "http://[::ffff:127.0.0.1]:9/"} {
		if res := fetch(strict, u); res.Error == nil || !strings.Contains(res.Text, "private address") || len(proxied) != 1 {
			t.Errorf("%s through the proxy: %+v %v", u, res, proxied)
		}
	}
	// the proxy's address is open on the proxy's port only: another port of its host is not
	behind.core.web = newWebFetcher([]string{"HTTP_PROXY=" + proxy.URL, "NO_PROXY=127.0.0.1"}, nil)
	if res := fetch(behind, page.URL+"/page"); res.Error == nil || !strings.Contains(res.Text, "private address") {
		t.Errorf("another port of the proxy's host: %s", res.Text)
	}
}
