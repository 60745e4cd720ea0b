// Package view renders results for both gem binaries (the light `gem` front and the
// urfave/cli `gem-engine`), so a verb prints the same bytes whichever binary serves it.
package view

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/gemhost/gem/internal/termsafe"

	"github.com/gemhost/gem/registry"
)

// ExtensionJSON is one entry of `gem ext list --json`.
type ExtensionJSON struct {
	Name         string         `json:"name"`
	Version      string         `json:"version"`
	Description  string         `json:"description"`
	Path         string         `json:"path"`
	InstallPath  string         `json:"installPath"`
	ManifestPath string         `json:"manifestPath"`
	Level        registry.Level `json:"level"`
	Provider     string         `json:"provider"`
	ProviderName string         `json:"providerName"`
	Enabled      bool           `json:"enabled"`
	EnabledBy    string         `json:"enabledBy"`
	Shadowed     bool           `json:"shadowed"`
	ShadowedBy   string         `json:"shadowedBy,omitempty"`
	Conflict     bool           `json:"conflict,omitempty"` // a project extension named like a user one
	Blocked      string         `json:"blocked,omitempty"`  // why its programs do not run here
}

// Extension converts a discovered extension to its JSON view.
func Extension(x *registry.Extension) ExtensionJSON {
	j := ExtensionJSON{
		Name: x.Name, Path: x.Path, InstallPath: x.Dir, ManifestPath: x.ManifestPath,
		Level: x.Level, Provider: x.Provider.ID, ProviderName: x.Provider.Name,
		Enabled: x.Enabled, EnabledBy: x.EnabledBy, Shadowed: x.Shadowed,
		Version: x.Version, Description: x.Description, Conflict: x.Conflict, Blocked: string(x.Blocked),
	}
	if x.ShadowedBy != nil {
		j.ShadowedBy = x.ShadowedBy.ManifestPath
	}
	return j
}

// ListOptions choose what `gem ext list` prints.
type ListOptions struct {
	JSON  bool
	All   bool // include shadowed extensions
	Color bool // colour the states (stdout is a terminal, or CLICOLOR_FORCE; not NO_COLOR)
}

// ANSI colours, all codes of the same length so that coloured cells stay aligned in a
// tabwriter table.
const (
	Green  = "\x1b[32m"
	Yellow = "\x1b[33m"
	Red    = "\x1b[31m"
	Gray   = "\x1b[90m"
	reset  = "\x1b[0m"
)

// Paint wraps s in colour when on is true.
func Paint(on bool, colour, s string) string {
	if !on {
		return s
	}
	return colour + s + reset
}

// StateColour is the colour of a State: enabled green, disabled yellow, shadowed and
// conflict gray, blocked red.
func StateColour(state string) string {
	switch state {
	case "enabled":
		return Green
	case "disabled":
		return Yellow
	case "shadowed", "conflict":
		return Gray
	}
	return Red
}

// List prints the extensions of d to w (warnings go to errw).
func List(w, errw io.Writer, d *registry.Discovery, opt ListOptions) error {
	for _, warn := range d.Warnings {
		fmt.Fprintln(errw, "warning:", warn)
	}
	for _, x := range d.All {
		if !x.Shadowed && x.Enabled {
			for _, warn := range x.BinaryWarnings {
				fmt.Fprintln(errw, "warning:", warn)
			}
		}
	}
	items := d.All
	if !opt.All {
		items = d.Effective()
	}
	if opt.JSON {
		if len(items) == 0 {
			_, err := io.WriteString(w, "[]\n")
			return err
		}
		bw := bufio.NewWriterSize(w, 32<<10)
		jw := &jsonWriter{w: bw, buf: make([]byte, 0, 1024)}
		bw.WriteByte('[')
		for i, x := range items {
			e := Extension(x)
			if err := jw.object(&e, i == 0); err != nil {
				return err
			}
		}
		bw.WriteString("\n]\n")
		return bw.Flush()
	}
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, "No extensions installed: install one with gem ext install <path|git-url|owner/repo>.")
		return err
	}
	rows := [][]string{{"NAME", "VERSION", "STATE", "LEVEL", "PROVIDER", "PATH"}}
	for _, x := range items {
		st := x.State()
		// The manifest's strings are the extension's: escaped before gem's own colour.
		rows = append(rows, []string{termsafe.Cell(x.Name), dash(termsafe.Cell(x.Version)), Paint(opt.Color, StateColour(st), st), string(x.Level), x.Provider.ID, termsafe.Cell(x.Path)})
	}
	return WriteTable(w, rows)
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
