package commands

import (
	"fmt"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// UnknownProgramError is a program name that none of an extension's commands, plugins or
// MCP stdio servers has.
type UnknownProgramError struct {
	Extension, Program string
	Known              []string
}

func (e *UnknownProgramError) Error() string {
	known := "none"
	if len(e.Known) > 0 {
		known = strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("%s has no program %q (its programs: %s)", e.Extension, e.Program, known)
}

// ExplainProgram is the plan of one of x's programs on this machine (gem sandbox explain),
// prepared as its launcher prepares it: name is "" (its hooks, !{…} shells and commands
// without an env block of their own), a command's name, a plugin's id or an MCP stdio
// server's name. Like a start, it makes the extension's private folders. session is what the
// session's launcher fills in: the workspace (Root), the host's environment and the facts.
func ExplainProgram(env registry.Env, x *registry.Extension, name string, session ProgramSpec) (sandbox.Plan, error) {
	spec, label, err := programSpec(env, x, name)
	if err != nil {
		return sandbox.Plan{}, err
	}
	spec.Root, spec.Environ, spec.Facts = session.Root, session.Environ, session.Facts
	childEnv, pol, err := Program(env, x, spec)
	if err != nil {
		return sandbox.Plan{}, err
	}
	in := sandbox.Program{Name: label, Policy: pol}.Intent(false)
	in.Extension = x.Name
	for _, kv := range childEnv {
		k, _, _ := strings.Cut(kv, "=")
		in.Env = append(in.Env, k)
	}
	facts := spec.Facts
	if facts == nil {
		probed := sandbox.ProbeFacts()
		facts = &probed
	}
	return sandbox.MakePlan(in, *facts), nil
}

// programSpec is the ProgramSpec x's launcher prepares for the program name.
func programSpec(env registry.Env, x *registry.Extension, name string) (ProgramSpec, string, error) {
	m := x.Manifest()
	platform := manifest.HostPlatforms(env.Getenv)[0]
	spec := ProgramSpec{Platform: platform}
	if name == "" {
		return spec, "hooks, shells and commands", nil
	}
	var known []string
	for _, c := range m.Commands {
		if c.Type == "executable" {
			if c.Name == name {
				spec.Declared = c.Env
				return spec, "command " + name, nil
			}
			known = append(known, c.Name)
		}
	}
	for _, p := range m.Plugins {
		if p.ID == name {
			spec.Declared, spec.Plugin = p.Env, p.ID
			return spec, "plugin " + name, nil
		}
		known = append(known, p.ID)
	}
	resolved := m.Resolved(x.Expander(env, platform))
	for i, s := range m.MCPServers {
		if s.Command == "" {
			continue
		}
		if s.Name == name {
			spec.Declared, spec.Command, spec.Args, spec.Server = s.Env, resolved.MCPServers[i].Command, resolved.MCPServers[i].Args, s.Name
			return spec, "MCP server " + name, nil
		}
		known = append(known, s.Name)
	}
	return spec, "", &UnknownProgramError{Extension: x.Name, Program: name, Known: known}
}
