package toolchain

import (
	"slices"
	"testing"
)

func TestPackageOf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		command  string
		args     []string
		ok       bool
		pkg      string
		rng      string
		registry string
		pinned   []string // args pinned at 9.9.9
	}{
		{"plain", "npx", []string{"-y", "docs-mcp"}, true, "docs-mcp", "latest", "", []string{"-y", "docs-mcp@9.9.9"}},
		{"latest", "npx", []string{"-y", "docs-mcp@latest", "--port", "1"}, true, "docs-mcp", "latest", "", []string{"-y", "docs-mcp@9.9.9", "--port", "1"}},
		{"scoped range", "/usr/bin/npx", []string{"--yes", "@acme/docs@^1.2"}, true, "@acme/docs", "^1.2", "", []string{"--yes", "@acme/docs@9.9.9"}},
		{"scoped bare", "npx", []string{"@acme/docs"}, true, "@acme/docs", "latest", "", []string{"@acme/docs@9.9.9"}},
		{"registry flag", "npx", []string{"-y", "--registry", "http://r/", "x@1.0.0"}, true, "x", "1.0.0", "http://r/", []string{"-y", "--registry", "http://r/", "x@9.9.9"}},
		{"registry=", "npx", []string{"--registry=http://r/", "x"}, true, "x", "latest", "http://r/", []string{"--registry=http://r/", "x@9.9.9"}},
		{"package flag", "npx", []string{"--package=@a/b@2", "b-cli", "serve"}, true, "@a/b", "2", "", []string{"--package=@a/b@9.9.9", "b-cli", "serve"}},
		{"package flag, space", "npx", []string{"-p", "a", "a-cli"}, true, "a", "latest", "", []string{"-p", "a@9.9.9", "a-cli"}},
		{"not npx", "node", []string{"server.js"}, false, "", "", "", nil},
		{"a path", "npx", []string{"-y", "./local"}, false, "", "", "", nil},
		{"github ref", "npx", []string{"-y", "owner/repo"}, false, "", "", "", nil},
		{"a URL", "npx", []string{"https://x/y.tgz"}, false, "", "", "", nil},
		{"only flags", "npx", []string{"-y"}, false, "", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := PackageOf(tc.command, tc.args)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, tc.ok, p)
			}
			if !ok {
				return
			}
			if p.Name != tc.pkg || p.Range != tc.rng || p.Registry != tc.registry {
				t.Fatalf("got %+v, want %s@%s registry %q", p, tc.pkg, tc.rng, tc.registry)
			}
			if got := PinArgs(tc.args, p, "9.9.9"); !slices.Equal(got, tc.pinned) {
				t.Fatalf("pinned %q, want %q", got, tc.pinned)
			}
		})
	}
}
