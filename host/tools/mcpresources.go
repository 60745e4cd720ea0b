package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	mcphost "github.com/gemhost/gem/host/mcp"
)

// list_mcp_resources and read_mcp_resource are Gemini CLI's core tools for the resources
// of the session's MCP servers, under its names and parameters (serverName; uri). They are
// offered when the session has an MCP server. Listing starts the servers it lists (as a
// call to one of their tools would); reading asks the server whose list holds the URI (or
// whose template's fixed prefix starts it), so a URI never reaches a server that did not
// offer it.
type (
	listResourcesArgs struct {
		ServerName string `json:"serverName,omitempty" jsonschema:"optional: list the resources of this server only"`
	}
	readResourceArgs struct {
		URI string `json:"uri" jsonschema:"the URI of the MCP resource to read"`
	}
)

// mcpResourceTools are the core tools that need an MCP server to be useful.
var mcpResourceTools = []string{"list_mcp_resources", "read_mcp_resource"}

func (c *coreBackend) listResources(ctx context.Context, a listResourcesArgs) (string, error) {
	servers, err := c.resourceServers(a.ServerName)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range servers {
		list, err := s.Resources(ctx)
		if err != nil {
			fmt.Fprintf(&b, "%s: not listed: %v\n", s.Name, err)
			continue
		}
		for _, r := range list {
			line := fmt.Sprintf("%s: %s", s.Name, r.URI)
			if r.Template {
				line += " (template)"
			}
			if r.Name != "" {
				line += " — " + r.Name
			}
			if r.Description != "" {
				line += ": " + r.Description
			}
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return "no MCP resources", nil
	}
	return b.String(), nil
}

func (c *coreBackend) readResource(ctx context.Context, a readResourceArgs) (string, error) {
	if a.URI == "" {
		return "", fmt.Errorf("uri is empty: name a resource list_mcp_resources lists")
	}
	servers, err := c.resourceServers("")
	if err != nil {
		return "", err
	}
	for _, s := range servers {
		list, err := s.Resources(ctx)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(list, func(r mcphost.Resource) bool { return offers(r, a.URI) }) {
			return s.ReadResource(ctx, a.URI)
		}
	}
	return "", fmt.Errorf("no MCP server of this session offers the resource %s: list_mcp_resources lists those there are", a.URI)
}

// offers: whether resource r is uri, or a template whose text before its first {…} starts it.
func offers(r mcphost.Resource, uri string) bool {
	if !r.Template {
		return r.URI == uri
	}
	prefix, _, _ := strings.Cut(r.URI, "{")
	return prefix != "" && strings.HasPrefix(uri, prefix)
}

// resourceServers are the session's MCP servers (the one named, when name is set).
func (c *coreBackend) resourceServers(name string) ([]*mcpServer, error) {
	if c.catalog == nil {
		return nil, fmt.Errorf("this session has no MCP servers")
	}
	if name == "" {
		return c.catalog.servers, nil
	}
	for _, s := range c.catalog.servers {
		if s.Name == name {
			return []*mcpServer{s}, nil
		}
	}
	return nil, c.catalog.unknownServer(name)
}
