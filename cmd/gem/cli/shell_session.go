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

// sessionCommand runs one of the SDK's built-in commands (the same commands gem acp
// advertises): on the session once the model side is open; before, those that need none
// (/help, /extensions…) without it, so that they work without an API key; the others open
// it. False when name is none.
func (s *shell) sessionCommand(name string, args []string) bool {
	cmds := s.commands()
	i := slices.IndexFunc(cmds, func(c sdk.Command) bool { return c.Name == name && c.Source == "builtin" })
	if i < 0 {
		return false
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var out string
	var err error
	if s.agent == nil && !cmds[i].NeedsSession {
		s.reload() // the extensions as they are now
		out, err = sdk.RunCommand(ctx, s.options(), name, args)
	} else {
		if !s.openAgent() {
			return true
		}
		out, err = s.agent.sess.RunCommand(ctx, name, args)
	}
	fmt.Fprint(s.sess.stdout, out)
	if errors.Is(err, sdk.ErrNoChat) {
		err = fmt.Errorf("%w: /chat list shows the saved ones", err)
	}
	if err != nil {
		fmt.Fprintln(s.sess.stderr, errorText(err))
	}
	return true
}
