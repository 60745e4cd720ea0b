package tools

import (
	"errors"
	"fmt"
	"strings"
)

// The errors of tool calls are typed and carry no advice in any front end's terms: the CLI,
// gem mcp serve and the batch mode each say what to do in their own words.

// ErrDenied is what every DeniedError is (errors.Is).
var ErrDenied = errors.New("not allowed")

// ErrInvalidArguments is what every ArgumentsError is (errors.Is).
var ErrInvalidArguments = errors.New("invalid arguments")

// UnknownToolError: no enabled extension has a tool of that name. Similar is the tool the
// user probably meant, or "". NotLoaded, when set, is why the tool is missing: the plugin
// that brings it did not load ("plugin P of extension E did not load: …"); Unloaded lists
// the plugins that did not load (and MCP servers that did not start) when which tools they
// bring is not known.
type UnknownToolError struct {
	Name, Similar string
	NotLoaded     string
	Unloaded      []string
}

func (e *UnknownToolError) Error() string {
	switch {
	case e.NotLoaded != "":
		return fmt.Sprintf("no tool %q: %s", e.Name, e.NotLoaded)
	case len(e.Unloaded) > 0:
		return fmt.Sprintf("no tool %q (what did not start: %s)", e.Name, strings.Join(e.Unloaded, "; "))
	}
	return fmt.Sprintf("no tool %q", e.Name)
}

// UnknownServerError: no enabled extension declares an MCP server of that name. Similar is
// the server the user probably meant, or "".
type UnknownServerError struct{ Name, Similar string }

func (e *UnknownServerError) Error() string {
	return fmt.Sprintf("no mcp server %q among enabled extensions", e.Name)
}

// ArgumentsError: the arguments are not JSON, or do not match the tool's schema.
type ArgumentsError struct {
	Tool     string
	Problems []string
	NotJSON  bool
}

func (e *ArgumentsError) Error() string {
	if e.NotJSON {
		return fmt.Sprintf("invalid arguments for %s: they must be a JSON object, and are not JSON (%s)", e.Tool, strings.Join(e.Problems, "; "))
	}
	return fmt.Sprintf("invalid arguments for %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

func (e *ArgumentsError) Unwrap() error { return ErrInvalidArguments }

// DeniedError: the policy denied the call (Rule), or the user did not approve it.
type DeniedError struct {
	Tool string
	Rule string // the deciding rule; empty when the user was asked and said no (or could not be asked)
}

func (e *DeniedError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("not allowed: %s is denied by the policy rule %s", e.Tool, e.Rule)
	}
	return fmt.Sprintf("not allowed: %s was not approved", e.Tool)
}

func (e *DeniedError) Unwrap() error { return ErrDenied }
