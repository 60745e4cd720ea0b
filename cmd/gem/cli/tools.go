package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
)

func toolsCommand() *cli.Command {
	load := func(c *cli.Context) (*runtime, *tools.Registry, error) {
		r, err := newRuntime(c)
		if err != nil {
			return nil, nil, err
		}
		reg, err := openRegistry(c, r, cliServices(c, r))
		return r, reg, err
	}
	return &cli.Command{
		Name:  "tools",
		Usage: "list, describe and call the tools of enabled extensions (plugins and MCP servers)",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the tools (name, extension, kind, description)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
				Action: func(c *cli.Context) error {
					r, reg, err := load(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					startMCP(c, r, reg)
					type row struct {
						Name        string          `json:"name"`
						Extension   string          `json:"extension"`
						Source      string          `json:"source"`
						Plugin      string          `json:"plugin,omitempty"`
						Server      string          `json:"mcpServer,omitempty"`
						Kind        string          `json:"kind"`
						Description string          `json:"description"`
						Streams     bool            `json:"streams"`
						Schema      json.RawMessage `json:"parameters"`
					}
					rows, table := []row{}, [][]string{}
					for _, t := range reg.List() {
						rows = append(rows, row{t.Name, t.Extension, t.Source(), t.Plugin, t.Server, t.Kind(), t.Spec.Description, t.Spec.Streams, t.Schema})
						table = append(table, []string{t.Name, t.Extension, t.Kind(), t.Spec.Description})
					}
					if c.Bool("json") {
						return printJSON(r, rows)
					}
					return printTable(r.stdout, []string{"TOOL", "EXTENSION", "KIND", "DESCRIPTION"}, table)
				},
			},
			{
				Name:      "schema",
				Usage:     "print a tool's JSON Schema",
				ArgsUsage: "<tool>",
				Action: func(c *cli.Context) error {
					if err := exactArgs(c, 1, "a tool name"); err != nil {
						return err
					}
					r, reg, err := load(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					t, ok := reg.Find(c.Context, c.Args().First())
					if !ok {
						return fmt.Errorf("no tool %q: gem tools list shows them", c.Args().First())
					}
					return printJSON(r, t.Schema)
				},
			},
			{
				Name:      "call",
				Usage:     "call a tool with JSON arguments and print its result (--batch: JSON lines on stdin)",
				ArgsUsage: "<tool> ['<json>'] | --batch",
				Description: "With --batch, each stdin line is {\"tool\": name, \"args\": {...}, \"id\": optional} and each\n" +
					"stdout line is {\"id\", \"tool\", \"result\"} or {\"id\", \"tool\", \"error\"}, in order, all in one\n" +
					"session (plugins keep their state between lines). The exit code is 1 when any line failed.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: "print the whole result object"},
					&cli.BoolFlag{Name: "batch", Usage: "read calls as JSON lines on stdin, write results as JSON lines"},
					&cli.DurationFlag{Name: "timeout", Usage: "per-call time limit (default 10m)"},
					&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve what tools ask to confirm"},
					approvalModeFlag,
				},
				Action: func(c *cli.Context) error {
					if c.Bool("batch") {
						if c.NArg() != 0 {
							return usagef("tools call --batch reads its calls from stdin and takes no arguments")
						}
						r, reg, err := load(c)
						if err != nil {
							return err
						}
						defer reg.Close()
						return runBatch(c, r, reg)
					}
					if c.NArg() < 1 || c.NArg() > 2 {
						return usagef("tools call needs a tool name and optionally JSON arguments: gem tools call <tool> '{\"k\":\"v\"}'")
					}
					r, reg, err := load(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					res, err := reg.Call(c.Context, c.Args().First(), json.RawMessage(c.Args().Get(1)), pluginsdk.CallOptions{OnUpdate: func(s string) {
						if !c.Bool("json") {
							fmt.Fprintln(r.stderr, s)
						}
					}})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						if err := printJSON(r, res); err != nil {
							return err
						}
						if res.Error != nil {
							return exitError{code: 1}
						}
						return nil
					}
					if res.Error != nil {
						return exitError{code: 1, msg: fmt.Sprintf("tool %s failed (%s): %s", c.Args().First(), res.Error.Type, res.Error.Message)}
					}
					fmt.Fprintln(r.stdout, strings.TrimRight(res.DisplayText(), "\n"))
					return nil
				},
			},
		},
	}
}

// openRegistry loads the tools of the enabled extensions for one CLI session. SIGINT and
// SIGTERM cancel c.Context's calls, stop every plugin and MCP server, and exit 130.
func openRegistry(c *cli.Context, r *runtime, services *tools.Services) (*tools.Registry, error) {
	ctx, stop := signalContext()
	c.Context = ctx
	reg, err := loadRegistry(c, r, services)
	if err != nil {
		stop()
		return nil, err
	}
	go func() {
		<-ctx.Done()
		stop()
		reg.Close()
		os.Exit(130)
	}()
	return reg, nil
}

// loadRegistry loads the registry with the session's policy, leaving signals to the caller.
func loadRegistry(c *cli.Context, r *runtime, services *tools.Services) (*tools.Registry, error) {
	d := r.discover()
	engine, err := loadPolicy(c, r, d)
	if err != nil {
		return nil, err
	}
	opts := tools.Options{ReadSecrets: secrets.Read, Logger: r.log, Services: services, Policy: engine,
		Audit: &policy.Audit{File: r.env.AuditLog()}}
	if c.IsSet("timeout") {
		opts.CallTimeout = c.Duration("timeout")
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	reg, errs := tools.Load(ctx, r.env, d, opts)
	for _, e := range errs {
		r.warn("%v", e)
	}
	return reg, nil
}

// approvalModeFlag is --approval-mode, for the verbs that call tools.
var approvalModeFlag = &cli.StringFlag{Name: "approval-mode", Value: "default", Usage: "default (ask before edit, delete, move, execute), autoEdit, yolo (trusted folders only) or plan (no changes)"}

// loadPolicy builds the policy engine of a session: the user's, the workspace's and the
// enabled extensions' policy files, in the --approval-mode.
func loadPolicy(c *cli.Context, r *runtime, d *registry.Discovery) (*policy.Engine, error) {
	mode := policy.ModeDefault
	if c.String("approval-mode") != "" {
		m, err := policy.ParseMode(c.String("approval-mode"))
		if err != nil {
			return nil, usagef("--approval-mode: %v", err)
		}
		mode = m
	}
	root := commands.Workspace(r.env)
	src := policy.Sources{
		UserFile:      r.env.UserPolicies(),
		WorkspaceFile: filepath.Join(root, ".gem", "policies.toml"),
		Extensions:    map[string]string{},
	}
	for _, x := range d.Effective() {
		if x.Active() {
			src.Extensions[x.Name] = x.Path
		}
	}
	trusted := r.env.FolderTrusted(r.env.Cwd)
	if mode == policy.ModeYolo && !trusted {
		r.warn("--approval-mode yolo applies only in a trusted folder (Gemini CLI's trustedFolders.json); %s is not, so gem asks as in default mode", root)
	}
	engine, warnings, err := policy.Load(src, mode, trusted)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	for _, w := range warnings {
		r.warn("policy: %s", w)
	}
	return engine, nil
}

// startMCP starts every MCP server, warning about each that fails.
func startMCP(c *cli.Context, r *runtime, reg *tools.Registry) {
	for _, err := range reg.StartMCP(c.Context) {
		r.warn("%v", err)
	}
}

// cliServices are the host services of a CLI session: confirmations approved by --yes, else
// asked on the terminal (/dev/tty, since --batch owns stdin) when stderr is one, else refused; progress on
// stderr; plugin logs into the log file.
func cliServices(c *cli.Context, r *runtime) *tools.Services {
	s := &tools.Services{Progress: r.stderr, Logger: r.log}
	if c.Bool("yes") {
		s.Confirm = func(string) (bool, error) { return true, nil }
		s.Ask = func(string) (policy.Answer, error) { return policy.AnswerYes, nil }
		return s
	}
	s.Ask = func(q string) (policy.Answer, error) {
		tty := questionTTY(r, q)
		if tty == nil {
			return policy.AnswerNo, nil
		}
		defer tty.Close()
		fmt.Fprintf(tty, "%s [y]es once, [a]lways this session, [s]ave always, [N]o: ", q)
		line, _ := bufio.NewReader(tty).ReadString('\n')
		return parseAnswer(line), nil
	}
	s.Confirm = func(q string) (bool, error) {
		tty := questionTTY(r, q)
		if tty == nil {
			return false, nil
		}
		defer tty.Close()
		return commands.TerminalConfirm(true, tty, tty)(q)
	}
	return s
}

// questionTTY opens the terminal to ask q on, or says why it cannot and returns nil: no
// terminal (or stderr is not one, so nobody watches) means the answer is no.
func questionTTY(r *runtime, q string) *os.File {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err == nil && !term.IsTerminal(int(os.Stderr.Fd())) {
		tty.Close()
		err = errors.New("stderr is not a terminal")
	}
	if err != nil {
		fmt.Fprintf(r.stderr, "%s\nrefused: no terminal to ask on (add --yes to approve)\n", q)
		return nil
	}
	return tty
}

// parseAnswer reads a policy answer: y once, a always this session, s always and saved to
// the user's policy file, anything else no.
func parseAnswer(line string) policy.Answer {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return policy.AnswerYes
	case "a", "always":
		return policy.AnswerAlways
	case "s", "save":
		return policy.AnswerSave
	}
	return policy.AnswerNo
}

// batchLine is one call of gem tools call --batch.
type batchLine struct {
	ID   json.RawMessage `json:"id,omitempty"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
}

type batchOut struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Tool   string          `json:"tool"`
	Result *tools.Result   `json:"result,omitempty"`
	Error  *batchError     `json:"error,omitempty"`
}

type batchError struct {
	Type    string `json:"type"` // invalid_input, invalid_arguments, denied, call_failed
	Message string `json:"message"`
}

func runBatch(c *cli.Context, r *runtime, reg *tools.Registry) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 64<<20)
	out := json.NewEncoder(r.stdout)
	out.SetEscapeHTML(false)
	failed, n := 0, 0
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		n++
		var call batchLine
		o := batchOut{}
		if err := json.Unmarshal([]byte(line), &call); err != nil || call.Tool == "" {
			msg := fmt.Sprintf("line %d: want {\"tool\": name, \"args\": {...}}", n)
			if err != nil {
				msg += ": " + err.Error()
			}
			o.Error = &batchError{Type: "invalid_input", Message: msg}
		} else {
			o.ID, o.Tool = call.ID, call.Tool
			res, err := reg.Call(c.Context, call.Tool, call.Args, pluginsdk.CallOptions{})
			switch {
			case errors.Is(err, tools.ErrInvalidArguments):
				o.Error = &batchError{Type: "invalid_arguments", Message: err.Error()}
			case errors.Is(err, tools.ErrDenied):
				o.Error = &batchError{Type: "denied", Message: err.Error()}
			case err != nil:
				o.Error = &batchError{Type: "call_failed", Message: err.Error()}
			default:
				o.Result = res
			}
		}
		if o.Error != nil || (o.Result != nil && o.Result.Error != nil) {
			failed++
		}
		if err := out.Encode(o); err != nil {
			return err
		}
	}
	if err := in.Err(); err != nil {
		return fmt.Errorf("reading calls from stdin: %w", err)
	}
	if failed > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d of %d calls failed", failed, n)}
	}
	return nil
}
