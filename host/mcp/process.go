package mcp

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/limits"
)

// DefaultStartTimeout bounds a server's start (launch, initialize, first tool list) unless
// its own "timeout" is shorter: a server that never answers must not hold up the tool list,
// the prompt or the other servers for the 10-minute call timeout. GEM_MCP_START_TIMEOUT
// (a Go duration) changes it.
const DefaultStartTimeout = 30 * time.Second

// FirstStartTimeout bounds a server's first start (Gemini CLI waits as long): npx or uvx
// may be downloading and unpacking its package, and a launcher killed mid-install can
// leave its cache broken.
const FirstStartTimeout = 10 * time.Minute

// startSayAfter is when a start still going on is first said to Waiting (then every 10 s).
var startSayAfter = 5 * time.Second

// startActivityGrace is how long past its limit a start that is still working (its
// processes use CPU or read and write) may go on, measured again at each tick, up to
// FirstStartTimeout.
const startActivityGrace = 10 * time.Second

// StartTimeout bounds the server's start.
func (s *Client) StartTimeout() time.Duration {
	limit := s.Config.StartTimeout
	if limit <= 0 {
		limit = DefaultStartTimeout
		if s.FirstStart {
			limit = FirstStartTimeout
		}
	}
	return min(limit, s.Timeout())
}

// watchStart ends a start that passed its limit (it calls expire): the limit moves on while
// the server's processes keep working (sandbox.Process.Activity, sampled each second: a
// launcher still downloading is not killed mid-install), up to FirstStartTimeout; a server
// that does nothing is ended at the limit. Every 10 s it tells Waiting how long the start
// has taken (first after sayAfter). It returns when done closes.
func (s *Client) watchStart(done <-chan struct{}, sayAfter time.Duration, proc func() *sandbox.Process, expire func()) {
	t0 := time.Now()
	limit := s.StartTimeout()
	ceiling := min(max(limit, FirstStartTimeout), s.Timeout())
	deadline := t0.Add(limit)
	tick := time.NewTicker(min(time.Second, max(limit/4, 50*time.Millisecond)))
	defer tick.Stop()
	var last uint64
	nextSay := t0.Add(sayAfter)
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			working := false
			if p := proc(); p != nil {
				if a := p.Activity(); a != last {
					working, last = last != 0, a
				}
			}
			if working && now.Add(startActivityGrace).After(deadline) {
				deadline = now.Add(startActivityGrace)
				if end := t0.Add(ceiling); deadline.After(end) {
					deadline = end
				}
			}
			if s.Waiting != nil && now.After(nextSay) {
				nextSay = now.Add(10 * time.Second)
				state := "waiting"
				if working {
					state = "working"
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

// commandLine is the server's command and arguments, or its URL, as said in progress.
func (s *Client) commandLine() string {
	if s.Server.Command == "" {
		return s.Endpoint()
	}
	return strings.TrimSpace(s.Server.Command + " " + strings.Join(s.Server.Args, " "))
}

// stopGrace is how long a stdio server has to exit after its stdin closes and then after
// SIGTERM (half each), before its group is killed.
const stopGrace = 2 * time.Second

func (s *Client) startProcess() (*sandbox.Process, sdk.Transport, error) {
	path := s.Server.Command
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := exec.LookPath(path)
		if err != nil {
			return nil, nil, fmt.Errorf("mcp server %s of %s: command %q is not on PATH: install it, or give its full path in gemini-extension.json", s.Name, s.Extension, path)
		}
		path = found
	} else if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("mcp server %s of %s: command %s: %w (is the extension built for this platform?)", s.Name, s.Extension, path, err)
	}
	dir := s.Server.Cwd
	if dir == "" {
		dir = s.Dir
	}
	// Pipes of our own (not cmd.StdoutPipe): Wait must not close what the SDK still reads.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	spec := sandbox.Program{Path: path, Args: s.Server.Args, Env: s.Env, Dir: dir, Name: s.Name, Policy: s.Policy}
	p, err := sandbox.StartProcess(spec, sandbox.Streams{Stdin: inR, Stdout: outW, StdinWriter: inW})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, fmt.Errorf("mcp server %s of %s: %w", s.Name, s.Extension, err)
	}
	go func() {
		<-p.Done()
		outR.Close() // after the process: the SDK reads to EOF first
	}()
	s.Logger.Debug("mcp server started", "server", s.Name, "extension", s.Extension, "pid", p.Pid())
	// A line (one JSON-RPC message) longer than limits.Message ends the connection.
	return p, &sdk.IOTransport{Reader: readCloser{&limits.LineReader{R: outR, Max: limits.Message}, outR}, Writer: inW}, nil
}

// readCloser reads from r and closes c.
type readCloser struct {
	r io.Reader
	c io.Closer
}

func (rc readCloser) Read(p []byte) (int, error) { return rc.r.Read(p) }
func (rc readCloser) Close() error               { return rc.c.Close() }
