package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gemhost/gem/internal/termsafe"
)

// consentAsker returns the Asker for install/update/link: --consent answers yes; without a
// terminal it fails at once naming --consent (gem never waits on a closed stdin).
func consentAsker(s *session, consent bool) func(text string) (bool, error) {
	return func(text string) (bool, error) {
		fmt.Fprint(s.stderr, termsafe.Text(text)) // names, descriptions, commands: the extension's text
		if consent {
			fmt.Fprintln(s.stderr, "Consent given with --consent.")
			return true, nil
		}
		if !s.io.IsStdinTTY() {
			return false, errors.New("cannot ask for consent: stdin is not a terminal; read the above and run again with --consent to agree")
		}
		return s.askYesNo("Do you want to continue? [Y/n] ", true)
	}
}

// askYesNo asks on stderr and reads one answer from stdin; empty takes def.
func (s *session) askYesNo(question string, def bool) (bool, error) {
	fmt.Fprint(s.stderr, question)
	line, err := s.readLine()
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
