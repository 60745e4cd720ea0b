package cli

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
)

func sandboxCommand(f *Factory) *cli.Command {
	return group("sandbox", "what the sandbox enforces for an extension's programs on this machine", nil,
		sandboxExplainCommand(f))
}

type sandboxExplainOptions struct {
	Name    string `arg:"<extension>" help:"an extension name"`
	Program string `arg:"[program]" help:"one of its commands, plugins or MCP stdio servers"`
	jsonOutput
}

func sandboxExplainCommand(f *Factory) *cli.Command {
	cmd := verb(f, "explain", "show the sandbox plan of an extension's program here: what it may read, write, connect to and run, and what enforces each", sandboxExplain,
		"gem sandbox explain tidy              # its hooks, shells and commands",
		"gem sandbox explain tidy fmt          # its MCP server, plugin or command named fmt",
		"gem sandbox explain tidy fmt --json | jq '.lines[] | select(.missing)'")
	cmd.Description = "The plan is made from what the program may do (its manifest's sandbox block, consent\n" +
		"and grants) and this machine's facts (root or not, user namespaces, Landlock ABI, seccomp,\n" +
		"Yama): each line names the layer that enforces it, or why none does here.\n\n" + cmd.Description
	return cmd
}

func sandboxExplain(_ context.Context, s *session, o sandboxExplainOptions) error {
	d := s.warnDiscovery(registry.Discover(s.env, registry.Providers))
	x, err := d.Get(o.Name)
	if err != nil {
		return err
	}
	plan, err := s.launch().Explain(x, o.Program)
	if err != nil {
		return err
	}
	return render(s, o.JSON, plan, func() error {
		plan.WriteText(termsafe.Writer(s.stdout)) // paths and names from the manifest, escaped
		return nil
	})
}
