package tools

import (
	"testing"

	mcphost "github.com/gemhost/gem/host/mcp"
)

// TestOffers: read_mcp_resource asks only a server whose list holds the URI, or whose
// template's fixed prefix starts it.
func TestOffers(t *testing.T) {
	for _, tt := range []struct {
		r    mcphost.Resource
		uri  string
		want bool
	}{
		{mcphost.Resource{URI: "notes://index"}, "notes://index", true},
		{mcphost.Resource{URI: "notes://index"}, "notes://index2", false},
		{mcphost.Resource{URI: "notes://note/{id}", Template: true}, "notes://note/3", true},
		{mcphost.Resource{URI: "notes://note/{id}", Template: true}, "notes://other/3", false},
		{mcphost.Resource{URI: "{path}", Template: true}, "file:///etc/passwd", false}, // no fixed prefix: not a claim on every URI
		{mcphost.Resource{URI: "file:///{path}", Template: true}, "file:///etc/passwd", true},
	} {
		if got := offers(tt.r, tt.uri); got != tt.want {
			t.Errorf("offers(%q, %q) = %v, want %v", tt.r.URI, tt.uri, got, tt.want)
		}
	}
}
