// Package prompt owns asking the user. Every question gem puts — consent to an extension, a
// command that asks for confirmation, a policy decision, trusting a folder, the model's own
// questions — goes through a Prompter, in one wording:
//
//	<what is asked, one or more lines; the last is the question> [Y/n]
//	<question> [y]es once, [a]lways this session, [s]ave always, [N]o:
//
// The default answer is the capital letter. Implementations: Terminal (stdin, /dev/tty
// opened per question, or the shell's line editor), Yes (--yes, --consent: confirmations
// answered yes, the rest passed on to a person) and Refuse (nobody can answer: the question
// is shown with why it was refused, and the answer is no). host/mcpserve asks an MCP client
// by elicitation.
package prompt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/termsafe"
)

// Question is a yes/no question: Text may hold several lines (what is asked about, then the
// question); Default is the answer to an empty line.
type Question struct {
	Text    string
	Default bool
}

// Choice is one answer of Choose: Key is what the user types, Label what it means, starting
// with Key ("y", "yes once" shows as "[y]es once"); Also, other answers that pick it.
type Choice struct {
	Key, Label string
	Also       []string
}

// Prompter asks the user.
type Prompter interface {
	// Confirm asks a yes/no question.
	Confirm(ctx context.Context, q Question) (bool, error)
	// Choose asks to pick one of choices (def: the answer to an empty line or anything else);
	// it returns the index picked.
	Choose(ctx context.Context, question string, choices []Choice, def int) (int, error)
	// Input asks for one line of text.
	Input(ctx context.Context, question string) (string, error)
	// CanPrompt reports whether a person can answer.
	CanPrompt() bool
}

// NotAskedError: nobody could be asked. Reason says why ("stdin is not a terminal"); Flag
// answers instead, and Verb says what it does ("--yes", "approve").
type NotAskedError struct{ Reason, Flag, Verb string }

func (e *NotAskedError) Error() string {
	if e.Flag == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s (add %s to %s)", e.Reason, e.Flag, e.Verb)
}

// Terminal asks a person: it writes on Out and reads one line with ReadLine. A ReadLine
// error that is context.Canceled (the user pressed Ctrl-C at the question) is returned as
// it is: what asked is cancelled, it was not answered no.
type Terminal struct {
	Out io.Writer
	// ReadLine shows prompt and reads one line (a line editor's, or NewTerminal's).
	ReadLine func(prompt string) (string, error)
}

// NewTerminal asks on out and reads answers from in.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	r := bufio.NewReader(in)
	return &Terminal{Out: out, ReadLine: func(prompt string) (string, error) {
		fmt.Fprint(out, prompt)
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			return "", err
		}
		return strings.TrimRight(line, "\r\n"), nil
	}}
}

// split shows every line of text but the last (the extension's words made safe for the
// terminal) and returns the last.
func (t *Terminal) split(text string) string {
	lines := strings.Split(strings.TrimRight(termsafe.Text(text), "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		fmt.Fprintln(t.Out, l)
	}
	return lines[len(lines)-1]
}

// Confirm implements Prompter.
func (t *Terminal) Confirm(_ context.Context, q Question) (bool, error) {
	last := t.split(q.Text)
	hint := "[y/N]"
	if q.Default {
		hint = "[Y/n]"
	}
	line, err := t.ReadLine(last + " " + hint + " ")
	if errors.Is(err, context.Canceled) {
		return false, err
	}
	if err != nil {
		return false, &NotAskedError{Reason: "no answer (end of input)"}
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return q.Default, nil
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// Choose implements Prompter.
func (t *Terminal) Choose(_ context.Context, question string, choices []Choice, def int) (int, error) {
	last := t.split(question)
	line, err := t.ReadLine(last + " " + Menu(choices, def) + ": ")
	if errors.Is(err, context.Canceled) {
		return def, err
	}
	if err != nil {
		return def, nil
	}
	a := strings.ToLower(strings.TrimSpace(line))
	for i, c := range choices {
		label := strings.ToLower(c.Label)
		word, _, _ := strings.Cut(label, " ")
		if a != "" && (a == strings.ToLower(c.Key) || a == label || a == word || slices.Contains(c.Also, a)) {
			return i, nil
		}
	}
	return def, nil
}

// Menu shows choices as "[y]es once, [N]o" (the default's key in capitals).
func Menu(choices []Choice, def int) string {
	var parts []string
	for i, c := range choices {
		key := c.Key
		if i == def {
			key = strings.ToUpper(key)
		}
		parts = append(parts, "["+key+"]"+strings.TrimPrefix(c.Label, c.Key))
	}
	return strings.Join(parts, ", ")
}

// Input implements Prompter.
func (t *Terminal) Input(_ context.Context, question string) (string, error) {
	fmt.Fprintln(t.Out, strings.TrimRight(termsafe.Text(question), "\n"))
	line, err := t.ReadLine("> ")
	if errors.Is(err, context.Canceled) {
		return "", err
	}
	if err != nil {
		return "", &NotAskedError{Reason: "no answer (end of input)"}
	}
	return line, nil
}

// CanPrompt implements Prompter.
func (t *Terminal) CanPrompt() bool { return true }

// Opener asks on a terminal opened for each question (/dev/tty): one the user sees even when
// stdin and stdout are pipes. When Open fails, Refused answers.
type Opener struct {
	Open    func() (io.ReadWriteCloser, error)
	Refused Prompter
}

func (o *Opener) with(f func(p Prompter) error) error {
	tty, err := o.Open()
	if err != nil {
		return f(o.Refused)
	}
	defer tty.Close()
	return f(NewTerminal(tty, tty))
}

// Confirm implements Prompter.
func (o *Opener) Confirm(ctx context.Context, q Question) (ok bool, err error) {
	err = o.with(func(p Prompter) error { ok, err = p.Confirm(ctx, q); return err })
	return ok, err
}

// Choose implements Prompter.
func (o *Opener) Choose(ctx context.Context, question string, choices []Choice, def int) (i int, err error) {
	err = o.with(func(p Prompter) error { i, err = p.Choose(ctx, question, choices, def); return err })
	return i, err
}

// Input implements Prompter.
func (o *Opener) Input(ctx context.Context, question string) (s string, err error) {
	err = o.with(func(p Prompter) error { s, err = p.Input(ctx, question); return err })
	return s, err
}

// CanPrompt implements Prompter: whether the terminal opens.
func (o *Opener) CanPrompt() bool {
	tty, err := o.Open()
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// Yes answers every confirmation yes and every choice with its default (--yes, --consent);
// when Note is set it shows what it agreed to on Out, then Note. Input, which needs a
// person, goes to Person (nil: none).
type Yes struct {
	Out    io.Writer
	Note   string
	Person Prompter
}

func (y *Yes) note(question string) {
	if y.Out != nil && y.Note != "" {
		fmt.Fprintf(y.Out, "%s\n%s\n", strings.TrimRight(termsafe.Text(question), "\n"), y.Note)
	}
}

// Confirm implements Prompter.
func (y *Yes) Confirm(_ context.Context, q Question) (bool, error) { y.note(q.Text); return true, nil }

// Choose implements Prompter: the first choice (yes) when def is the last (no), else def.
func (y *Yes) Choose(_ context.Context, question string, choices []Choice, def int) (int, error) {
	y.note(question)
	if def == len(choices)-1 && len(choices) > 1 {
		return 0, nil
	}
	return def, nil
}

// Input implements Prompter.
func (y *Yes) Input(ctx context.Context, question string) (string, error) {
	if y.Person == nil {
		return "", &NotAskedError{Reason: "no one to ask"}
	}
	return y.Person.Input(ctx, question)
}

// CanPrompt implements Prompter.
func (y *Yes) CanPrompt() bool { return y.Person != nil && y.Person.CanPrompt() }

// Refuse is nobody to ask: it shows the question on Out (nil: nowhere) with why it was not
// asked, and answers no with a *NotAskedError. Reported: the caller reports the refusal as
// its error, so only the question is shown.
type Refuse struct {
	Out      io.Writer
	Why      NotAskedError
	Reported bool
}

func (r *Refuse) refuse(question string) error {
	if r.Out != nil {
		fmt.Fprintln(r.Out, strings.TrimRight(termsafe.Text(question), "\n"))
		if !r.Reported {
			fmt.Fprintf(r.Out, "refused: %s\n", r.Why.Error())
		}
	}
	why := r.Why
	return &why
}

// Confirm implements Prompter.
func (r *Refuse) Confirm(_ context.Context, q Question) (bool, error) {
	return false, r.refuse(q.Text)
}

// Choose implements Prompter: the last choice (no).
func (r *Refuse) Choose(_ context.Context, question string, choices []Choice, _ int) (int, error) {
	return len(choices) - 1, r.refuse(question)
}

// Input implements Prompter: no flag answers for a person, so none is named.
func (r *Refuse) Input(_ context.Context, question string) (string, error) {
	why := &NotAskedError{Reason: r.Why.Reason}
	if r.Out != nil {
		fmt.Fprintln(r.Out, strings.TrimRight(termsafe.Text(question), "\n"))
		if !r.Reported {
			fmt.Fprintf(r.Out, "refused: %s\n", why.Error())
		}
	}
	return "", why
}

// CanPrompt implements Prompter.
func (r *Refuse) CanPrompt() bool { return false }

// NoTerminal is why a question was not asked when there is no terminal.
const NoTerminal = "no terminal to ask on"

// Stdin asks on in and out when in is a terminal (isTerminal), and refuses otherwise (the
// question shown on out, the refusal the caller's error), naming flag as what answers instead (verb: what it does, "agree").
func Stdin(isTerminal bool, in io.Reader, out io.Writer, flag, verb string) Prompter {
	if !isTerminal {
		return &Refuse{Out: out, Why: NotAskedError{Reason: NoTerminal, Flag: flag, Verb: verb}, Reported: true}
	}
	return NewTerminal(in, out)
}

// Script answers from a list, as a person typing the answers would (tests, programs that
// embed gem); it keeps the questions, and refuses when the answers run out.
type Script struct {
	Answers []string
	Asked   []string
	mu      sync.Mutex
}

func (s *Script) terminal(question string) *Terminal {
	s.Asked = append(s.Asked, question)
	return &Terminal{Out: io.Discard, ReadLine: func(string) (string, error) {
		if len(s.Answers) == 0 {
			return "", io.EOF
		}
		a := s.Answers[0]
		s.Answers = s.Answers[1:]
		return a, nil
	}}
}

// Confirm implements Prompter.
func (s *Script) Confirm(ctx context.Context, q Question) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.terminal(q.Text).Confirm(ctx, q)
}

// Choose implements Prompter.
func (s *Script) Choose(ctx context.Context, question string, choices []Choice, def int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.terminal(question).Choose(ctx, question, choices, def)
}

// Input implements Prompter.
func (s *Script) Input(ctx context.Context, question string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.terminal(question).Input(ctx, question)
}

// CanPrompt implements Prompter.
func (s *Script) CanPrompt() bool { return true }
