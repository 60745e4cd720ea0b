package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gemhost/gem/internal/netaddr"

	"golang.org/x/net/html"
	"golang.org/x/net/http/httpproxy"
)

// web_fetch: the URLs of a prompt fetched and given to the model as text, as Gemini CLI's
// tool of that name takes them (one "prompt" naming up to 20 URLs and what to do with
// them). Only http and https; at most 10 redirects, 30 s and 2 MiB a page, 100,000
// characters in all; HTML reduced to its text.
//
// Private addresses are refused: every connection gem opens is checked at dial time (after
// DNS, so a name that resolves — or later re-resolves — to a private address is refused,
// redirects included): loopback, RFC 1918, link-local (cloud metadata at 169.254.169.254),
// carrier-grade NAT, unique-local, unspecified and multicast addresses. Behind a proxy
// (HTTPS_PROXY/HTTP_PROXY/NO_PROXY of the environment) gem dials only the proxy, so the
// page's host is resolved and checked before the request instead. What the user allows
// (GEM_WEB_FETCH_ALLOW: addresses or CIDR prefixes, comma-separated) is let through.

const (
	webMaxURLs     = 20
	webMaxPage     = 2 << 20
	webMaxText     = 100_000
	webTimeout     = 30 * time.Second
	webMaxRedirect = 10
)

// PrivateAddressError is a fetch refused because its address is not public.
type PrivateAddressError struct {
	Host string
	Addr netip.Addr
}

func (e *PrivateAddressError) Error() string {
	return fmt.Sprintf("%s is a private address (%s): web_fetch reaches only public ones", e.Host, e.Addr)
}

// publicAddr reports whether a may be fetched: public, or allowed by the user.
func publicAddr(a netip.Addr, allow []netip.Prefix) bool { return netaddr.Public(a, allow) }

// ParseAllow reads GEM_WEB_FETCH_ALLOW: addresses or prefixes, comma-separated.
func ParseAllow(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if a, err := netip.ParseAddr(f); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("GEM_WEB_FETCH_ALLOW: %q is neither an address nor a CIDR prefix", f)
		}
		out = append(out, p)
	}
	return out, nil
}

// webFetcher fetches pages for web_fetch.
type webFetcher struct {
	client *http.Client
	proxy  func(*url.URL) (*url.URL, error)
	allow  []netip.Prefix
	// lookup resolves a host gem checks before handing it to a proxy (the system's
	// resolver; a test's table).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

func newWebFetcher(environ []string, allow []netip.Prefix) *webFetcher {
	get := func(k string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if key, v, ok := strings.Cut(environ[i], "="); ok && (key == k || key == strings.ToLower(k)) {
				return v
			}
		}
		return ""
	}
	pc := &httpproxy.Config{HTTPProxy: get("HTTP_PROXY"), HTTPSProxy: get("HTTPS_PROXY"), NoProxy: get("NO_PROXY")}
	w := &webFetcher{proxy: pc.ProxyFunc(), allow: allow}
	proxies := map[string]bool{} // host:port of the user's proxies
	for _, p := range []string{pc.HTTPProxy, pc.HTTPSProxy} {
		if u, err := url.Parse(p); err == nil && u.Host != "" {
			port := u.Port()
			if port == "" {
				port = map[string]string{"https": "443"}[u.Scheme]
				if port == "" {
					port = "80"
				}
			}
			proxies[net.JoinHostPort(u.Hostname(), port)] = true
		}
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		host, port, _ := net.SplitHostPort(address)
		a, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		if publicAddr(a, w.allow) {
			return nil
		}
		for p := range proxies { // the user's proxy may sit on a private address: it, and only its port
			ph, pp, _ := net.SplitHostPort(p)
			if pp != port {
				continue
			}
			if ips, _ := net.LookupIP(ph); containsIP(ips, a) || ph == host {
				return nil
			}
		}
		return &PrivateAddressError{Host: host, Addr: a}
	}}
	transport := &http.Transport{Proxy: func(r *http.Request) (*url.URL, error) { return w.proxy(r.URL) },
		DialContext: dialer.DialContext, TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: webTimeout}
	w.client = &http.Client{Transport: transport, Timeout: webTimeout, CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if len(via) >= webMaxRedirect {
			return fmt.Errorf("more than %d redirects", webMaxRedirect)
		}
		return w.precheck(r.Context(), r.URL)
	}}
	return w
}

func containsIP(ips []net.IP, a netip.Addr) bool {
	for _, ip := range ips {
		if b, ok := netip.AddrFromSlice(ip); ok && b.Unmap() == a.Unmap() {
			return true
		}
	}
	return false
}

// precheck refuses a URL that is not http(s), or whose host (when a proxy will be dialed
// instead of it) resolves to a private address.
func (w *webFetcher) precheck(ctx context.Context, u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: only http and https URLs are fetched", u.Redacted())
	}
	if p, _ := w.proxy(u); p == nil {
		return nil // checked when dialed
	}
	lookup := w.lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, u.Hostname())
	if err != nil {
		// What gem cannot resolve it cannot check: a proxy might read it as an address
		// gem would refuse (a short or numeric form, a name only the proxy knows).
		return fmt.Errorf("%s: its host %q cannot be resolved here, so it is not fetched through the proxy: %w", u.Redacted(), u.Hostname(), err)
	}
	for _, a := range addrs {
		if !publicAddr(a, w.allow) {
			return &PrivateAddressError{Host: u.Hostname(), Addr: a}
		}
	}
	return nil
}

// inetAton reads host as inet_aton(3) does: one to four parts, each decimal, octal (a
// leading 0) or hexadecimal (0x), the last filling the remaining bytes.
func inetAton(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if host == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		digits, base := p, 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			digits, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			digits, base = p[1:], 8
		}
		if digits == "" && base == 16 {
			digits = "0" // "0x" alone is 0, as inet_aton reads it
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) && len(vals) > 1 {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

var urlPattern = regexp.MustCompile(`https?://[^\s<>"'\x60]+`)

type webFetchArgs struct {
	Prompt string `json:"prompt" jsonschema:"the URLs to fetch (up to 20, http or https) and what to do with their content"`
}

func (c *coreBackend) webFetch(ctx context.Context, a webFetchArgs) (string, error) {
	urls := urlPattern.FindAllString(a.Prompt, -1)
	if len(urls) == 0 {
		return "", errors.New("prompt names no URL: include the http(s) URLs to fetch")
	}
	if len(urls) > webMaxURLs {
		urls = urls[:webMaxURLs]
	}
	var b strings.Builder
	fetched := 0
	for _, raw := range urls {
		raw = strings.TrimRight(raw, ".,;:)]}")
		text, err := c.web.fetch(ctx, raw)
		if err != nil {
			fmt.Fprintf(&b, "--- %s ---\n(not fetched: %v)\n\n", raw, err)
			continue
		}
		fetched++
		if room := webMaxText - b.Len(); len(text) > room {
			text = text[:max(room, 0)] + "\n[truncated]"
		}
		fmt.Fprintf(&b, "--- %s ---\n%s\n\n", raw, text)
	}
	if fetched == 0 {
		return "", errors.New(strings.TrimSpace(b.String()))
	}
	fmt.Fprintf(&b, "The request these pages were fetched for: %s", a.Prompt)
	return b.String(), nil
}

// fetch gets one page as text.
func (w *webFetcher) fetch(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	// Numeric and short forms of an address (127.1, 2130706433, 0x7f.0.0.1, 0177.0.0.1) are
	// written as the address they are before anything reads them: a proxy or a resolver
	// would take them as 127.0.0.1 where gem's checks saw a name.
	if a, ok := inetAton(u.Hostname()); ok {
		if port := u.Port(); port != "" {
			u.Host = net.JoinHostPort(a.String(), port)
		} else {
			u.Host = a.String()
		}
	}
	if err := w.precheck(ctx, u); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "gem-web-fetch/1 (+Gemini CLI compatible)")
	resp, err := w.client.Do(req)
	if err != nil {
		var pa *PrivateAddressError
		if errors.As(err, &pa) {
			return "", pa
		}
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return "", fmt.Errorf("the server answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, webMaxPage))
	if err != nil {
		return "", err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return htmlText(string(body)), nil
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || mt == "application/xml" || mt == "":
		return string(body), nil
	}
	return fmt.Sprintf("[%s, %d bytes: not text]", mt, len(body)), nil
}

// htmlText is the readable text of an HTML page: scripts, styles and markup left out,
// blocks on lines of their own.
func htmlText(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	var b strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return strings.TrimSpace(collapseBlankLines(b.String()))
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			start := tt == html.StartTagToken
			switch tag {
			case "script", "style", "noscript", "template", "svg":
				if start {
					skip++
				} else if skip > 0 {
					skip--
				}
			case "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "section", "article", "header", "footer", "table", "ul", "ol":
				b.WriteString("\n")
			}
		case html.TextToken:
			if skip == 0 {
				b.WriteString(strings.Join(strings.Fields(string(z.Text())), " "))
				b.WriteString(" ")
			}
		}
	}
}

func collapseBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" && len(out) > 0 && out[len(out)-1] == "" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
