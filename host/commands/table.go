// Package commands owns executable slash commands: the command table
// built from enabled extensions with its naming and conflict rules, and preparing a run
// (binary resolution with the traversal checks, sha256 verification with a cache,
// environment, working folder, confirmation). It is on the hot path of `gem run`, so it
// imports nothing heavy.
//
// Choices where the spec is silent:
//   - Built-in names are the shell's: help, extensions, commands, quit, exit, clear, history.
//   - A command of a disabled extension is not in the table; asking for it says which rule
//     disabled it and how to enable it.
//   - Besides the spec's variables, a command gets GEM_BIN, the path of the gem binary that
//     runs it, so it can call gem back.
//   - The sha256 check is cached per binary by inode, size, modification and change time in
//     $GEM_HOME/cache/binhash.
package commands

import (
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/internal/suggest"
	"github.com/gemhost/gem/registry"
)

// Builtins are the shell's own commands; extension commands never take these names.
var Builtins = []string{"help", "extensions", "commands", "quit", "exit", "clear", "history"}

// Entry is one command in the table.
type Entry struct {
	Name      string              // the name to call it by (maybe "<extension>:<command>")
	Declared  string              // the name in the manifest
	Extension *registry.Extension // its extension
	Renamed   bool                // renamed because of a conflict
}

// Qualified is "<extension>:<command>", which always works.
func (e *Entry) Qualified() string { return e.Extension.Name + ":" + e.Declared }

// Dotted is "<extension>.<command>", Gemini CLI's name for an extension command whose name
// a built-in command has (the shell shows it so); it always works too.
func (e *Entry) Dotted() string { return e.Extension.Name + "." + e.Declared }

// Table is the command table of one discovery.
type Table struct {
	Warnings []string          // discovery's (an unreadable manifest or enablement file)
	Entries  []*Entry          // sorted by name
	byName   map[string]*Entry // names and qualified names
	disabled map[string]*registry.Extension
	found    *registry.Discovery // what it was built from (Program's ProgramSpec.Found)
}

// NewTable builds the table from the effective, enabled extensions of d. Command names come
// from discovery's head (or index); no manifest is parsed.
func NewTable(d *registry.Discovery) *Table {
	t := &Table{Warnings: d.Warnings, byName: map[string]*Entry{}, disabled: map[string]*registry.Extension{}, found: d}
	owners := map[string]int{}
	var exts []*registry.Extension
	for _, x := range d.Effective() {
		if !x.Active() {
			for _, c := range x.CommandNames {
				t.disabled[c] = x
				t.disabled[x.Name+":"+c] = x
			}
			continue
		}
		exts = append(exts, x)
		for _, c := range x.CommandNames {
			owners[c]++
		}
	}
	for _, x := range exts {
		for _, c := range x.CommandNames {
			e := &Entry{Name: c, Declared: c, Extension: x}
			if owners[c] > 1 || slices.Contains(Builtins, c) {
				e.Name, e.Renamed = e.Qualified(), true
			}
			t.Entries = append(t.Entries, e)
			t.byName[e.Name] = e
			t.byName[e.Qualified()] = e
			t.byName[e.Dotted()] = e
		}
	}
	sort.Slice(t.Entries, func(i, j int) bool { return t.Entries[i].Name < t.Entries[j].Name })
	return t
}

// Lookup finds a command by name or qualified name.
func (t *Table) Lookup(name string) (*Entry, bool) {
	e, ok := t.byName[name]
	return e, ok
}

// Disabled returns the extension that declares name but is disabled here, if any.
func (t *Table) Disabled(name string) *registry.Extension { return t.disabled[name] }

// Suggest returns table names that start like name, for "did you mean".
func (t *Table) Suggest(name string) []string {
	var out, names []string
	for _, e := range t.Entries {
		names = append(names, e.Name)
		if strings.HasPrefix(e.Name, name) || strings.HasPrefix(name, e.Declared) || strings.Contains(e.Name, name) {
			out = append(out, e.Name)
		}
	}
	if near := suggest.Closest(name, names); len(out) == 0 && near != "" {
		out = append(out, near)
	}
	return out
}
