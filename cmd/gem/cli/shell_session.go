package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"

	"github.com/gemhost/gem/sdk"
)

// sessionCommand runs a built-in conversation command (sdk.Session.RunCommand: the same
// commands gem acp advertises); false when name is none.
func (s *shell) sessionCommand(name string, args []string) bool {
	if !slices.ContainsFunc(s.commands(), func(c sdk.Command) bool { return c.Name == name && c.Source == "builtin" }) {
		return false
	}
	if !s.openAgent() {
		return true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, err := s.agent.sess.RunCommand(ctx, name, args)
	fmt.Fprint(s.sess.stdout, out)
	if errors.Is(err, sdk.ErrNoChat) {
		err = fmt.Errorf("%w: /chat list shows the saved ones", err)
	}
	if err != nil {
		fmt.Fprintln(s.sess.stderr, errorText(err))
	}
	return true
}
