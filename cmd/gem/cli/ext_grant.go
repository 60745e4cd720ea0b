package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/registry"
)

type extGrantOptions struct {
	Name      string   `arg:"<name>" help:"an extension name"`
	Network   bool     `flag:"network" usage:"allow TCP (and UDP)"`
	Workspace bool     `flag:"workspace" usage:"allow changing files in the project it runs in and committing to git (never git's config or hooks, agent or editor settings)"`
	Read      []string `flag:"read" usage:"allow reading a folder (repeat the flag)"`
	Write     []string `flag:"write" usage:"allow writing a folder (repeat the flag)"`
	Revoke    bool     `flag:"revoke" usage:"remove everything granted"`
	jsonOutput
}

func extGrantCommand(f *Factory) *cli.Command {
	cmd := verb(f, "grant", "let an extension's programs reach more than its manifest asks for (network, folders)", extGrant,
		"gem ext grant context7 --network --write ~/.npm", "gem ext grant hello --workspace", "gem ext grant context7", "gem ext grant context7 --revoke")
	cmd.Description = "Most extensions written for Gemini CLI declare no sandbox; their MCP servers (npx, uvx)\n" +
		"often need the network and a cache folder; a program that edits your project needs\n" +
		"--workspace, which commits to git too (git's config and hooks and agent settings stay closed). Without flags it shows the grant; --revoke\n" +
		"removes it. Grants live in $GEM_HOME/grants.json.\n\n" + cmd.Description
	return cmd
}

func extGrant(_ context.Context, s *session, o extGrantOptions) error {
	x, err := registry.Discover(s.env, registry.Providers).Get(o.Name)
	if err != nil {
		return err
	}
	// A grant made for another extension of this name (gone since) is not this one's.
	g, _, err := registry.GrantFor(s.env, x)
	if err != nil {
		return err
	}
	if o.Revoke {
		g = registry.Grant{}
	}
	g.Network = g.Network || o.Network
	g.Workspace = g.Workspace || o.Workspace
	if g.Read, err = addFolders(s, "--read", g.Read, o.Read); err != nil {
		return err
	}
	if g.Write, err = addFolders(s, "--write", g.Write, o.Write); err != nil {
		return err
	}
	if o.Revoke || o.Network || o.Workspace || len(o.Read) > 0 || len(o.Write) > 0 {
		// Each folder named now is recorded as it is now (its real path and identity), the
		// others as when granted: a start refuses one replaced since (registry.GrantRoot).
		g.Roots = slices.DeleteFunc(g.Roots, func(r registry.Root) bool {
			return slices.ContainsFunc(append(slices.Clone(o.Read), o.Write...), func(p string) bool { return filepath.Clean(s.env.ExpandHome(p)) == r.Asked })
		})
		g, _ = g.WithRoots(s.env)
		if !g.Empty() {
			g.For = registry.TargetOf(x) // for this extension, not the next one of its name
		}
		if err := registry.SetGrant(s.env, o.Name, g); err != nil {
			return err
		}
	}
	return render(s, o.JSON, g, func() error {
		if g.Empty() {
			fmt.Fprintf(s.stdout, "%s: nothing granted beyond its manifest\n", o.Name)
			if old, ok := registry.UnboundGrant(s.env, o.Name); ok && !o.Revoke {
				fmt.Fprintf(s.stdout, "An older grant names %s but not which extension it was for, so it is not applied:\n", o.Name)
				for _, line := range old.Lines("") {
					fmt.Fprintf(s.stdout, "  %s\n", line)
				}
				fmt.Fprintf(s.stdout, "Make it again for this one with: gem ext grant %s %s\n", o.Name, advice.GrantFlags(old, s.env.Home))
			}
			return nil
		}
		fmt.Fprintf(s.stdout, "%s may also:\n", o.Name)
		for _, line := range g.Lines("") {
			fmt.Fprintf(s.stdout, "  %s\n", line)
		}
		return nil
	})
}

// homeRisk is what a program given the whole home folder by flag could do there.
var homeRisk = map[string]string{
	"--read":  "a program that may read all of it could read your keys and tokens (~/.ssh, ~/.config)",
	"--write": "a program that may write all of it could change your shell's startup files, git config and PATH",
}

// addFolders adds the absolute (or ~/) folders given with flag (--read, --write) to list,
// once each; a refused one is named with its flag.
func addFolders(s *session, flag string, list, paths []string) ([]string, error) {
	for _, p := range paths {
		p = s.env.ExpandHome(p)
		if !filepath.IsAbs(p) {
			return nil, usagef("%s %q: give an absolute folder (or one starting with ~/)", flag, p)
		}
		p = filepath.Clean(p)
		if pathx.Within("/proc", p) || pathx.Within("/sys", p) {
			// A path there names what it is only for the process that looks (/proc/self):
			// recorded for gem's, it would be another file at every start.
			return nil, usagef("%s %s: /proc and /sys are the kernel's views of processes and devices, not folders: grant the folder the extension needs", flag, p)
		}
		if commands.HoldsHome(s.env, p) {
			return nil, usagef("%s %s: %s holds your home folder: grant the folders inside it the extension needs (%s)", flag, p, p, homeRisk[flag])
		}
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list, nil
}
