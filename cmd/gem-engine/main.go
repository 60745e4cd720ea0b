// Command gem-engine is gem's full command-line application; users run it through the `gem`
// front, which execs it for every verb it does not serve itself (see cmd/gem).
package main

import (
	"os"

	"github.com/gemhost/gem/cmd/gem/cli"
)

func main() { os.Exit(cli.Main(os.Args)) }
