package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// TestOpenCatalog: the catalog and policy every front opens: the approval mode parsed and
// checked against the settings and folder trust, the workspace's policy file read, the
// core tools added for the model side.
func TestOpenCatalog(t *testing.T) {
	env := withExtensions(t, "kit") // its plugin's tool: echo
	w := struct {
		env registry.Env
		d   *registry.Discovery
	}{env, registry.Discover(env, registry.Providers)}
	os.MkdirAll(filepath.Join(w.env.Cwd, ".gem"), 0o755)
	os.WriteFile(filepath.Join(w.env.Cwd, ".gem", "policies.toml"), []byte("[[rule]]\ntoolName = \"echo\"\ndecision = \"deny\"\n"), 0o644)
	noYolo := &settings.Settings{NoYolo: true, Origin: map[string]string{"security.disableYoloMode": "settings.json"}}
	tests := []struct {
		name     string
		mode     string
		sets     *settings.Settings
		core     string
		wantErr  string
		wantWarn string
		wantTool string
	}{
		{name: "default", wantTool: "echo"},
		{name: "unknown mode", mode: "wild", wantErr: `approval mode "wild"`},
		{name: "yolo disabled", mode: "yolo", sets: noYolo, wantErr: "yolo is disabled by security.disableYoloMode in settings.json"},
		{name: "yolo untrusted", mode: "yolo", wantWarn: "yolo applies only in a trusted folder", wantTool: "echo"},
		{name: "core tools", core: w.env.Cwd, wantTool: "read_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warns []string
			reg, err := OpenCatalog(context.Background(), CatalogConfig{Env: w.env, Discovery: w.d, Settings: tt.sets, ApprovalMode: tt.mode,
				Environ: []string{"PATH=/usr/bin:/bin"}, CoreWorkspace: tt.core, Warn: func(err error) { warns = append(warns, err.Error()) }})
			if tt.wantErr != "" {
				if _, ok := errors.AsType[*ApprovalModeError](err); !ok || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want an ApprovalModeError with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer reg.Close()
			if _, ok := reg.Lookup(tt.wantTool); !ok {
				t.Errorf("no tool %s", tt.wantTool)
			}
			if tt.wantWarn != "" && !strings.Contains(strings.Join(warns, "\n"), tt.wantWarn) {
				t.Errorf("warnings %q, want %q", warns, tt.wantWarn)
			}
			// the workspace's policy denies echo (its folder need not be trusted to deny)
			if res, err := reg.Call(context.Background(), "echo", json.RawMessage(`{"text":"x"}`), CallOptions{}); !errors.Is(err, ErrDenied) {
				t.Errorf("echo under the workspace's deny rule: %+v, %v", res, err)
			}
		})
	}
}
