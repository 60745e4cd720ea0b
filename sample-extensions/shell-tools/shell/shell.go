// Package shell is the engine of the shell-tools sample plugin: commands run on a real
// pseudo-terminal (github.com/creack/pty) so interactive programs (ed, REPLs, prompts)
// behave as for a person, each under a handle that is a counter of this plugin session
// (PIDs are reused by the OS, handles are not), with output kept and persisted.
//
// Choices where the issue is silent:
//   - Commands run as `$SHELL_TOOLS_SHELL -c <command>` (default /bin/sh), each in its own
//     session and process group with the PTY as controlling terminal, TERM=dumb (no colour,
//     no cursor tricks in what the model reads) and a 120×40 window.
//   - Output: PTY line ends (\r\n) become \n; a job keeps the last max_output_size bytes, and
//     a result says how many earlier bytes were dropped.
//   - Waiting: with a pattern, a call returns when the pattern matches the output produced
//     since the call began, when the command exits, or after pattern_timeout; without a
//     pattern, when the command exits or after ai_callback_delay.
//   - Persistence: <io dir>/<session>/<handle>/stdout.txt (the kept output) and info.json
//     (handle, command, dir, pid, times, status, exit code), rewritten when a call returns
//     and when the job ends. The io dir is $SHELL_TOOLS_IO, else $GEM_EXTENSION_OUTPUT/io
//     (the extension's output folder, which gem's sandbox lets it write and gem's read_file
//     reads: ~/.gem/data/shell-tools/output/io), else $GEM_EXTENSION_DATA/io, else
//     $GEM_HOME/io, else ~/.gem/io. At start, sessions older than 7 days are removed and only the 20 newest
//     are kept.
//   - kill: SIGTERM to the job's process group, SIGKILL after 2 s; on plugin shutdown every
//     job still running is killed the same way. If the plugin dies, the kernel hangs up
//     the PTYs (SIGHUP to the jobs) and Pdeathsig kills each job's leader.
package shell

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Defaults of the tools' optional arguments.
const (
	DefaultRunDelay       = 5 * time.Second
	DefaultInputDelay     = 3 * time.Second
	DefaultPatternTimeout = 30 * time.Second
	DefaultMaxOutput      = 16 << 10
	KillGrace             = 2 * time.Second
	keepSessions          = 20
	sessionMaxAge         = 7 * 24 * time.Hour
)

// Manager owns the jobs of one plugin session.
type Manager struct {
	Session string // name of the session folder
	Dir     string // <io dir>/<session>
	Shell   string
	Env     []string

	mu   sync.Mutex
	next int
	jobs map[int]*Job
}

// IODir is where sessions are kept, from the environment.
func IODir(getenv func(string) string) string {
	if d := getenv("SHELL_TOOLS_IO"); d != "" {
		return d
	}
	if d := getenv("GEM_EXTENSION_OUTPUT"); d != "" {
		return filepath.Join(d, "io") // where gem's read_file reads
	}
	if d := getenv("GEM_EXTENSION_DATA"); d != "" {
		return filepath.Join(d, "io")
	}
	if d := getenv("GEM_HOME"); d != "" {
		return filepath.Join(d, "io")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".gem", "io")
}

// NewManager starts a session under ioDir, pruning old sessions.
func NewManager(ioDir string, env []string) (*Manager, error) {
	session := time.Now().UTC().Format("20060102T150405.000") + "-" + strconv.Itoa(os.Getpid())
	m := &Manager{Session: session, Dir: filepath.Join(ioDir, session), Shell: "/bin/sh", Env: env, jobs: map[int]*Job{}}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SHELL_TOOLS_SHELL="); ok && v != "" {
			m.Shell = v
		}
	}
	prune(ioDir, session) // the session's own folder is made with its first job
	// Jobs start with SIGHUP ignored (an ignored signal stays ignored across fork and exec):
	// when a job's shell ends, the terminal's hangup would otherwise end what it left in the
	// background ("server &"), which the model means to keep running (kill stops it).
	signal.Ignore(syscall.SIGHUP)
	return m, nil
}

// prune removes sessions older than sessionMaxAge and all but the keepSessions newest.
func prune(ioDir, current string) {
	entries, err := os.ReadDir(ioDir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != current {
			names = append(names, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names))) // names start with the UTC time
	for i, n := range names {
		info, err := os.Stat(filepath.Join(ioDir, n))
		if err != nil {
			continue
		}
		if i >= keepSessions-1 || time.Since(info.ModTime()) > sessionMaxAge {
			os.RemoveAll(filepath.Join(ioDir, n))
		}
	}
}

// Job is one command of the session.
type Job struct {
	Handle  int
	Command string
	Dir     string
	Pid     int
	Started time.Time

	cmd       *exec.Cmd
	tty       *os.File
	maxOutput int
	path      string // <session dir>/<handle>

	mu       sync.Mutex
	out      []byte // the kept tail of the output
	total    int64  // bytes ever produced (after \r\n → \n)
	changed  chan struct{}
	exited   bool
	exitCode int
	signal   string
	ended    time.Time
	readDone chan struct{}
	done     chan struct{} // closed when the job has ended and its files are written
}

// ErrNoJob is an unknown handle.
var ErrNoJob = errors.New("no such job")

// Start runs command in dir on a new PTY.
func (m *Manager) Start(command, dir string, maxOutput int) (*Job, error) {
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("dir_path %q is not a directory", dir)
		}
	}
	cmd := exec.Command(m.Shell, "-c", command)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, m.Env...), "TERM=dumb")
	// Its own session with the PTY as controlling terminal; Pdeathsig (Linux) ends the job's leader with the plugin.
	cmd.SysProcAttr = procAttr()
	tty, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: 40, Cols: 120}, cmd.SysProcAttr)
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", command, err)
	}
	m.mu.Lock()
	m.next++
	j := &Job{Handle: m.next, Command: command, Dir: dir, Pid: cmd.Process.Pid, Started: time.Now(),
		cmd: cmd, tty: tty, maxOutput: maxOutput, changed: make(chan struct{}), readDone: make(chan struct{}), done: make(chan struct{}),
		path: filepath.Join(m.Dir, strconv.Itoa(m.next))}
	m.jobs[j.Handle] = j
	m.mu.Unlock()
	if err := os.MkdirAll(j.path, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "shell-tools: cannot keep output of job %d: %v\n", j.Handle, err)
	}
	go j.read()
	go j.wait()
	j.persist()
	return j, nil
}

// Get finds a job by handle.
func (m *Manager) Get(handle int) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[handle]
	if !ok {
		return nil, fmt.Errorf("%w with handle %d (jobs lists the handles of this session)", ErrNoJob, handle)
	}
	return j, nil
}

// Jobs lists every job of the session by handle.
func (m *Manager) Jobs() []*Job {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Handle < out[b].Handle })
	return out
}

// Shutdown kills every running job (plugin shutdown).
func (m *Manager) Shutdown() {
	var wg sync.WaitGroup
	for _, j := range m.Jobs() {
		wg.Add(1)
		go func() { defer wg.Done(); j.Kill(KillGrace) }()
	}
	wg.Wait()
}

func (j *Job) read() {
	defer close(j.readDone)
	buf := make([]byte, 32<<10)
	crs := 0 // carriage returns held back from the end of the previous chunk
	for {
		n, err := j.tty.Read(buf)
		if n > 0 {
			chunk := append(bytes.Repeat([]byte{'\r'}, crs), buf[:n]...)
			trimmed := bytes.TrimRight(chunk, "\r")
			crs = len(chunk) - len(trimmed)
			j.append(lineEnds.ReplaceAll(trimmed, []byte{'\n'}))
		}
		if err != nil {
			if crs > 0 {
				j.append(bytes.Repeat([]byte{'\r'}, crs))
			}
			return
		}
	}
}

// lineEnds are a terminal's line ends: the PTY turns \n into \r\n, and a program that
// writes \r\n itself shows as \r\r\n.
var lineEnds = regexp.MustCompile(`\r+\n`)

func (j *Job) append(p []byte) {
	j.mu.Lock()
	j.out = append(j.out, p...)
	j.total += int64(len(p))
	if over := len(j.out) - j.maxOutput; over > 0 {
		j.out = append(j.out[:0], j.out[over:]...)
	}
	close(j.changed)
	j.changed = make(chan struct{})
	j.mu.Unlock()
}

func (j *Job) wait() {
	err := j.cmd.Wait()
	// The job is its process group (a session of its own): a command that put work in the
	// background ("server &") is running while that work is, and kill reaches it by the
	// group. (A process that leaves the group, setsid, is no longer the job's.)
	for groupAlive(j.Pid) {
		time.Sleep(groupPoll)
	}
	// Let the reader drain what the process wrote last (it ends when every holder of the
	// terminal is gone; a daemonised grandchild may keep it open).
	select {
	case <-j.readDone:
	case <-time.After(200 * time.Millisecond):
	}
	j.mu.Lock()
	j.exited, j.ended = true, time.Now()
	j.exitCode = j.cmd.ProcessState.ExitCode()
	if ws, ok := j.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		j.signal = ws.Signal().String()
	} else if err != nil && j.exitCode < 0 {
		j.signal = err.Error()
	}
	close(j.changed)
	j.changed = make(chan struct{})
	j.mu.Unlock()
	j.tty.Close()
	j.persist()
	close(j.done)
}

// Snapshot is a job's state for results and jobs.
type Snapshot struct {
	Handle    int     `json:"handle"`
	Command   string  `json:"command"`
	Dir       string  `json:"dir,omitempty"`
	Pid       int     `json:"pid"`
	Status    string  `json:"status"` // running, exited, killed
	ExitCode  *int    `json:"exit_code,omitempty"`
	Signal    string  `json:"signal,omitempty"`
	Started   string  `json:"started"`
	Duration  float64 `json:"duration_seconds"`
	Output    string  `json:"output,omitempty"`
	Dropped   int64   `json:"dropped_bytes,omitempty"` // earlier output no longer kept
	Matched   bool    `json:"pattern_matched,omitempty"`
	TimedOut  bool    `json:"pattern_timed_out,omitempty"`
	OutputDir string  `json:"output_dir,omitempty"`
}

func (j *Job) snapshotLocked() Snapshot {
	s := Snapshot{Handle: j.Handle, Command: j.Command, Dir: j.Dir, Pid: j.Pid, Status: "running",
		Started: j.Started.UTC().Format(time.RFC3339), OutputDir: j.path}
	end := time.Now()
	if j.exited {
		end = j.ended
		s.Status = "exited"
		if j.signal != "" {
			s.Status, s.Signal = "killed", j.signal
		} else {
			code := j.exitCode
			s.ExitCode = &code
		}
	}
	s.Duration = end.Sub(j.Started).Round(time.Millisecond).Seconds()
	return s
}

// Snapshot returns the job's state without output.
func (j *Job) Snapshot() Snapshot {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.snapshotLocked()
}

// Offset is the position at the end of the output so far.
func (j *Job) Offset() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.total
}

// since returns the output produced after offset (what is still kept of it).
func (j *Job) sinceLocked(offset int64) (string, int64) {
	start := j.total - int64(len(j.out)) // offset of out[0]
	var dropped int64
	if offset < start {
		dropped = start - offset
		offset = start
	}
	return string(j.out[offset-start:]), dropped
}

// Wait waits for output after offset: until pattern matches it (when pattern is not nil),
// the job exits, or the timeout; then returns the state with that output.
func (j *Job) Wait(offset int64, pattern *regexp.Regexp, timeout time.Duration, done <-chan struct{}) Snapshot {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		j.mu.Lock()
		out, dropped := j.sinceLocked(offset)
		matched := pattern != nil && pattern.MatchString(out)
		if matched || j.exited {
			s := j.snapshotLocked()
			s.Output, s.Dropped, s.Matched = out, dropped, matched
			j.mu.Unlock()
			j.persist()
			return s
		}
		changed := j.changed
		j.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			j.mu.Lock()
			s := j.snapshotLocked()
			s.Output, s.Dropped = j.sinceLocked(offset)
			s.TimedOut = pattern != nil
			j.mu.Unlock()
			j.persist()
			return s
		case <-done:
			j.mu.Lock()
			s := j.snapshotLocked()
			s.Output, s.Dropped = j.sinceLocked(offset)
			j.mu.Unlock()
			return s
		}
	}
}

// Send writes input to the job's terminal.
func (j *Job) Send(input string) error {
	j.mu.Lock()
	exited := j.exited
	j.mu.Unlock()
	if exited {
		return fmt.Errorf("job %d (%s) has exited; start it again with run_shell_command", j.Handle, j.Command)
	}
	_, err := j.tty.Write([]byte(input))
	return err
}

// groupPoll is how often a job whose leader exited is checked for processes left in its
// group.
const groupPoll = 100 * time.Millisecond

// groupAlive reports whether a process of the group pgid is still there (not a zombie: a
// zombie of the group is not work running, and its parent reaps it).
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc to tell zombies apart: the signal's answer holds
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and parentheses
		rest := string(data)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && pid != pgid {
			return true
		}
	}
	return false
}

// Kill sends SIGTERM to the job's process group, then SIGKILL after grace. It reports
// whether the job was still running.
func (j *Job) Kill(grace time.Duration) bool {
	j.mu.Lock()
	exited := j.exited
	j.mu.Unlock()
	if exited {
		<-j.done
		return false
	}
	syscall.Kill(-j.Pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-j.done:
		syscall.Kill(-j.Pid, syscall.SIGKILL) // stragglers in the group
	case <-t.C:
		syscall.Kill(-j.Pid, syscall.SIGKILL)
		select {
		case <-j.done:
		case <-time.After(2 * time.Second):
		}
	}
	return true
}

// persist writes stdout.txt (the kept output) and info.json; best effort.
func (j *Job) persist() {
	j.mu.Lock()
	out := append([]byte{}, j.out...)
	s := j.snapshotLocked()
	j.mu.Unlock()
	s.OutputDir = ""
	info, _ := json.MarshalIndent(s, "", "  ")
	writeFile(filepath.Join(j.path, "stdout.txt"), out)
	writeFile(filepath.Join(j.path, "info.json"), append(info, '\n'))
}

func writeFile(path string, data []byte) {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}
