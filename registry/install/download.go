package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// download fetches u into file, showing progress on a terminal.
func (f *Fetcher) download(ctx context.Context, u, file string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return fmt.Errorf("bad URL %q: %w", u, err)
	}
	req.Header.Set("Accept", "application/octet-stream")
	f.authorize(req)
	resp, err := f.client().Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", u, unreachable(req.URL, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s: %s", u, resp.Status)
	}
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	var w io.Writer = out
	if f.Progress != nil {
		w = &progressWriter{w: out, out: f.Progress, total: resp.ContentLength, name: filepath.Base(strings.SplitN(u, "?", 2)[0])}
	}
	_, err = io.Copy(w, io.LimitReader(resp.Body, DefaultArchiveLimits.MaxBytes))
	if pw, ok := w.(*progressWriter); ok {
		pw.done()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("downloading %s: %w", u, err)
	}
	return nil
}

type progressWriter struct {
	w         io.Writer
	out       io.Writer
	total, n  int64
	name      string
	lastPrint time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	if time.Since(p.lastPrint) > 100*time.Millisecond {
		p.lastPrint = time.Now()
		if p.total > 0 {
			fmt.Fprintf(p.out, "\rdownloading %s: %.1f/%.1f MiB (%d%%)", p.name, float64(p.n)/(1<<20), float64(p.total)/(1<<20), p.n*100/p.total)
		} else {
			fmt.Fprintf(p.out, "\rdownloading %s: %.1f MiB", p.name, float64(p.n)/(1<<20))
		}
	}
	return n, err
}

func (p *progressWriter) done() {
	fmt.Fprintf(p.out, "\rdownloaded %s: %.1f MiB\x1b[K\n", p.name, float64(p.n)/(1<<20))
}

// NetworkError: a server could not be reached at all (no such host, refused, timed out, no
// route): the machine may be offline or need a proxy.
type NetworkError struct {
	Host string
	Err  error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("cannot reach %s (%s)", e.Host, networkCause(e.Err))
}

func (e *NetworkError) Unwrap() error { return e.Err }

// unreachable turns a transport failure into a *NetworkError; other errors pass unchanged.
func unreachable(u *url.URL, err error) error {
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.As(err, &op) || errors.Is(err, context.DeadlineExceeded) && u != nil {
		return &NetworkError{Host: u.Host, Err: err}
	}
	return err
}

// networkCause is the short reason of a transport failure.
func networkCause(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host"
	case errors.As(err, &dns):
		return "the name could not be resolved"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to it"
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return "timed out"
	}
	return err.Error()
}
