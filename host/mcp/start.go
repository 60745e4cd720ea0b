package mcp

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The start limit: how long a server may take to start, and what moves it on (a download).

// DefaultStartTimeout bounds a server's start (launch, initialize, first tool list) unless
// its own "timeout" is shorter: a server that never answers must not hold up the tool list,
// the prompt or the other servers for the 10-minute call timeout. GEM_MCP_START_TIMEOUT
// (a Go duration) changes it.
const DefaultStartTimeout = 30 * time.Second

// DownloadStartTimeout bounds a start whose launcher keeps downloading (Gemini CLI waits as
// long for a first start): npx or uvx may be fetching and unpacking its package, and a
// launcher killed mid-install can leave its cache broken.
const DownloadStartTimeout = 10 * time.Minute

// startSayAfter is when a start still going on is first said to Waiting (then every 10 s).
var startSayAfter = 5 * time.Second

// startDownloadGrace is how long past its limit a start whose launcher is downloading (its
// progress lines, its cache growing) may go on, measured again at each tick, up to
// DownloadStartTimeout.
const startDownloadGrace = 10 * time.Second

// StartTimeout bounds the server's start: a first start too (its download moves the limit
// on while it goes: watchStart).
func (s *Client) StartTimeout() time.Duration {
	limit := s.Config.StartTimeout
	if limit <= 0 {
		limit = DefaultStartTimeout
	}
	return min(limit, s.Timeout())
}

// watchStart ends a start that passed its limit (it calls expire). The limit moves on only
// while the server's launcher shows it is downloading — a new progress line of its own on
// stderr (Config.Progress: uv's "Downloading …") or its cache growing (Config.Caches: npm
// says nothing while it fetches), sampled at each tick —, up to DownloadStartTimeout, so a
// launcher is not killed mid-install; a server that never answers initialize, however much
// it writes to stderr or works, is ended at the limit. Every 10 s it tells Waiting how long
// the start has taken (first after sayAfter). It returns when done closes.
func (s *Client) watchStart(done <-chan struct{}, sayAfter time.Duration, progress *progressLines, expire func()) {
	t0 := time.Now()
	limit := s.StartTimeout()
	ceiling := min(max(limit, DownloadStartTimeout), s.Timeout())
	deadline := t0.Add(limit)
	tick := time.NewTicker(min(time.Second, max(limit/4, 50*time.Millisecond)))
	defer tick.Stop()
	var lines uint64
	var cached int64 = -1
	nextSay := t0.Add(sayAfter)
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			working := false
			if n := progress.count(); n != lines {
				working, lines = true, n
			}
			// The caches are measured once the limit is near: only a start past it pays.
			if len(s.Caches) > 0 && !now.Add(2*time.Second).Before(deadline) {
				if size := cacheSize(s.Caches); cached >= 0 && size != cached {
					working = true
					cached = size
				} else {
					cached = size
				}
			}
			if working && now.Add(startDownloadGrace).After(deadline) {
				deadline = now.Add(startDownloadGrace)
				if end := t0.Add(ceiling); deadline.After(end) {
					deadline = end
				}
			}
			if s.Waiting != nil && now.After(nextSay) {
				nextSay = now.Add(10 * time.Second)
				state := "waiting"
				if working {
					state = "downloading"
				}
				s.Waiting(fmt.Sprintf("mcp server %s of %s is still starting (%s): %ds, %s", s.Name, s.Extension, s.commandLine(), int(now.Sub(t0).Seconds()), state))
			}
			if now.After(deadline) {
				expire()
				return
			}
		}
	}
}

// progressLines passes a server's stderr on to w and counts the lines that start with one
// of prefixes (its launcher's download progress), for watchStart.
type progressLines struct {
	w        io.Writer
	prefixes []string
	mu       sync.Mutex
	partial  []byte // the line not ended yet (its first 256 bytes: enough to match)
	n        uint64
}

func (p *progressLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	for _, c := range b {
		if c == '\n' || c == '\r' {
			if p.matches(string(p.partial)) {
				p.n++
			}
			p.partial = p.partial[:0]
		} else if len(p.partial) < 256 {
			p.partial = append(p.partial, c)
		}
	}
	p.mu.Unlock()
	return p.w.Write(b)
}

func (p *progressLines) matches(line string) bool {
	line = strings.TrimSpace(line)
	return line != "" && slices.ContainsFunc(p.prefixes, func(pre string) bool { return strings.HasPrefix(line, pre) })
}

// count is how many progress lines were written so far.
func (p *progressLines) count() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// cacheSizeLimit caps the entries cacheSize visits in each folder (a user's ~/.npm written
// directly, without namespaces, can hold hundreds of thousands).
const cacheSizeLimit = 50000

// cacheSize is the number and size of the files in folders (up to cacheSizeLimit entries
// each): it changes while a launcher downloads into them.
func cacheSize(folders []string) int64 {
	var total int64
	for _, dir := range folders {
		seen := 0
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > cacheSizeLimit {
				return filepath.SkipAll
			}
			total++
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				total += info.Size()
			}
			return nil
		})
	}
	return total
}
