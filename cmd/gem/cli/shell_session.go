package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/gemhost/gem/host/agent"
)

// sessionCommand runs a conversation command (agent.SlashCommands, the SDK's and gem acp's
// too); false when name is none.
func (s *shell) sessionCommand(name string, args []string) bool {
	if _, ok := agent.SlashCommandNamed(name); !ok {
		return false
	}
	if !s.openAgent() {
		return true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := s.agent.conv.RunCommand(ctx, s.sess.stdout, name, args)
	if errors.Is(err, agent.ErrNoChat) {
		err = fmt.Errorf("%w: /chat list shows the saved ones", err)
	}
	if err != nil {
		fmt.Fprintln(s.sess.stderr, errorText(err))
	}
	return true
}

// refreshContext reads the context files and skills again into the system instruction.
func (a *agentSession) refreshContext() { a.conv.ReloadContext() }

func init() {
	for _, sc := range agent.SlashCommands {
		shellBuiltins[sc.Name] = sc.Description
	}
}
