package tools

import (
	"encoding/json"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/registry"
)

// A shell-like tool (one whose arguments hold a "command" string, what the policy engine
// reads as a command line: run_shell_command, an MCP shell server's run or exec) runs
// commands in the project, and commands change files there (npm install, a build, git). Its
// program without the workspace capability would fail at the first such command. The tool
// lists are not known when the user agrees to an extension (nothing has started), so the
// need is found when a list is known: before the program starts, from the tool cache of an
// MCP server or a plugin, at Load; or, for an MCP server without one, right after its first
// start, before anything calls it. Options.AskWorkspace is then asked (the CLI asks once, on
// a terminal, and records the answer yes as the user's grant, bound to the extension); the
// program is prepared again with what was granted (a server already started is started
// again with it, mcp.Client.Restart); a plugin without one is asked about once its first
// start listed its tools, and started again with the grant at its first call. Without an answer the program runs
// without it, and a failure changing the project names the grant line
// (sandbox.FailedWorkspace).

// WorkspaceNeed is a program with a shell-like tool that may not change the project.
type WorkspaceNeed struct {
	Extension *registry.Extension
	Program   string // "MCP server <name>" or "plugin <id>"
	Tool      string // the shell-like tool, as the program names it
}

// ShellLikeSchema reports whether an argument schema (JSON) takes a "command" string.
func ShellLikeSchema(schema json.RawMessage) bool {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	p, ok := s.Properties["command"]
	if !ok {
		return false
	}
	switch t := p.Type.(type) {
	case string:
		return t == "string"
	case []any:
		for _, v := range t {
			if v == "string" {
				return true
			}
		}
	}
	return false
}

// firstShellLike names the first shell-like tool of specs ("" for none).
func firstShellLike(specs []Spec) string {
	for _, s := range specs {
		if ShellLikeSchema(s.InputSchema) {
			return s.Name
		}
	}
	return ""
}

// writesWorkspace reports whether a program of policy pol may change its project.
func writesWorkspace(pol *sandbox.Policy) bool { return pol == nil || pol.Guard }

// askWorkspace asks opts.AskWorkspace about x's program when its known tools (specs) hold a
// shell-like one and pol keeps it out of the project; true means granted, and the program
// is to be prepared again. Only user extensions are asked: a project extension's grant is
// its consent.
func askWorkspace(opts Options, x *registry.Extension, program string, specs []Spec, pol *sandbox.Policy) bool {
	if opts.AskWorkspace == nil || x.Level != registry.LevelUser || x.Synthetic || writesWorkspace(pol) || pol.Workspace == "" {
		return false
	}
	tool := firstShellLike(specs)
	if tool == "" {
		return false
	}
	return opts.AskWorkspace(WorkspaceNeed{Extension: x, Program: program, Tool: tool})
}
