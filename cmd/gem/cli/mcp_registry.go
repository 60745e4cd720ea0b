package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/registry/install"
	"github.com/gemhost/gem/registry/mcpregistry"
)

type mcpSearchOptions struct {
	Text  string `arg:"<text>" help:"words of the server's name"`
	Limit int    `flag:"limit" usage:"at most this many servers"`
	jsonOutput
}

func (o *mcpSearchOptions) setDefaults() { o.Limit = 30 }

func mcpSearchCommand(f *Factory) *cli.Command {
	return verb(f, "search", "search the MCP registry (GEM_MCP_REGISTRY_URL) for servers gem mcp install installs", mcpSearch,
		"gem mcp search weather", "gem mcp search github --limit 5 --json")
}

// mcpSearchRow is one server in gem mcp search --json.
type mcpSearchRow struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Kinds       []string `json:"kinds"`
}

func mcpSearch(ctx context.Context, s *session, o mcpSearchOptions) error {
	limit := o.Limit
	if limit <= 0 {
		limit = 30
	}
	found, err := newFetcher(s).MCPRegistry.Search(ctx, o.Text, limit)
	if err != nil {
		return err
	}
	rows, table := []mcpSearchRow{}, [][]string{}
	for _, r := range found {
		kinds := mcpregistry.Kinds(&r.Server)
		rows = append(rows, mcpSearchRow{r.Server.Name, r.Server.Version, r.Server.Description, kinds})
		table = append(table, []string{r.Server.Name, r.Server.Version, strings.Join(kinds, ","), r.Server.Description})
	}
	return render(s, o.JSON, rows, func() error {
		return printTableOr(s.stdout, []string{"NAME", "VERSION", "RUNS AS", "DESCRIPTION"}, table,
			fmt.Sprintf("No server of the MCP registry matches %q.", o.Text))
	})
}

type mcpInstallOptions struct {
	Server       string `arg:"<name[@version]>" help:"a server's name in the registry (gem mcp search finds it)"`
	SkipSettings bool   `flag:"skip-settings" usage:"do not ask for the server's inputs now (gem ext config sets them later)"`
	Prefetch     bool   `flag:"prefetch" usage:"start its npx/uvx server now, so it downloads what it runs before the first request"`
	placement
	jsonOutput
}

func mcpInstallCommand(f *Factory) *cli.Command {
	return verb(f, "install", "install a server of the MCP registry as an extension (npm, pypi, oci, mcpb packages; remote servers)", mcpInstall,
		"gem mcp install io.github.acme/weather", "gem mcp install io.github.acme/weather@1.2.0 --consent")
}

func mcpInstall(ctx context.Context, s *session, o mcpInstallOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	name, ver, _ := strings.Cut(o.Server, "@")
	if !strings.Contains(name, "/") {
		return usagef("%q: a registry server's name has a namespace, like io.github.owner/name (gem mcp search finds it)", name)
	}
	in := newInstaller(s, o.Consent)
	fetcher := in.Sources.(*install.Fetcher)
	src := &install.MCPRegistrySource{Fetcher: fetcher, Client: fetcher.MCPRegistry, Name: name, Version: ver}
	allow, err := allowed(s, o.Allow)
	if err != nil {
		return err
	}
	res, err := in.InstallSource(ctx, src, install.Options{Ref: ver, Scope: scope, Force: o.Force, Allow: allow})
	if err != nil {
		s.log.Error("mcp install failed", "server", o.Server, "error", err)
		return err
	}
	return installed(ctx, s, res, extInstallOptions{SkipSettings: o.SkipSettings, Prefetch: o.Prefetch, placement: o.placement, jsonOutput: o.jsonOutput})
}
