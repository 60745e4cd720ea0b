package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gemhost/gem/internal/view"
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
	opt.Color = !noColor && colorWanted(std)
	d := registry.DiscoverWith(env, registry.Providers, registry.Options{CheckBinaries: true})
	if err := view.List(std.out, std.err, d, opt); err != nil {
		fmt.Fprintln(std.err, "gem:", err)
		return 1, true
	}
	return 0, true
}

// colorWanted is iostreams' rule without linking it: stdout a terminal or CLICOLOR_FORCE
// set (not "0"), and NO_COLOR unset.
func colorWanted(std stdio) bool {
	get := func(name string) string {
		for _, kv := range std.environ {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				return v
			}
		}
		return ""
	}
	if get("NO_COLOR") != "" {
		return false
	}
	force := get("CLICOLOR_FORCE")
	f, isFile := std.out.(*os.File)
	return force != "" && force != "0" || isFile && term.IsTerminal(int(f.Fd()))
}
