// Package iostreams owns a command's standard streams and what gem knows about them: which
// are terminals, whether colour is wanted (on a terminal or with CLICOLOR_FORCE, never with
// NO_COLOR or --no-color), and how
// to reach the terminal for a question when stdin is taken (gem tools call --batch). Verbs
// write through an IOStreams and never to os.Stdout; tests give them Test streams.
package iostreams

import (
	"bytes"
	"errors"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams of one gem invocation.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
	noColor, forceColor   bool
	// OpenTTY opens the controlling terminal (for questions asked while stdin carries data);
	// nil means there is none.
	OpenTTY func() (io.ReadWriteCloser, error)
}

// FromFiles wraps a process's standard files, finding which are terminals; getenv gives
// NO_COLOR and CLICOLOR_FORCE.
func FromFiles(in, out, errOut *os.File, getenv func(string) string) *IOStreams {
	return &IOStreams{
		In: in, Out: out, ErrOut: errOut,
		inTTY: isTerminal(in), outTTY: isTerminal(out), errTTY: isTerminal(errOut),
		noColor: getenv("NO_COLOR") != "", forceColor: forced(getenv("CLICOLOR_FORCE")),
		OpenTTY: func() (io.ReadWriteCloser, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) },
	}
}

// Test returns streams backed by buffers (stdin empty, no terminal) and the buffers.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{In: in, Out: out, ErrOut: errOut, noColor: true,
		OpenTTY: func() (io.ReadWriteCloser, error) { return nil, errors.New("no terminal in tests") }}
	return ios, in, out, errOut
}

// SetTTY says which streams count as terminals (for tests of interactive paths).
func (s *IOStreams) SetTTY(in, out, errOut bool) { s.inTTY, s.outTTY, s.errTTY = in, out, errOut }

// IsStdinTTY reports whether stdin is a terminal (a person can answer questions).
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// TerminalWidth is the width in columns of the terminal stderr is (0 when it is none, or
// its size is unknown): questions and consent texts are wrapped to it.
func (s *IOStreams) TerminalWidth() int {
	f, ok := s.ErrOut.(*os.File)
	if !ok || !s.errTTY {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// IsStderrTTY reports whether stderr is a terminal (progress and questions are seen).
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// Interactive reports whether gem may ask: stdin and stderr are both terminals.
func (s *IOStreams) Interactive() bool { return s.inTTY && s.errTTY }

// ColorEnabled reports whether stdout may carry colour: a terminal (or CLICOLOR_FORCE), and
// neither NO_COLOR nor --no-color.
func (s *IOStreams) ColorEnabled() bool { return (s.outTTY || s.forceColor) && !s.noColor }

// ColorWanted is gem's colour rule for a stream (isTerminal says whether it is one), for
// callers without an IOStreams (the light front): a terminal or CLICOLOR_FORCE, and no
// NO_COLOR.
func ColorWanted(isTerminal bool, getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && (isTerminal || forced(getenv("CLICOLOR_FORCE")))
}

// forced reads CLICOLOR_FORCE: set and not "0".
func forced(v string) bool { return v != "" && v != "0" }

// SetNoColor turns colour off (--no-color).
func (s *IOStreams) SetNoColor() { s.noColor = true }

// Progress is where progress goes: stderr on a terminal, else nowhere (nil).
func (s *IOStreams) Progress() io.Writer {
	if s.errTTY {
		return s.ErrOut
	}
	return nil
}

// ReadPassword reads a line from stdin without echo when stdin is a terminal file.
func (s *IOStreams) ReadPassword() ([]byte, bool, error) {
	f, ok := s.In.(*os.File)
	if !ok || !s.inTTY {
		return nil, false, nil
	}
	b, err := term.ReadPassword(int(f.Fd()))
	return b, true, err
}

func isTerminal(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }
