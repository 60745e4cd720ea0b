package main

import (
	"fmt"
	"os"

	"github.com/gemhost/gem/cmd/gem/internal/view"
	"github.com/gemhost/gem/internal/iostreams"
	"github.com/gemhost/gem/registry"
	"golang.org/x/term"
)

// extList serves `gem ext list [--json] [--all]`; other flags go to gem-engine.
func extList(std stdio, flags []string) (int, bool) {
	var opt view.ListOptions
	noColor := false
	for _, f := range flags {
		switch f {
		case "--json", "-json":
			opt.JSON = true
		case "--all", "-all", "-a":
			opt.All = true
		case "--no-color":
			noColor = true
		default:
			return 0, false
		}
	}
	env, err := registry.EnvFromOS()
	if err != nil {
		fmt.Fprintln(std.err, "gem:", err)
		return 1, true
	}
	f, isFile := std.out.(*os.File)
	opt.Color = !noColor && iostreams.ColorWanted(isFile && term.IsTerminal(int(f.Fd())), env.Getenv)
	d := registry.DiscoverWith(env, registry.Providers, registry.Options{CheckBinaries: true})
	if err := view.List(std.out, std.err, d, opt); err != nil {
		fmt.Fprintln(std.err, "gem:", err)
		return 1, true
	}
	return 0, true
}
