package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry/install"
)

type extUpdateOptions struct {
	Names                                      []string
	All, Auto, DryRun, Rollback, Consent, JSON bool
}

func extUpdateCommand(f *Factory) *cli.Command {
	var o extUpdateOptions
	return leaf(f, &cli.Command{
		Name:      "update",
		Usage:     "update extensions from their sources (the installed version stays until the new one is in place)",
		ArgsUsage: "[<name>...]",
		Description: "EXAMPLES\n" +
			"  gem ext update hello\n" +
			"  gem ext update --all --dry-run\n" +
			"  gem ext update hello --rollback",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "update every installed extension", Destination: &o.All},
			&cli.BoolFlag{Name: "auto", Usage: "update the extensions installed with --auto-update, without asking (for cron or shell start-up); one whose consent changed is skipped", Destination: &o.Auto},
			&cli.BoolFlag{Name: "dry-run", Usage: "only say what would be updated", Destination: &o.DryRun},
			&cli.BoolFlag{Name: "rollback", Usage: "put back the version the last update replaced", Destination: &o.Rollback},
			consentFlag(&o.Consent),
			jsonFlag(&o.JSON, "print the results as JSON"),
		},
	}, argRule{0, -1, ""}, func(ctx context.Context, s *session, args []string) error {
		o.Names = args
		return extUpdate(ctx, s, o)
	})
}

func extUpdate(ctx context.Context, s *session, o extUpdateOptions) error {
	if len(o.Names) == 0 && !o.All && !o.Auto {
		return usagef("update needs extension names, --all or --auto")
	}
	in := newInstaller(s, o.Consent)
	names := o.Names
	switch {
	case o.All:
		names = in.All()
	case o.Auto:
		names = in.AutoUpdating()
		in.Ask = func(text string) (bool, error) { return false, install.ErrConsentNeeded }
	}
	var results []*install.Result
	failed := 0
	for _, n := range names {
		var res *install.Result
		var err error
		if o.Rollback {
			res, err = in.Rollback(n)
		} else {
			res, err = in.Update(ctx, n, install.Options{DryRun: o.DryRun})
		}
		if err != nil {
			failed++
			res = &install.Result{Name: n, Status: install.StatusFailed, Error: errorText(err)}
			s.log.Error("update failed", "name", n, "error", err)
		}
		results = append(results, res)
	}
	err := render(s, o.JSON, results, func() error {
		for _, res := range results {
			printUpdate(s, res)
		}
		return nil
	})
	if err == nil && failed > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d of %d update(s) failed; the installed versions were kept", failed, len(names))}
	}
	return err
}

func printUpdate(s *session, res *install.Result) {
	switch res.Status {
	case install.StatusUpdated:
		fmt.Fprintf(s.stdout, "%s: updated %s -> %s\n", res.Name, res.Previous, res.Version)
	case install.StatusRolledBack:
		fmt.Fprintf(s.stdout, "%s: rolled back %s -> %s\n", res.Name, res.Previous, res.Version)
	case install.StatusWouldUpdate:
		fmt.Fprintf(s.stdout, "%s: update available (%s -> %s)\n", res.Name, res.Previous, res.Version)
	case install.StatusFailed:
		fmt.Fprintf(s.stderr, "%s: update failed: %s\n", res.Name, res.Error)
	default:
		fmt.Fprintf(s.stdout, "%s: up to date (%s)\n", res.Name, res.Version)
	}
}
