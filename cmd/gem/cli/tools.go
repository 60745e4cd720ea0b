package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
)

func toolsCommand() *cli.Command {
	load := func(c *cli.Context) (*runtime, *tools.Registry, error) {
		r, err := newRuntime(c)
		if err != nil {
			return nil, nil, err
		}
		d := registry.Discover(r.env, registry.Providers)
		reg, errs := tools.Load(c.Context, r.env, d, secrets.Read, r.log)
		for _, e := range errs {
			r.warn("%v", e)
		}
		return r, reg, nil
	}
	return &cli.Command{
		Name:  "tools",
		Usage: "list, describe and call the tools of enabled extensions' plugins",
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
					type row struct {
						Name        string          `json:"name"`
						Extension   string          `json:"extension"`
						Plugin      string          `json:"plugin"`
						Kind        string          `json:"kind"`
						Description string          `json:"description"`
						Streams     bool            `json:"streams"`
						Schema      json.RawMessage `json:"parameters"`
					}
					rows := []row{}
					for _, t := range reg.Tools {
						rows = append(rows, row{t.Name, t.Extension, t.Plugin, kindName(t), t.Spec.Description, t.Spec.Streams, t.Schema})
					}
					if c.Bool("json") {
						return printJSON(r, rows)
					}
					tw := tabwriter.NewWriter(r.stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "TOOL\tEXTENSION\tKIND\tDESCRIPTION")
					for _, x := range rows {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", x.Name, x.Extension, x.Kind, x.Description)
					}
					return tw.Flush()
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
					t, ok := reg.Lookup(c.Args().First())
					if !ok {
						return fmt.Errorf("no tool %q: gem tools list shows them", c.Args().First())
					}
					return printJSON(r, t.Schema)
				},
			},
			{
				Name:      "call",
				Usage:     "call a tool with JSON arguments and print its result",
				ArgsUsage: "<tool> ['<json>']",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the whole result object"}},
				Action: func(c *cli.Context) error {
					if c.NArg() < 1 || c.NArg() > 2 {
						return usagef("tools call needs a tool name and optionally JSON arguments: gem tools call <tool> '{\"k\":\"v\"}'")
					}
					r, reg, err := load(c)
					if err != nil {
						return err
					}
					defer reg.Close()
					res, err := reg.Call(c.Context, c.Args().First(), json.RawMessage(c.Args().Get(1)), func(s string) {
						if !c.Bool("json") {
							fmt.Fprintln(r.stderr, s)
						}
					})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return printJSON(r, res)
					}
					if res.Error != nil {
						return exitError{code: 1, msg: fmt.Sprintf("tool %s failed (%s): %s", c.Args().First(), res.Error.Type, res.Error.Message)}
					}
					out := res.DisplayText
					if out == "" {
						out = res.LlmText
					}
					fmt.Fprintln(r.stdout, out)
					return nil
				},
			},
		},
	}
}

func kindName(t *tools.Tool) string {
	return strings.ToLower(strings.TrimPrefix(t.Spec.Kind.String(), "KIND_"))
}
