package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is one resource or resource template a server offers.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Template    bool   `json:"template,omitempty"`
}

// Resources lists the server's resources and resource templates (all pages).
func (s *Client) Resources(ctx context.Context) ([]Resource, error) {
	session, err := s.started(ctx)
	if err != nil {
		return nil, err
	}
	var out []Resource
	if caps := session.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
		return out, nil
	}
	for r, err := range session.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: listing resources: %w", s.Name, err)
		}
		out = append(out, Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
	}
	for t, err := range session.ResourceTemplates(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: listing resource templates: %w", s.Name, err)
		}
		out = append(out, Resource{URI: t.URITemplate, Name: t.Name, Description: t.Description, MIMEType: t.MIMEType, Template: true})
	}
	return out, nil
}

// ReadResource returns the text of a resource (binary contents are described, not printed).
func (s *Client) ReadResource(ctx context.Context, uri string) (string, error) {
	session, err := s.started(ctx)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(ctx, s.Timeout())
	defer cancel()
	res, err := session.ReadResource(cctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", fmt.Errorf("mcp server %s: reading %s: %w", s.Name, uri, err)
	}
	var b strings.Builder
	for _, c := range res.Contents {
		if c.Text != "" {
			b.WriteString(c.Text)
		} else if len(c.Blob) > 0 {
			fmt.Fprintf(&b, "[%s, %d bytes]\n", c.MIMEType, len(c.Blob))
		}
	}
	return b.String(), nil
}
