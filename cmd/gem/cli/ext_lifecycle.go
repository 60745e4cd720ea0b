package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

func newInstaller(s *session, consent bool) *install.Installer {
	return &install.Installer{
		Env:        s.env,
		Ask:        consentAsker(s, consent),
		GemVersion: buildinfo.Version,
		Out:        s.stderr,
		Needs:      func(x *registry.Extension) registry.Grant { return commands.Needs(s.env, x) },
		Fetch: install.Fetcher{
			GitHubAPI: s.env.Getenv("GEM_GITHUB_API_URL"),
			Token:     s.env.Getenv("GITHUB_TOKEN"),
			Getenv:    s.env.Getenv,
			Progress:  s.io.Progress(),
		},
	}
}

// scopeFlag is --scope of install and link, bound to dest.
func scopeFlag(dest *string, usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "scope", Value: "user", Usage: usage, Destination: dest}
}

func scopeLevel(scope string) (registry.Level, error) {
	switch scope {
	case "", "user":
		return registry.LevelUser, nil
	case "project":
		return registry.LevelProject, nil
	default:
		return "", usagef("--scope %q: use user or project", scope)
	}
}

type extInstallOptions struct {
	Source, Ref, Scope                     string
	Consent, AutoUpdate, PreRelease, Force bool
	JSON                                   bool
}

func extInstallCommand(f *Factory) *cli.Command {
	var o extInstallOptions
	return leaf(f, &cli.Command{
		Name:      "install",
		Usage:     "install an extension from a folder, git URL, GitHub owner/repo or archive",
		ArgsUsage: "<source>",
		Description: "EXAMPLES\n" +
			"  gem ext install https://github.com/owner/repo\n" +
			"  gem ext install owner/repo --ref v1.2.0\n" +
			"  gem ext install ./my-ext.tar.gz --consent",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "git branch, tag or commit; GitHub release tag", Destination: &o.Ref},
			scopeFlag(&o.Scope, "user (~/.gemini/extensions) or project (./.gemini/extensions)"),
			consentFlag(&o.Consent),
			&cli.BoolFlag{Name: "auto-update", Usage: "record that this extension updates automatically", Destination: &o.AutoUpdate},
			&cli.BoolFlag{Name: "pre-release", Usage: "allow GitHub pre-releases", Destination: &o.PreRelease},
			&cli.BoolFlag{Name: "force", Usage: "replace an installed extension of the same name", Destination: &o.Force},
			jsonFlag(&o.JSON, "print the result as JSON"),
		},
	}, exactly(1, "a source"), func(ctx context.Context, s *session, args []string) error {
		o.Source = args[0]
		return extInstall(ctx, s, o)
	})
}

func extInstall(ctx context.Context, s *session, o extInstallOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	res, err := newInstaller(s, o.Consent).Install(ctx, o.Source, install.Options{
		Ref: o.Ref, Scope: scope, AutoUpdate: o.AutoUpdate, PreRelease: o.PreRelease, Force: o.Force,
	})
	if err != nil {
		s.log.Error("install failed", "source", o.Source, "error", err)
		return err
	}
	s.log.Info("installed", "name", res.Name, "version", res.Version, "source", res.Install.Source)
	for _, p := range res.Problems {
		s.warn("%s", p.String())
	}
	return render(s, o.JSON, res, func() error {
		_, err := fmt.Fprintf(s.stdout, "Extension %q %s installed in %s (enabled).\n", res.Name, res.Version, res.Path)
		return err
	})
}

type extUninstallOptions struct {
	Targets []string
	All     bool
}

func extUninstallCommand(f *Factory) *cli.Command {
	var o extUninstallOptions
	return leaf(f, &cli.Command{
		Name:        "uninstall",
		Usage:       "remove extensions by name or by the source they were installed from",
		ArgsUsage:   "<name|source>...",
		Description: "EXAMPLES\n  gem ext uninstall hello\n  gem ext uninstall --all",
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "remove every installed extension", Destination: &o.All}},
	}, argRule{0, -1, ""}, func(ctx context.Context, s *session, args []string) error {
		o.Targets = args
		return extUninstall(s, o)
	})
}

func extUninstall(s *session, o extUninstallOptions) error {
	if len(o.Targets) == 0 && !o.All {
		return usagef("uninstall needs extension names or sources, or --all")
	}
	in := newInstaller(s, false)
	if o.All {
		o.Targets = in.All()
	}
	removed, err := in.Uninstall(o.Targets)
	for _, n := range removed {
		fmt.Fprintf(s.stdout, "Extension %q uninstalled.\n", n)
	}
	return err
}

type enableOptions struct {
	Name, Scope string
	Enable      bool
}

func extEnableCommand(f *Factory, enable bool) *cli.Command {
	o := enableOptions{Enable: enable}
	name, usage := "enable", "enable an extension (without --scope: everywhere, removing disables that apply here)"
	if !enable {
		name, usage = "disable", "disable an extension (default scope: user)"
	}
	return leaf(f, &cli.Command{
		Name:        name,
		Usage:       usage,
		ArgsUsage:   "<name>",
		Description: "EXAMPLES\n  gem ext " + name + " hello\n  gem ext " + name + " hello --scope workspace",
		Flags:       []cli.Flag{&cli.StringFlag{Name: "scope", Usage: "user or workspace", Destination: &o.Scope}},
	}, exactly(1, "an extension name"), func(ctx context.Context, s *session, args []string) error {
		o.Name = args[0]
		return extEnable(s, o)
	})
}

func extEnable(s *session, o enableOptions) error {
	if o.Scope != "" && o.Scope != "user" && o.Scope != "workspace" {
		return usagef("--scope %q: use user or workspace", o.Scope)
	}
	where, err := newInstaller(s, false).SetEnabled(o.Name, o.Scope, o.Enable)
	if err != nil {
		return err
	}
	verb := "enabled"
	if !o.Enable {
		verb = "disabled"
	}
	fmt.Fprintf(s.stdout, "Extension %q %s %s.\n", o.Name, verb, where)
	return nil
}

type extLinkOptions struct {
	Path, Scope    string
	Consent, Force bool
}

func extLinkCommand(f *Factory) *cli.Command {
	var o extLinkOptions
	return leaf(f, &cli.Command{
		Name:        "link",
		Usage:       "install a folder by reference: changes in the folder take effect at once",
		ArgsUsage:   "<path>",
		Description: "EXAMPLES\n  gem ext link ./my-ext\n  gem ext link ./my-ext --scope project --consent",
		Flags: []cli.Flag{
			consentFlag(&o.Consent),
			scopeFlag(&o.Scope, "user or project"),
			&cli.BoolFlag{Name: "force", Usage: "replace an installed extension of the same name", Destination: &o.Force},
		},
	}, exactly(1, "the extension folder"), func(ctx context.Context, s *session, args []string) error {
		o.Path = args[0]
		return extLink(s, o)
	})
}

func extLink(s *session, o extLinkOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	res, err := newInstaller(s, o.Consent).Link(o.Path, install.Options{Scope: scope, Force: o.Force})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "Extension %q linked to %s.\n", res.Name, res.Path)
	return nil
}

type extVerifyOptions struct {
	Name string
	JSON bool
}

func extVerifyCommand(f *Factory) *cli.Command {
	var o extVerifyOptions
	return leaf(f, &cli.Command{
		Name:        "verify",
		Usage:       "check that an installed extension's files still match the hashes recorded at install",
		ArgsUsage:   "<name>",
		Description: "EXAMPLES\n  gem ext verify hello\n  gem ext verify hello --json",
		Flags:       []cli.Flag{jsonFlag(&o.JSON, "print the result as JSON")},
	}, exactly(1, "an extension name"), func(ctx context.Context, s *session, args []string) error {
		o.Name = args[0]
		return extVerify(s, o)
	})
}

func extVerify(s *session, o extVerifyOptions) error {
	changed, missing, added, err := install.Verify(s.env, o.Name)
	if err != nil {
		return err
	}
	ok := len(changed)+len(missing)+len(added) == 0
	doc := map[string]any{"name": o.Name, "ok": ok, "changed": orEmpty(changed), "missing": orEmpty(missing), "added": orEmpty(added)}
	err = render(s, o.JSON, doc, func() error {
		for _, group := range []struct {
			label string
			files []string
		}{{"changed:", changed}, {"missing:", missing}, {"added:  ", added}} {
			for _, f := range group.files {
				fmt.Fprintln(s.stdout, group.label, f)
			}
		}
		if ok {
			fmt.Fprintf(s.stdout, "Extension %q matches its install record.\n", o.Name)
		}
		return nil
	})
	if err == nil && !ok {
		return exitError{code: 1, msg: fmt.Sprintf("extension %q differs from what was installed; reinstall it (gem ext install <source> --force) if you did not change it yourself", o.Name)}
	}
	return err
}
