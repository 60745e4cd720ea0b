package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// consentAsker returns the Asker for install/update/link: --consent answers yes; without a
// terminal it fails at once naming --consent (gem never waits on a closed stdin).
func consentAsker(r *runtime, consent bool) func(text string) (bool, error) {
	return func(text string) (bool, error) {
		if consent {
			fmt.Fprint(r.stderr, text)
			fmt.Fprintln(r.stderr, "Consent given with --consent.")
			return true, nil
		}
		if !isTerminal(os.Stdin) {
			fmt.Fprint(r.stderr, text)
			return false, errors.New("cannot ask for consent: stdin is not a terminal; read the above and run again with --consent to agree")
		}
		fmt.Fprint(r.stderr, text)
		return askYesNo(r.stderr, os.Stdin, "Do you want to continue? [Y/n] ", true)
	}
}

// askYesNo reads one answer; empty takes def.
func askYesNo(w io.Writer, in io.Reader, question string, def bool) (bool, error) {
	fmt.Fprint(w, question)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return false, errors.New("no answer (end of input): run again with --consent to agree")
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return def, nil
	case "y", "yes":
		return true, nil
	default:
		return false, nil
	}
}
