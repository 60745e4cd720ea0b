package commands

import "github.com/gemhost/gem/registry"

// Row is an extension command as gem commands (--json) and the /commands slash command
// list it, its binary resolved.
type Row struct {
	Name           string   `json:"name"`
	Qualified      string   `json:"qualifiedName"`
	Extension      string   `json:"extension"`
	Description    string   `json:"description"`
	Subcommands    []string `json:"subcommands"`
	RequireConfirm bool     `json:"requireConfirm"`
	Binary         string   `json:"binary,omitempty"`
	PlatformRule   string   `json:"platformRule,omitempty"`
	State          string   `json:"state"` // ready, unavailable
	Error          string   `json:"error,omitempty"`
}

// Rows are the table's commands with their binaries resolved for env (Error says why one is
// unavailable).
func (t *Table) Rows(env registry.Env) []Row {
	var rows []Row
	for _, e := range t.Entries {
		x := e.Extension
		c := x.Manifest().Command(e.Declared)
		if c == nil {
			continue
		}
		row := Row{Name: e.Name, Qualified: e.Qualified(), Extension: x.Name, State: "ready", Subcommands: []string{},
			Description: c.Description, RequireConfirm: c.RequireConfirm}
		if c.Subcommands != nil {
			row.Subcommands = c.Subcommands
		}
		if b, err := x.ResolveBinary(env, "command", e.Name, c.Binary); err != nil {
			row.State, row.Error = "unavailable", err.Error()
		} else {
			row.Binary, row.PlatformRule = b.Path, b.Platform.Rule
		}
		rows = append(rows, row)
	}
	return rows
}
