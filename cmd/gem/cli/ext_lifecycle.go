package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

func newInstaller(r *runtime, consent bool) *install.Installer {
	var progress *os.File
	if isTerminal(os.Stderr) {
		progress = os.Stderr
	}
	in := &install.Installer{
		Env:        r.env,
		Ask:        consentAsker(r, consent),
		GemVersion: buildinfo.Version,
		Out:        r.stderr,
		Needs:      func(x *registry.Extension) registry.Grant { return commands.Needs(r.env, x) },
		Fetch: install.Fetcher{
			GitHubAPI: os.Getenv("GEM_GITHUB_API_URL"),
			Token:     os.Getenv("GITHUB_TOKEN"),
			Getenv:    os.Getenv,
		},
	}
	if progress != nil {
		in.Fetch.Progress = progress
	}
	return in
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

var consentFlag = &cli.BoolFlag{Name: "consent", Usage: "agree to the consent text without being asked (for scripts)"}

func scopeLevel(c *cli.Context) (registry.Level, error) {
	switch s := c.String("scope"); s {
	case "", "user":
		return registry.LevelUser, nil
	case "project":
		return registry.LevelProject, nil
	default:
		return "", usagef("--scope %q: use user or project", s)
	}
}

func printJSON(r *runtime, v any) error {
	enc := json.NewEncoder(r.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "<folder>", not "\u003cfolder\u003e"
	return enc.Encode(v)
}

func extInstallCommand() *cli.Command {
	return &cli.Command{
		Name:      "install",
		Usage:     "install an extension from a folder, git URL, GitHub owner/repo or archive",
		ArgsUsage: "<source>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "git branch, tag or commit; GitHub release tag"},
			&cli.StringFlag{Name: "scope", Value: "user", Usage: "user (~/.gemini/extensions) or project (./.gemini/extensions)"},
			consentFlag,
			&cli.BoolFlag{Name: "auto-update", Usage: "record that this extension updates automatically"},
			&cli.BoolFlag{Name: "pre-release", Usage: "allow GitHub pre-releases"},
			&cli.BoolFlag{Name: "force", Usage: "replace an installed extension of the same name"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "a source"); err != nil {
				return err
			}
			scope, err := scopeLevel(c)
			if err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			ctx, cancel := signalContext()
			defer cancel()
			res, err := newInstaller(r, c.Bool("consent")).Install(ctx, c.Args().First(), install.Options{
				Ref: c.String("ref"), Scope: scope, AutoUpdate: c.Bool("auto-update"), PreRelease: c.Bool("pre-release"), Force: c.Bool("force"),
			})
			if err != nil {
				r.log.Error("install failed", "source", c.Args().First(), "error", err)
				return err
			}
			r.log.Info("installed", "name", res.Name, "version", res.Version, "source", res.Install.Source)
			for _, p := range res.Problems {
				r.warn("%s", p.String())
			}
			if c.Bool("json") {
				return printJSON(r, res)
			}
			fmt.Fprintf(r.stdout, "Extension %q %s installed in %s (enabled).\n", res.Name, res.Version, res.Path)
			return nil
		},
	}
}

func extUninstallCommand() *cli.Command {
	return &cli.Command{
		Name:      "uninstall",
		Usage:     "remove extensions by name or by the source they were installed from",
		ArgsUsage: "<name|source>...",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "remove every installed extension"}},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 && !c.Bool("all") {
				return usagef("uninstall needs extension names or sources, or --all")
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			in := newInstaller(r, false)
			targets := c.Args().Slice()
			if c.Bool("all") {
				targets = in.All()
			}
			removed, err := in.Uninstall(targets)
			for _, n := range removed {
				fmt.Fprintf(r.stdout, "Extension %q uninstalled.\n", n)
			}
			return err
		},
	}
}

func extUpdateCommand() *cli.Command {
	return &cli.Command{
		Name:      "update",
		Usage:     "update extensions from their sources (the installed version stays until the new one is in place)",
		ArgsUsage: "[<name>...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "update every installed extension"},
			&cli.BoolFlag{Name: "auto", Usage: "update the extensions installed with --auto-update, without asking (for cron or shell start-up); one whose consent changed is skipped"},
			&cli.BoolFlag{Name: "dry-run", Usage: "only say what would be updated"},
			&cli.BoolFlag{Name: "rollback", Usage: "put back the version the last update replaced"},
			consentFlag,
			&cli.BoolFlag{Name: "json", Usage: "print the results as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 && !c.Bool("all") && !c.Bool("auto") {
				return usagef("update needs extension names, --all or --auto")
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			in := newInstaller(r, c.Bool("consent"))
			names := c.Args().Slice()
			switch {
			case c.Bool("all"):
				names = in.All()
			case c.Bool("auto"):
				names = in.AutoUpdating()
				in.Ask = func(text string) (bool, error) {
					return false, fmt.Errorf("what it brings changed, so it needs your consent: run gem ext update <name>")
				}
			}
			ctx, cancel := signalContext()
			defer cancel()
			var results []*install.Result
			failed := 0
			for _, n := range names {
				var res *install.Result
				var err error
				if c.Bool("rollback") {
					res, err = in.Rollback(n)
				} else {
					res, err = in.Update(ctx, n, install.Options{DryRun: c.Bool("dry-run")})
				}
				if err != nil {
					failed++
					res = &install.Result{Name: n, Status: "failed", Error: err.Error()}
					r.log.Error("update failed", "name", n, "error", err)
				}
				results = append(results, res)
			}
			if c.Bool("json") {
				if err := printJSON(r, results); err != nil {
					return err
				}
			} else {
				for _, res := range results {
					switch res.Status {
					case "updated":
						fmt.Fprintf(r.stdout, "%s: updated %s -> %s\n", res.Name, res.Previous, res.Version)
					case "rolled-back":
						fmt.Fprintf(r.stdout, "%s: rolled back %s -> %s\n", res.Name, res.Previous, res.Version)
					case "would-update":
						fmt.Fprintf(r.stdout, "%s: update available (%s -> %s)\n", res.Name, res.Previous, res.Version)
					case "failed":
						fmt.Fprintf(r.stderr, "%s: update failed: %s\n", res.Name, res.Error)
					default:
						fmt.Fprintf(r.stdout, "%s: up to date (%s)\n", res.Name, res.Version)
					}
				}
			}
			if failed > 0 {
				return exitError{code: 1, msg: fmt.Sprintf("%d of %d update(s) failed; the installed versions were kept", failed, len(names))}
			}
			return nil
		},
	}
}

func extEnableCommand(enable bool) *cli.Command {
	name, usage := "enable", "enable an extension (without --scope: everywhere, removing disables that apply here)"
	if !enable {
		name, usage = "disable", "disable an extension (default scope: user)"
	}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "<name>",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "scope", Usage: "user or workspace"}},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "an extension name"); err != nil {
				return err
			}
			if s := c.String("scope"); s != "" && s != "user" && s != "workspace" {
				return usagef("--scope %q: use user or workspace", s)
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			where, err := newInstaller(r, false).SetEnabled(c.Args().First(), c.String("scope"), enable)
			if err != nil {
				return err
			}
			fmt.Fprintf(r.stdout, "Extension %q %sd %s.\n", c.Args().First(), name, where)
			return nil
		},
	}
}

func extLinkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "install a folder by reference: changes in the folder take effect at once",
		ArgsUsage: "<path>",
		Flags: []cli.Flag{
			consentFlag,
			&cli.StringFlag{Name: "scope", Value: "user", Usage: "user or project"},
			&cli.BoolFlag{Name: "force", Usage: "replace an installed extension of the same name"},
		},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "the extension folder"); err != nil {
				return err
			}
			scope, err := scopeLevel(c)
			if err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			res, err := newInstaller(r, c.Bool("consent")).Link(c.Args().First(), install.Options{Scope: scope, Force: c.Bool("force")})
			if err != nil {
				return err
			}
			fmt.Fprintf(r.stdout, "Extension %q linked to %s.\n", res.Name, res.Path)
			return nil
		},
	}
}

func extVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check that an installed extension's files still match the hashes recorded at install",
		ArgsUsage: "<name>",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "an extension name"); err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			name := c.Args().First()
			changed, missing, added, err := install.Verify(r.env, name)
			if err != nil {
				return err
			}
			ok := len(changed)+len(missing)+len(added) == 0
			if c.Bool("json") {
				if err := printJSON(r, map[string]any{"name": name, "ok": ok, "changed": nz(changed), "missing": nz(missing), "added": nz(added)}); err != nil {
					return err
				}
			} else {
				for _, f := range changed {
					fmt.Fprintln(r.stdout, "changed:", f)
				}
				for _, f := range missing {
					fmt.Fprintln(r.stdout, "missing:", f)
				}
				for _, f := range added {
					fmt.Fprintln(r.stdout, "added:  ", f)
				}
				if ok {
					fmt.Fprintf(r.stdout, "Extension %q matches its install record.\n", name)
				}
			}
			if !ok {
				return exitError{code: 1, msg: fmt.Sprintf("extension %q differs from what was installed; reinstall it (gem ext install <source> --force) if you did not change it yourself", name)}
			}
			return nil
		},
	}
}

func nz(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
