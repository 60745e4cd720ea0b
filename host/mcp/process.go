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
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/limits"
)

// FirstStartTimeout bounds a server's first start (Gemini CLI waits as long): npx or uvx
// may be downloading and unpacking its package, and a launcher killed mid-install can
// leave its cache broken.
const FirstStartTimeout = 10 * time.Minute

// startActivityGrace is how long past its limit a start that is still working (its
// processes use CPU or read and write) may go on, measured again at each tick, up to
// FirstStartTimeout.
const startActivityGrace = 10 * time.Second

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

// startProcess starts a stdio server; what it writes to stderr is kept (its Tail) and its
// launcher's progress lines counted in progress.
func (s *Client) startProcess(progress *progressLines) (*sandbox.Process, sdk.Transport, error) {
	path := s.Server.Command
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := s.lookPath(path)
		if err != nil {
			return nil, nil, err
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
	args := s.Server.Args
	if s.Args != nil {
		args = s.Args
	}
	spec := sandbox.Program{Path: path, Args: args, Env: s.Env, Dir: dir, Name: s.Name, Extension: s.Extension, Policy: s.Policy}
	tail := &sandbox.StderrTail{}
	progress.w = tail
	p, err := s.Launcher.Start(spec, sandbox.Streams{Stdin: inR, Stdout: outW, Stderr: progress, StdinWriter: inW})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, fmt.Errorf("mcp server %s of %s: %w", s.Name, s.Extension, err)
	}
	p.Tail = tail
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

// lookPath finds a stdio server's command on the PATH it runs with (Env's, when it has one):
// host/commands leaves out of it every folder a program may write (a launcher planted in the
// workspace or another extension's folder is never started with this server's grants), so
// the command found on gem's own PATH may not be the one to run.
func (s *Client) lookPath(name string) (string, error) {
	elsewhere, err := exec.LookPath(name)
	if s.Env == nil {
		if err != nil {
			return "", fmt.Errorf("mcp server %s of %s: command %q is not on PATH: install it, or give its full path in gemini-extension.json", s.Name, s.Extension, name)
		}
		return elsewhere, nil
	}
	path := ""
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if found := toolchain.LookPath(name, path); found != "" {
		return found, nil
	}
	if err == nil {
		return "", fmt.Errorf("mcp server %s of %s: command %q is at %s, in a folder left out of its PATH (one that programs may write, or that its sandbox does not let it read): install it elsewhere, or give its full path in gemini-extension.json", s.Name, s.Extension, name, elsewhere)
	}
	return "", fmt.Errorf("mcp server %s of %s: command %q is not on PATH: install it, or give its full path in gemini-extension.json", s.Name, s.Extension, name)
}
