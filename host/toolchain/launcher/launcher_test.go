package launcher

import (
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry/lockfile"
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
		{"uvx tool", "uvx", []string{"mcp-server-fetch"}, true, "mcp-server-fetch", "latest", "", []string{"mcp-server-fetch@9.9.9"}},
		{"uvx tool@version, its arguments", "/home/u/.local/bin/uvx", []string{"mcp-server-time@0.6.2", "--local-timezone", "x"}, true, "mcp-server-time", "0.6.2", "", []string{"mcp-server-time@9.9.9", "--local-timezone", "x"}},
		{"uvx --from with extras", "uvx", []string{"--python", "3.12", "--from", "mypy[reports]==1.13.0", "mypy"}, true, "mypy", "1.13.0", "", []string{"--python", "3.12", "--from", "mypy[reports]==9.9.9", "mypy"}},
		{"uvx --from=", "uvx", []string{"--from=weather_mcp", "weather"}, true, "weather_mcp", "latest", "", []string{"--from=weather_mcp==9.9.9", "weather"}},
		{"uvx index", "uvx", []string{"--index-url", "http://idx/simple", "tool"}, true, "tool", "latest", "http://idx/simple", []string{"--index-url", "http://idx/simple", "tool@9.9.9"}},
		{"uvx tool==version (as gem mcp install writes it)", "uvx", []string{"mcp-server-time==0.6.2"}, true, "mcp-server-time", "0.6.2", "", []string{"mcp-server-time==9.9.9"}},
		{"uvx git", "uvx", []string{"--from", "git+https://github.com/a/b", "b"}, false, "", "", "", nil},
		{"uvx range", "uvx", []string{"--from", "ruff>0.2,<0.3", "ruff"}, false, "", "", "", nil},
		{"uvx a path", "uvx", []string{"--from", "./tool", "tool"}, false, "", "", "", nil},
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

// FuzzPackageOf: any npx or uvx command line parses without panicking, and a package found,
// pinned, is found again at the pinned version with the same name.
func FuzzPackageOf(f *testing.F) {
	f.Add("npx", "-y\x00@acme/docs@^1.2\x00--port\x001")
	f.Add("uvx", "--from\x00mypy[reports]==1.13.0\x00mypy")
	f.Add("uvx", "--python\x003.12\x00tool@1.0")
	f.Add("npx", "--package=@a/b@2\x00b-cli")
	f.Add("docker", "run\x00-i\x00--rm\x00-e\x00TOKEN\x00ghcr.io/acme/srv:1.0\x00--flag")
	f.Add("podman", "container\x00run\x00--name=x\x00localhost:5000/srv")
	const digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	f.Fuzz(func(t *testing.T, command, joined string) {
		args := strings.Split(joined, "\x00")
		pkg, ok := PackageOf(command, args)
		if !ok {
			return
		}
		pinned := Pin(args, pkg, lockfile.Payload{Type: pkg.Type, Name: pkg.Name, Version: "1.2.3", SHA256: digest})
		again, ok := PackageOf(command, pinned)
		if !ok || again.Name != pkg.Name || again.Range != "1.2.3" || again.Type != pkg.Type || (pkg.Type == "oci" && again.Digest != digest) {
			t.Fatalf("%q → %+v; pinned %q → %+v (%v)", args, pkg, pinned, again, ok)
		}
	})
}

func TestImagePackageOf(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name    string
		command string
		args    []string
		ok      bool
		image   string
		tag     string
		digest  string
		pinned  []string // pinned at tag "1.0" and digest hex
	}{
		{"registry plan", "docker", []string{"run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/srv:1.0", "--flag"}, true, "ghcr.io/acme/srv", "1.0", "",
			[]string{"run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/srv:1.0@sha256:" + hex, "--flag"}},
		{"hub, no tag", "/usr/bin/docker", []string{"run", "--rm", "-i", "mcp/fetch"}, true, "mcp/fetch", "latest", "", []string{"run", "--rm", "-i", "mcp/fetch:1.0@sha256:" + hex}},
		{"values with =, and a port", "podman", []string{"run", "--env=A=1", "--name", "x", "-i", "localhost:5000/srv:2"}, true, "localhost:5000/srv", "2", "", []string{"run", "--env=A=1", "--name", "x", "-i", "localhost:5000/srv:1.0@sha256:" + hex}},
		{"container run", "docker", []string{"container", "run", "-i", "alpine"}, true, "alpine", "latest", "", []string{"container", "run", "-i", "alpine:1.0@sha256:" + hex}},
		{"by digest already", "docker", []string{"run", "-i", "acme/srv@sha256:" + hex}, true, "acme/srv", "latest", hex, nil},
		{"not run", "docker", []string{"exec", "-i", "box", "srv"}, false, "", "", "", nil},
		{"no image", "docker", []string{"run", "-i"}, false, "", "", "", nil},
		{"an upper-case path is no image", "docker", []string{"run", "Not/An/Image"}, false, "", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := PackageOf(tc.command, tc.args)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, tc.ok, p)
			}
			if !ok {
				return
			}
			if p.Type != "oci" || p.Name != tc.image || p.Range != tc.tag || p.Digest != tc.digest {
				t.Fatalf("got %+v, want %s:%s@%s", p, tc.image, tc.tag, tc.digest)
			}
			if tc.pinned != nil {
				got := Pin(tc.args, p, lockfile.Payload{Type: "oci", Name: p.Name, Version: "1.0", SHA256: hex})
				if !slices.Equal(got, tc.pinned) {
					t.Fatalf("pinned %q, want %q", got, tc.pinned)
				}
				if tc.args[p.Index] == got[p.Index] {
					t.Fatal("the caller's args were changed")
				}
			}
		})
	}
}
