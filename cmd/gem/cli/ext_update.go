package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/view"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry/install"
)

type extUpdateOptions struct {
	Names    []string `arg:"[name]..."`
	All      bool     `flag:"all" usage:"update every installed extension"`
	Auto     bool     `flag:"auto" usage:"update the extensions installed with --auto-update, without asking (for cron or shell start-up); one whose consent changed is skipped"`
	DryRun   bool     `flag:"dry-run" usage:"only say what would be updated"`
	Rollback bool     `flag:"rollback" usage:"put back the version the last update replaced"`
	Consent  bool     `flag:"consent" usage:"agree to the consent text without being asked (for scripts)"`
	Locked   bool     `flag:"locked" usage:"update to exactly what gem.lock pins (of the extension's scope), failing on any difference"`
	// SkipSettings: settings a new version adds are asked on a terminal unless this is set.
	SkipSettings bool `flag:"skip-settings" usage:"do not ask for settings the new version adds (gem ext config sets them later)"`
	jsonOutput
}

func extUpdateCommand(f *Factory) *cli.Command {
	return verb(f, "update", "update extensions from their sources (the installed version stays until the new one is in place)", extUpdate,
		"gem ext update hello", "gem ext update --all --dry-run", "gem ext update hello --rollback")
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
		in.Unattended = true
	}
	var results []*install.Result
	failed := 0
	for _, n := range names {
		var res *install.Result
		var err error
		if o.Rollback {
			res, err = in.Rollback(n)
		} else {
			res, err = in.Update(ctx, n, install.Options{DryRun: o.DryRun, Strict: o.Locked})
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
	if err == nil && !o.JSON && !o.Auto {
		for _, res := range results {
			if res.Status == install.StatusUpdated {
				askSettings(s, res.Name, o.SkipSettings)
			}
		}
	}
	if err == nil && failed > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d of %s failed; the installed versions were kept", failed, plural.Count(len(names), "update"))}
	}
	return err
}

func printUpdate(s *session, res *install.Result) {
	switch res.Status {
	case install.StatusUpdated:
		fmt.Fprintf(s.stdout, "%s: %s %s -> %s\n", res.Name, view.Paint(s.io.ColorEnabled(), view.Green, "updated"), termsafe.Text(res.Previous), termsafe.Text(res.Version))
	case install.StatusRolledBack:
		fmt.Fprintf(s.stdout, "%s: rolled back %s -> %s\n", res.Name, termsafe.Text(res.Previous), termsafe.Text(res.Version))
	case install.StatusWouldUpdate:
		fmt.Fprintf(s.stdout, "%s: %s (%s -> %s)\n", res.Name, view.Paint(s.io.ColorEnabled(), view.Yellow, "update available"), termsafe.Text(res.Previous), termsafe.Text(res.Version))
	case install.StatusFailed:
		fmt.Fprintf(s.stderr, "%s: update failed: %s\n", res.Name, termsafe.Text(res.Error))
	default:
		fmt.Fprintf(s.stdout, "%s: up to date (%s)\n", res.Name, termsafe.Text(res.Version))
	}
}
