package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
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

	env := testhome.Env(t, nil)
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
	if res := fetch(behind, "http://example.invalid/docs"); res.Error != nil || !strings.Contains(res.Text, "through the proxy") || len(proxied) != 1 {
		t.Errorf("through the proxy: %+v %v", res, proxied)
	}
	if res := fetch(behind, "http://127.0.0.3/admin"); res.Error == nil || len(proxied) != 1 {
		t.Errorf("a private address through the proxy: %+v %v", res, proxied)
	}
	// the proxy's address is open on the proxy's port only: another port of its host is not
	behind.core.web = newWebFetcher([]string{"HTTP_PROXY=" + proxy.URL, "NO_PROXY=127.0.0.1"}, nil)
	if res := fetch(behind, page.URL+"/page"); res.Error == nil || !strings.Contains(res.Text, "private address") {
		t.Errorf("another port of the proxy's host: %s", res.Text)
	}
}
