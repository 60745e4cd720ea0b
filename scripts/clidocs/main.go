// Command clidocs writes gem's command-line reference (cmd/gem/cli.Reference) into a folder,
// replacing the gem*.md files there: `make docs` runs it as `go generate ./cmd/gem/cli`.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemhost/gem/cmd/gem/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: clidocs <folder>")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "clidocs:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "gem*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for name, data := range cli.Reference() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
