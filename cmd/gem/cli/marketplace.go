package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/manifest/claude"
	"github.com/gemhost/gem/registry/install"
)

func marketplaceCommand(f *Factory) *cli.Command {
	return group("marketplace", "add, list, update and remove Claude Code plugin marketplaces (gem ext install plugin@marketplace)", []string{"marketplaces"},
		marketplaceAddCommand(f), aliased(marketplaceListCommand(f), "ls"), marketplaceInfoCommand(f),
		marketplaceUpdateCommand(f), aliased(marketplaceRemoveCommand(f), "rm"))
}

func marketplaces(s *session) *install.Marketplaces { return newFetcher(s).Marketplaces }

type marketplaceAddOptions struct {
	Source string `arg:"<source>" help:"owner/repo[@ref], a git URL, a folder, or the URL of a marketplace.json"`
	jsonOutput
}

func marketplaceAddCommand(f *Factory) *cli.Command {
	return verb(f, "add", "fetch a marketplace (its .claude-plugin/marketplace.json) and remember it", marketplaceAdd,
		"gem marketplace add anthropics/claude-code", "gem marketplace add acme/plugins@v2", "gem marketplace add ./my-marketplace",
		"gem marketplace add https://example.com/.claude-plugin/marketplace.json")
}

// marketplaceRow is one marketplace in --json.
type marketplaceRow struct {
	install.MarketplaceRecord
	Plugins []claude.MarketplacePlugin `json:"pluginList,omitempty"`
}

func marketplaceAdd(ctx context.Context, s *session, o marketplaceAddOptions) error {
	rec, m, err := marketplaces(s).Add(ctx, o.Source)
	if err != nil {
		return err
	}
	s.log.Info("marketplace added", "name", rec.Name, "source", rec.Source)
	return render(s, o.JSON, marketplaceRow{*rec, m.Plugins}, func() error {
		fmt.Fprintf(s.stdout, "Marketplace %q added from %s: %s.\n", rec.Name, rec.Source, plural.Count(len(m.Plugins), "plugin"))
		fmt.Fprintf(s.stdout, "Install one with gem ext install <plugin>@%s (gem marketplace info %s lists them).\n", rec.Name, rec.Name)
		return nil
	})
}

type marketplaceListOptions struct {
	jsonOutput
}

func marketplaceListCommand(f *Factory) *cli.Command {
	return verb(f, "list", "list the marketplaces gem knows", marketplaceList, "gem marketplace list", "gem marketplace list --json")
}

func marketplaceList(_ context.Context, s *session, o marketplaceListOptions) error {
	list, err := marketplaces(s).List()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, r := range list {
		rows = append(rows, []string{r.Name, fmt.Sprint(r.Plugins), r.Kind, r.Source, r.Updated.Local().Format(time.DateTime)})
	}
	if list == nil {
		list = []install.MarketplaceRecord{}
	}
	return render(s, o.JSON, list, func() error {
		return printTableOr(s.stdout, []string{"NAME", "PLUGINS", "KIND", "SOURCE", "UPDATED"}, rows,
			"No marketplaces: gem marketplace add <owner/repo|url|path> adds one.")
	})
}

type marketplaceInfoOptions struct {
	Name string `arg:"<name>" help:"a marketplace's name (gem marketplace list shows them)"`
	jsonOutput
}

func marketplaceInfoCommand(f *Factory) *cli.Command {
	return verb(f, "info", "show a marketplace and the plugins it lists, with where each comes from", marketplaceInfo,
		"gem marketplace info acme", "gem marketplace info acme --json | jq '.pluginList[].name'")
}

func marketplaceInfo(_ context.Context, s *session, o marketplaceInfoOptions) error {
	rec, m, err := marketplaces(s).Open(o.Name)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, p := range m.Plugins {
		rows = append(rows, []string{p.Name + "@" + rec.Name, p.Version, p.Source.String(), p.Description})
	}
	return render(s, o.JSON, marketplaceRow{*rec, m.Plugins}, func() error {
		fmt.Fprintf(s.stdout, "Marketplace %s (%s %s), owner %s, updated %s\n\n", rec.Name, rec.Kind, rec.Source, m.Owner.Name, rec.Updated.Local().Format(time.DateTime))
		return printTableOr(s.stdout, []string{"PLUGIN", "VERSION", "SOURCE", "DESCRIPTION"}, rows, "It lists no plugins.")
	})
}

type marketplaceUpdateOptions struct {
	Names []string `arg:"[name]..."`
	jsonOutput
}

func marketplaceUpdateCommand(f *Factory) *cli.Command {
	return verb(f, "update", "fetch marketplaces again (all without a name); then gem ext update installs what changed", marketplaceUpdate,
		"gem marketplace update", "gem marketplace update acme")
}

func marketplaceUpdate(ctx context.Context, s *session, o marketplaceUpdateOptions) error {
	done, err := marketplaces(s).Update(ctx, o.Names)
	if err != nil {
		return err
	}
	if done == nil {
		done = []install.MarketplaceRecord{}
	}
	return render(s, o.JSON, done, func() error {
		if len(done) == 0 {
			fmt.Fprintln(s.stdout, "No marketplaces to update: gem marketplace add adds one.")
		}
		for _, r := range done {
			fmt.Fprintf(s.stdout, "Marketplace %q updated: %s.\n", r.Name, plural.Count(r.Plugins, "plugin"))
		}
		return nil
	})
}

type marketplaceRemoveOptions struct {
	Name string `arg:"<name>" help:"a marketplace's name"`
	jsonOutput
}

func marketplaceRemoveCommand(f *Factory) *cli.Command {
	return verb(f, "remove", "forget a marketplace (plugins installed from it stay installed)", marketplaceRemove, "gem marketplace remove acme")
}

func marketplaceRemove(_ context.Context, s *session, o marketplaceRemoveOptions) error {
	if err := marketplaces(s).Remove(o.Name); err != nil {
		return err
	}
	return render(s, o.JSON, map[string]any{"name": o.Name, "removed": true}, func() error {
		_, err := fmt.Fprintf(s.stdout, "Marketplace %q removed.\n", o.Name)
		return err
	})
}
