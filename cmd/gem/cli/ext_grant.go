package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry"
)

func extGrantCommand() *cli.Command {
	return &cli.Command{
		Name:      "grant",
		Usage:     "let an extension's programs reach more than its manifest asks for (network, folders)",
		ArgsUsage: "<name>",
		Description: "Most extensions written for Gemini CLI declare no sandbox; their MCP servers (npx, uvx)\n" +
			"often need the network and a cache folder: gem ext grant context7 --network --write ~/.npm\n" +
			"Without flags it shows the grant; --revoke removes it. Grants live in $GEM_HOME/grants.json.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "network", Usage: "allow TCP (and UDP)"},
			&cli.StringSliceFlag{Name: "read", Usage: "allow reading a folder (repeat the flag)"},
			&cli.StringSliceFlag{Name: "write", Usage: "allow writing a folder (repeat the flag)"},
			&cli.BoolFlag{Name: "revoke", Usage: "remove everything granted"},
			&cli.BoolFlag{Name: "json", Usage: "print the grant as JSON"},
		},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "an extension name"); err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			name := c.Args().First()
			if _, err := registry.Discover(r.env, registry.Providers).Get(name); err != nil {
				return err
			}
			all, err := registry.Grants(r.env)
			if err != nil {
				return err
			}
			g := all[name]
			changed := c.Bool("revoke") || c.Bool("network") || len(c.StringSlice("read")) > 0 || len(c.StringSlice("write")) > 0
			if c.Bool("revoke") {
				g = registry.Grant{}
			}
			g.Network = g.Network || c.Bool("network")
			add := func(list []string, paths []string) ([]string, error) {
				for _, p := range paths {
					p = r.env.ExpandHome(p)
					if !filepath.IsAbs(p) {
						return nil, usagef("%q: give an absolute folder (or one starting with ~/)", p)
					}
					if !slices.Contains(list, p) {
						list = append(list, filepath.Clean(p))
					}
				}
				return list, nil
			}
			if g.Read, err = add(g.Read, c.StringSlice("read")); err != nil {
				return err
			}
			if g.Write, err = add(g.Write, c.StringSlice("write")); err != nil {
				return err
			}
			if changed {
				if err := registry.SetGrant(r.env, name, g); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				return printJSON(r, g)
			}
			if g.Empty() {
				fmt.Fprintf(r.stdout, "%s: nothing granted beyond its manifest\n", name)
				return nil
			}
			fmt.Fprintf(r.stdout, "%s may also:\n", name)
			if g.Network {
				fmt.Fprintln(r.stdout, "  use the network")
			}
			for _, p := range g.Read {
				fmt.Fprintf(r.stdout, "  read %s\n", p)
			}
			for _, p := range g.Write {
				fmt.Fprintf(r.stdout, "  write %s\n", p)
			}
			return nil
		},
	}
}
