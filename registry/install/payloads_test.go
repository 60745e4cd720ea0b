package install

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/registrytest"
)

// fileCarrier carries a payload as one file holding its name and version; failInstall makes
// every install fail.
type fileCarrier struct {
	installed   []string
	failInstall bool
}

func (c *fileCarrier) Tag(p lockfile.Payload) string {
	if p.Type != "npm" {
		return ""
	}
	return "npm-" + p.Name
}
func (c *fileCarrier) ArtifactType(lockfile.Payload) string { return "application/vnd.gem.test" }
func (c *fileCarrier) Pack(_ context.Context, _ *registry.Extension, p lockfile.Payload, dir string) ([]string, string, error) {
	return []string{"pkg"}, "tree-of-" + p.Name, os.WriteFile(filepath.Join(dir, "pkg"), []byte(p.Name+"@"+p.Version), 0o644)
}
func (c *fileCarrier) Install(_ context.Context, p lockfile.Payload, dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "pkg"))
	if err != nil {
		return err
	}
	if c.failInstall || string(data) != p.Name+"@"+p.Version || p.Tree != "tree-of-"+p.Name {
		return errors.New("not the pinned package")
	}
	c.installed = append(c.installed, string(data))
	return nil
}

// TestBundlePayloads: a bundle carries the npm payloads of its extensions' servers (not the
// PyPI one); installing it on a home with no registry takes them as the lock pins them and
// installs them before the extension; a payload that fails to install leaves the extension
// uninstalled; with no carrier the bundle says what it does not carry.
func TestBundlePayloads(t *testing.T) {
	ctx := context.Background()
	pins := []lockfile.Payload{
		{Server: "docs", Type: "npm", Name: "docs-mcp", Version: "1.2.3", Integrity: "sha512-x"},
		{Server: "time", Type: "pypi", Name: "mcp-server-time", Version: "0.6.2", SHA256: "ab"},
	}
	online := func(ctx context.Context, x *registry.Extension, locked *lockfile.Entry, held []lockfile.Payload) ([]lockfile.Payload, error) {
		return pins, nil
	}
	// offline: only what a mirror holds can be pinned; anything else would need the registry
	offline := func(ctx context.Context, x *registry.Extension, locked *lockfile.Entry, held []lockfile.Payload) ([]lockfile.Payload, error) {
		var out []lockfile.Payload
		for _, p := range locked.Payloads {
			if !slices.Contains(held, p) && p.Type == "npm" {
				return nil, errors.New("the registry cannot be reached")
			}
			out = append(out, p)
		}
		return out, nil
	}
	env := registrytest.Env(t, nil)
	src := filepath.Join(testhome.Dir(t, "src-"), "tools")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "gemini-extension.json"), []byte(`{"name": "tools", "version": "1.0.0", "mcpServers": {
		"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}, "time": {"command": "uvx", "args": ["mcp-server-time"]}}}`), 0o644)
	carrier := &fileCarrier{}
	in := &Installer{Env: env, Sources: &Fetcher{}, Out: io.Discard, Prompt: yes{}, Payloads: online, Carrier: carrier}
	if _, err := in.Install(ctx, src, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.WriteLock(ctx, registry.LevelUser, false); err != nil {
		t.Fatal(err)
	}
	lock, err := in.ReadLock(registry.LevelUser)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(testhome.Dir(t, "out-"), "b.tar")
	rep, err := in.Bundle(ctx, lock, out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Payloads, []string{"npm docs-mcp@1.2.3"}) || len(rep.NotCarried) != 1 || !strings.Contains(rep.NotCarried[0], "pypi mcp-server-time@0.6.2") {
		t.Fatalf("carried %q, not carried %q", rep.Payloads, rep.NotCarried)
	}

	for _, tc := range []struct {
		name     string
		fail     bool
		wantErr  string
		payloads []string
	}{
		{"installs", false, "", []string{"docs-mcp@1.2.3"}},
		{"a payload that fails", true, "installing npm docs-mcp@1.2.3 (server docs) from the mirror", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fileCarrier{failInstall: tc.fail}
			in2 := &Installer{Env: registrytest.Env(t, nil), Sources: &Fetcher{}, Out: io.Discard, Prompt: yes{}, Payloads: offline, Carrier: c}
			res, err := in2.InstallBundle(ctx, out, SyncOptions{Scope: registry.LevelUser, Jobs: 1})
			_, statErr := os.Stat(filepath.Join(in2.Env.GeminiExtensionsDir(), "tools"))
			if tc.wantErr != "" {
				var pe *PayloadError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &pe) {
					t.Fatalf("err %v, want a PayloadError %q", err, tc.wantErr)
				}
				if statErr == nil {
					t.Fatal("the extension was installed")
				}
				return
			}
			if err != nil || len(res) != 1 || res[0].Status != StatusInstalled || statErr != nil {
				t.Fatalf("%v %v %v", res, err, statErr)
			}
			if !slices.Equal(c.installed, tc.payloads) {
				t.Fatalf("installed payloads %q, want %q", c.installed, tc.payloads)
			}
		})
	}

	in.Carrier = nil
	rep, err = in.Bundle(ctx, lock, filepath.Join(testhome.Dir(t, "out2-"), "c.tar"))
	if err != nil || len(rep.Payloads) != 0 || len(rep.NotCarried) != 2 {
		t.Fatalf("no carrier: %+v %v", rep, err)
	}
}
