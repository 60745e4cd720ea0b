package cli

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"sync"

	"github.com/gemhost/gem/host/binfmt"
	"github.com/gemhost/gem/host/commands/hashing"
	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/internal/config"
	"github.com/gemhost/gem/internal/iostreams"
	"github.com/gemhost/gem/internal/logging"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
	"github.com/gemhost/gem/registry/settings"
)

// Factory gives the verbs what they share, made when first asked (model: cli/cli's
// cmdutil.Factory): the streams, the environment as the config reader sees it, and the
// session built from them. Tests make one with test streams and an environment of their own.
type Factory struct {
	IO *iostreams.IOStreams
	// Env returns where gem looks (home, $GEM_HOME, current folder, variables).
	Env func() (registry.Env, error)
	// Environ is the environment programs derive theirs from (the sandbox filters it).
	Environ func() []string

	once sync.Once
	sess *session
	err  error
}

// NewFactory returns the factory of a real invocation: the process's environment.
func NewFactory(ios *iostreams.IOStreams) *Factory {
	return &Factory{IO: ios, Env: registry.EnvFromOS, Environ: config.Environ}
}

// session is what a verb works with during one invocation: the environment, the log, the
// streams, and what it has already told the user.
type session struct {
	env     registry.Env
	log     hclog.Logger
	io      *iostreams.IOStreams
	environ []string
	stdout  io.Writer
	stderr  io.Writer

	in      *bufio.Reader   // stdin, shared by every question of the invocation
	noticed bool            // discover has said what it skipped
	warned  map[string]bool // discovery warnings said (each once per invocation)
	sets    *settings.Settings

	launchOnce sync.Once
	launcher   *launch.Launcher

	typed func() []string // gem shell's input history, for /history (sdk.Host.History)
}

// launch is the invocation's launcher (host/launch): made once, on first use, with the
// workspace worked out and the machine probed then; every program the invocation starts goes
// through it.
func (s *session) launch() *launch.Launcher {
	s.launchOnce.Do(func() {
		s.launcher = launch.New(launch.Options{Env: s.env, Environ: s.environ, ReadSecrets: secrets.Read})
	})
	return s.launcher
}

// Session opens the invocation's session (once).
func (f *Factory) Session() (*session, error) {
	f.once.Do(func() {
		env, err := f.Env()
		if err != nil {
			f.err = fmt.Errorf("cannot find the home or current directory: %w", err)
			return
		}
		env.Engine = registry.Engine{HashFile: hashing.SHA256File, DescribeBinary: binfmt.Describe}
		s := &session{env: env, log: logging.New(env.LogDir()), io: f.IO, environ: f.Environ(),
			stdout: f.IO.Out, stderr: f.IO.ErrOut}
		// Libraries that log with the standard logger (go-plugin's broker) write to the log
		// file, never into command output.
		log.SetOutput(s.log.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true}))
		log.SetFlags(0)
		// What the sandbox cannot enforce here is said once, on stderr, when a program runs.
		sandbox.Warn = func(m string) {
			s.warn("%s (gem doctor says more; GEM_SANDBOX_STRICT=1 refuses to run such programs)", m)
		}
		f.sess = s
	})
	return f.sess, f.err
}

// warn says a warning on stderr, through the one sanitiser: warnings carry extensions' and
// servers' words (names, stderr lines), which must act on no terminal.
func (s *session) warn(format string, args ...any) {
	fmt.Fprintln(s.stderr, "warning: "+termsafe.Text(fmt.Sprintf(format, args...)))
}

// problem shows a manifest problem on stderr (it says its own severity), sanitised as warn.
func (s *session) problem(p manifest.Problem) { fmt.Fprintln(s.stderr, termsafe.Text(p.String())) }

// modelText is the model's text as gem prints it on stdout: escaped by the one sanitiser on
// a terminal (an OSC 52 in it would set the clipboard, U+202E turn what follows around),
// unchanged into a pipe or a file, which get the model's own words.
func (s *session) modelText(d string) string {
	if s.io.IsStdoutTTY() {
		return termsafe.Text(d)
	}
	return d
}

// readLine reads one line of stdin (the shared reader keeps what a question did not use).
func (s *session) readLine() (string, error) {
	if s.in == nil {
		s.in = bufio.NewReader(s.io.In)
	}
	return s.in.ReadString('\n')
}

// settings are the user's settings.json files merged (read once; their warnings said once).
func (s *session) settings() *settings.Settings {
	if s.sets == nil {
		s.sets = settings.Load(s.env, s.launch().Workspace())
		for _, w := range s.sets.Warnings {
			s.warn("%s", w)
		}
	}
	return s.sets
}
