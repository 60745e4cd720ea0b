package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry/install"
)

// The CLI's prompters (internal/prompt says how every question is worded). They are made
// here only: questions about what gem itself does (consent, uninstall --all, a command that
// asks first) are asked on stdin when it is a terminal; the model's and the policy's
// questions on /dev/tty (stdin may carry the prompt), and only when stderr is a terminal too
// (a question is not put where nobody sees it). Without a terminal they are refused, naming
// the flag that answers instead.

// stdinPrompter asks on stdin and stderr, or refuses naming flag (which does verb).
func (s *session) stdinPrompter(flag, verb string) prompt.Prompter {
	if !s.io.IsStdinTTY() {
		return &prompt.Refuse{Out: s.stderr, Why: prompt.NotAskedError{Reason: prompt.NoTerminal, Flag: flag, Verb: verb}, Reported: true}
	}
	return &prompt.Terminal{Out: s.stderr, ReadLine: func(p string) (string, error) {
		fmt.Fprint(s.stderr, p)
		line, err := s.readLine()
		if err != nil && line == "" {
			return "", err
		}
		return trimNewline(line), nil
	}}
}

func trimNewline(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// consentPrompter is install's, update's, link's and consent's: --consent answers yes.
func (s *session) consentPrompter(consent bool) prompt.Prompter {
	if consent {
		return s.wrapped(&prompt.Yes{Out: s.stderr, Note: "Consent given with --consent."})
	}
	return s.wrapped(s.stdinPrompter("--consent", "agree"))
}

// wrapped wraps the questions p puts to the terminal's width, when stderr is a terminal: a
// consent text's long lines break between words, under their bullet.
func (s *session) wrapped(p prompt.Prompter) prompt.Prompter {
	if w := s.io.TerminalWidth(); w > 0 {
		return &wrapping{Prompter: p, width: w}
	}
	return p
}

// wrapping is a Prompter whose questions are wrapped to width.
type wrapping struct {
	prompt.Prompter
	width int
}

func (w *wrapping) Confirm(ctx context.Context, q prompt.Question) (bool, error) {
	q.Text = termsafe.Wrap(q.Text, w.width)
	return w.Prompter.Confirm(ctx, q)
}

func (w *wrapping) Choose(ctx context.Context, question string, choices []prompt.Choice, def int) (int, error) {
	return w.Prompter.Choose(ctx, termsafe.Wrap(question, w.width), choices, def)
}

// ttyPrompter asks on /dev/tty when stderr is a terminal, and otherwise refuses, showing
// the question on stderr with the reason (a refusal is an answer, not a failure).
func (s *session) ttyPrompter(flag, verb string) prompt.Prompter {
	refused := &prompt.Refuse{Out: s.stderr, Why: prompt.NotAskedError{Reason: prompt.NoTerminal, Flag: flag, Verb: verb}}
	return &prompt.Opener{Refused: refused, Open: func() (io.ReadWriteCloser, error) {
		tty, err := s.io.OpenTTY()
		if err == nil && !s.io.IsStderrTTY() {
			tty.Close()
			err = errors.New("stderr is not a terminal")
		}
		return tty, err
	}}
}

// askConsentText shows an extension's consent text and asks whether to go on.
func askConsentText(ask prompt.Prompter, text string) error {
	ok, err := ask.Confirm(context.Background(), install.ConsentQuestion(text))
	if err != nil {
		return fmt.Errorf("cannot ask for consent: %w", err)
	}
	if !ok {
		return install.ErrDeclined
	}
	return nil
}

// askYesNo asks a question about what gem itself is about to do on stdin.
func (s *session) askYesNo(question string, def bool, flag string) (bool, error) {
	return s.stdinPrompter(flag, "agree").Confirm(context.Background(), prompt.Question{Text: question, Default: def})
}
