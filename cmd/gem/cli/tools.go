package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/internal/termsafe"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry/secrets"
	"github.com/gemhost/gem/sdk"
)

// callFlags are the flags of the verbs that call tools: a time limit, --yes, and the
// approval mode.
type callFlags struct {
	Timeout      time.Duration `flag:"timeout" usage:"per-call time limit"`
	Yes          bool          `flag:"yes,y" usage:"approve what the policy asks about and what tools ask to confirm"`
	ApprovalMode string        `flag:"approval-mode" usage:"default (ask before edit, delete, move, execute), auto_edit, yolo (trusted folders only) or plan (no changes); unset: settings' general.defaultApprovalMode, else default"`
}

func (o *callFlags) setDefaults() { o.Timeout = plugins.DefaultCallTimeout }

func toolsCommand(f *Factory) *cli.Command {
	return group("tools", "list, describe and call the tools of enabled extensions (plugins and MCP servers)", nil,
		aliased(toolsListCommand(f), "ls"), toolsSchemaCommand(f), toolsCallCommand(f))
}

type toolsListOptions struct {
	jsonOutput
	Refresh bool `flag:"refresh" usage:"start every MCP server to list its tools now, instead of the list cached at its last start"`
}

func toolsListCommand(f *Factory) *cli.Command {
	return verb(f, "list", "list the tools (name, extension, kind, description); MCP servers' tools come from the cache of their last start", toolsList,
		"gem tools list", "gem tools list --json | jq '.[].name'", "gem tools list --refresh")
}

// toolRow is one tool in gem tools list --json.
type toolRow struct {
	Name        string          `json:"name"`
	Extension   string          `json:"extension"`
	Source      string          `json:"source"`
	Plugin      string          `json:"plugin,omitempty"`
	Server      string          `json:"mcpServer,omitempty"`
	Kind        tools.Kind      `json:"kind"`
	Description string          `json:"description"`
	Streams     bool            `json:"streams"`
	Schema      json.RawMessage `json:"parameters"`
	Output      json.RawMessage `json:"outputSchema,omitempty"`
}

func toolsList(ctx context.Context, s *session, o toolsListOptions) error {
	reg, err := s.openTools(ctx, s.cliServices(false), callFlags{})
	if err != nil {
		return err
	}
	defer reg.Close()
	// The cache answers (servers are slow to start: npx, uvx); a server never started yet
	// starts now, and --refresh starts every one.
	if o.Refresh {
		s.startMCP(ctx, reg)
	} else if names := reg.UncachedServers(); len(names) > 0 {
		s.startMCP(ctx, reg, names...)
	}
	rows, table := []toolRow{}, [][]string{}
	for _, t := range reg.List() {
		rows = append(rows, toolRow{t.Name, t.Extension, t.Source(), t.Plugin, t.Server, t.Kind(), t.Spec.Description, t.Spec.Streams, t.Spec.InputSchema, t.Spec.OutputSchema})
		table = append(table, []string{t.Name, t.Extension, string(t.Kind()), t.Spec.Description})
	}
	return render(s, o.JSON, rows, func() error {
		return printTableOr(s.stdout, []string{"TOOL", "EXTENSION", "KIND", "DESCRIPTION"}, table,
			"No tools: no enabled extension brings a plugin or an MCP server with tools (gem ext list shows what is installed).")
	})
}

type toolsSchemaOptions struct {
	Tool string `arg:"<tool>" help:"a tool name"`
}

func toolsSchemaCommand(f *Factory) *cli.Command {
	return verb(f, "schema", "print a tool's JSON Schema", toolsSchema, "gem tools schema mcp_notes_add_note")
}

func toolsSchema(ctx context.Context, s *session, o toolsSchemaOptions) error {
	reg, err := s.openTools(ctx, s.cliServices(false), callFlags{})
	if err != nil {
		return err
	}
	defer reg.Close()
	t, ok := reg.Find(ctx, o.Tool)
	if !ok {
		return reg.UnknownTool(o.Tool)
	}
	return printJSON(s, t.Spec.InputSchema)
}

type toolsCallOptions struct {
	callFlags
	Tool string `arg:"[tool]" help:"a tool name"`
	Args string `arg:"[json]" help:"JSON arguments"`
	jsonOutput
	Batch bool `flag:"batch" usage:"read calls as JSON lines on stdin, write results as JSON lines"`
}

func toolsCallCommand(f *Factory) *cli.Command {
	cmd := verb(f, "call", "call a tool with JSON arguments and print its result (--batch: JSON lines on stdin)", toolsCallOrBatch,
		`gem tools call mcp_notes_add_note '{"title":"buy milk","body":"two litres"}'`, "gem tools call mcp_notes_list_notes --json", `printf '{"tool":"mcp_notes_list_notes"}\n' | gem tools call --batch`)
	cmd.ArgsUsage = "<tool> ['<json>'] | --batch"
	cmd.Description = "With --batch, each stdin line is {\"tool\": name, \"args\": {...}, \"id\": optional} and each\n" +
		"stdout line is {\"id\", \"tool\", \"result\"} or {\"id\", \"tool\", \"error\"}, in order, all in one\n" +
		"session (plugins keep their state between lines). The exit code is 1 when any line failed.\n\n" + cmd.Description
	return cmd
}

func toolsCallOrBatch(ctx context.Context, s *session, o toolsCallOptions) error {
	switch {
	case o.Batch && o.Tool != "":
		return usagef("tools call --batch reads its calls from stdin and takes no arguments")
	case o.Batch:
		return toolsBatch(ctx, s, o)
	case o.Tool == "":
		return usagef("tools call needs a tool name and optionally JSON arguments: gem tools call <tool> '{\"k\":\"v\"}'")
	}
	return toolsCall(ctx, s, o)
}

func toolsCall(ctx context.Context, s *session, o toolsCallOptions) error {
	reg, err := s.openTools(ctx, s.cliServices(o.Yes), o.callFlags)
	if err != nil {
		return err
	}
	defer reg.Close()
	res, err := reg.Call(ctx, o.Tool, json.RawMessage(o.Args), tools.CallOptions{OnUpdate: func(u string) {
		if !o.JSON {
			fmt.Fprintln(s.stderr, u)
		}
	}})
	if err != nil {
		return err
	}
	if o.JSON {
		if err := printJSON(s, res); err != nil {
			return err
		}
		if res.Error != nil {
			return exitError{code: 1}
		}
		return nil
	}
	if res.Error != nil {
		msg := fmt.Sprintf("tool %s failed (%s): %s", o.Tool, res.Error.Type, res.Error.Message)
		if res.Error.Sandbox != nil {
			if hint := advice.For(res.Error.Sandbox); hint != "" {
				msg += " (" + hint + ")"
			}
		}
		return exitError{code: 1, msg: msg}
	}
	fmt.Fprintln(s.stdout, termsafe.Text(strings.TrimRight(res.DisplayText(), "\n"))) // a tool's text, escaped
	return nil
}

// openTools loads the tools of the enabled extensions for one invocation, with its policy.
func (s *session) openTools(ctx context.Context, services *tools.Services, o callFlags) (*tools.Catalog, error) {
	return s.openCatalog(ctx, services, o, "")
}

// openCatalog opens the tool catalog (host/tools.OpenCatalog); coreWorkspace, for the
// model side, adds the core file tools confined to it.
func (s *session) openCatalog(ctx context.Context, services *tools.Services, o callFlags, coreWorkspace string) (*tools.Catalog, error) {
	cfg := tools.CatalogConfig{
		Env: s.env, Discovery: s.discover(), Settings: s.settings(), Environ: s.environ,
		ApprovalMode: o.ApprovalMode, Services: services, CallTimeout: o.Timeout,
		ReadSecrets: secrets.Read, Logger: s.log, CoreWorkspace: coreWorkspace, Launcher: s.launch(),
		Warn: func(err error) { s.warn("%s", errorText(err)) },
	}
	if s.io.Interactive() {
		cfg.AskWorkspace = s.askWorkspace
	}
	reg, err := tools.OpenCatalog(ctx, cfg)
	if mode, ok := errors.AsType[*sdk.ApprovalModeError](err); ok {
		return nil, usagef("--approval-mode: %v", mode)
	}
	return reg, err
}

// startMCP starts the named MCP servers (every one when none is named), saying on a
// terminal which and how long they took; failures are warnings.
func (s *session) startMCP(ctx context.Context, reg *tools.Catalog, names ...string) {
	for _, err := range s.startMCPShown(ctx, reg, names...) {
		s.warn("%s", errorText(err))
	}
}

// startMCPShown starts the named MCP servers (every one when none is named), saying on a
// terminal which and how long they took (a first npx start takes seconds); it returns
// their failures.
func (s *session) startMCPShown(ctx context.Context, reg *tools.Catalog, names ...string) []error {
	if len(names) == 0 {
		for _, srv := range reg.Servers() {
			names = append(names, srv.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	progress := s.io.IsStderrTTY()
	t0 := time.Now()
	if progress {
		fmt.Fprintf(s.stderr, "starting MCP servers: %s…\n", termsafe.Text(strings.Join(names, ", ")))
	}
	errs := reg.StartMCP(ctx, names...)
	if progress {
		fmt.Fprintf(s.stderr, "MCP servers started in %.1fs (%d failed)\n", time.Since(t0).Seconds(), len(errs))
	}
	return errs
}

// cliServices are the host services of a CLI invocation: confirmations approved by --yes,
// else asked on the terminal (/dev/tty, since --batch owns stdin) when stderr is one, else
// refused; progress on stderr; plugin logs into the log file.
func (s *session) cliServices(yes bool) *tools.Services {
	svc := &tools.Services{Progress: termsafe.Writer(s.stderr), Waiting: s.io.Progress(), Logger: s.log}
	tty := s.ttyPrompter("--yes", "approve")
	if yes {
		// The model's own questions (ask_user) need a person: --yes does not answer them.
		svc.Prompt = &prompt.Yes{Person: tty}
	} else {
		svc.Prompt = tty
	}
	return svc
}
