// Command gem-engine is gem's full command-line application; users run it through the `gem`
// front, which execs it for every verb it does not serve itself (see cmd/gem).
package main

import (
	"os"

	"github.com/gemhost/gem/cmd/gem/cli"
	"github.com/gemhost/gem/internal/iostreams"
)

func main() {
	os.Exit(cli.Main(iostreams.FromFiles(os.Stdin, os.Stdout, os.Stderr, os.Getenv), os.Args))
}
