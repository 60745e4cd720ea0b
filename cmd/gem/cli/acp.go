package cli

import (
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/sdk"
	"github.com/gemhost/gem/sdk/acp"
)

type acpOptions struct {
	Model        string `flag:"model" usage:"the model of new sessions (default: the settings' model.name, else gem's)"`
	ApprovalMode string `flag:"approval-mode" usage:"the mode sessions start in: default, auto_edit, yolo (trusted folders only) or plan"`
}

func acpCommand(f *Factory) *cli.Command {
	cmd := verb(f, "acp", "serve gem's agent to an editor over the Agent Client Protocol (stdio)", acpServe,
		`gem acp                 # what an editor starts: Zed's agent_servers {"gem": {"command": "gem", "args": ["acp"]}}`,
		`acpx --agent "gem acp" exec "what does this project do?"`)
	cmd.Description = "gem acp speaks ACP v1 (JSON-RPC on stdin and stdout, one message per line) until stdin\n" +
		"closes. Each session is gem's agent for its folder: extensions, settings, policy and\n" +
		"sandbox as gem -p has them (an untrusted folder gets no project configuration), plus\n" +
		"the MCP servers the editor gives, sandboxed. The policy's questions become permission\n" +
		"requests; modes default, autoEdit, yolo and plan; sessions are gem's own (gem sessions\n" +
		"lists them; session/load replays one started with gem -p). Logs go to ~/.gem/logs.\n\n" + cmd.Description
	return cmd
}

func acpServe(ctx context.Context, s *session, o acpOptions) error {
	// the protocol library's diagnostics, into gem's log
	logger := slog.New(slog.NewTextHandler(s.log.Named("acp").StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true}), nil))
	// Telemetry as gem -p has it (the settings of the folder gem acp started in): every
	// session's turns, calls and launches, flushed when the client closes the connection.
	exporter, err := startTelemetry(ctx, s)
	if err != nil {
		return err
	}
	defer stopTelemetry(s, exporter)
	return acp.Serve(ctx, s.io.In, s.stdout, acp.Options{
		Name: "gem", Version: buildinfo.Version, Logger: logger,
		Models: []string{sdk.DefaultModel},
		Agent:  sdk.Options{Model: sdk.Gemini(o.Model, nil), ApprovalMode: o.ApprovalMode, Getenv: s.env.Getenv},
	})
}
