package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/registry/settings"
)

// TestOpenComposesWithoutTheCLI: agent.Open composes what gem -p does — the extension's tool
// and context, the user's prompt command (its !{…} run sandboxed), settings' model, a saved
// session that Resume continues — with no CLI around it.
func TestOpenComposesWithoutTheCLI(t *testing.T) {
	w := newWorld(t, "", "")
	cmds := filepath.Join(w.env.GeminiHome, ".gemini", "commands")
	os.MkdirAll(cmds, 0o755)
	os.WriteFile(filepath.Join(cmds, "greet.toml"), []byte("prompt = \"Greet {{args}}. Today: !{echo sunny}\"\n"), 0o644)
	srv, err := fakegemini.Start([]fakegemini.Reply{
		chunks(call("echo", `{"text":"hi"}`)), chunks(text("Echoed.")), chunks(text("Hello, Ann.")), chunks(text("Again.")),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	getenv := func(k string) string {
		return map[string]string{"GEMINI_API_KEY": "k", "GEM_GEMINI_BASE_URL": srv.URL}[k]
	}
	client, sent, err := NewClient(context.Background(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	cfg := Config{Env: w.env, Discovery: w.d, Settings: &settings.Settings{Model: "gemini-from-settings"}, Catalog: w.reg,
		Client: client, FirstRequest: sent, Environ: []string{"PATH=/usr/bin:/bin"},
		Warn: func(err error) { warnings = append(warnings, err.Error()) }}
	c, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.Model != "gemini-from-settings" {
		t.Errorf("model %q, want the settings'", c.Agent.Model)
	}
	if text, _, err := c.Send(context.Background(), "echo hi"); err != nil || text != "Echoed." {
		t.Fatalf("turn: %q, %v", text, err)
	}
	req := string(srv.Requests[0].Body)
	for _, want := range []string{"Kit knows how to echo.", `"name":"echo"`} {
		if !strings.Contains(req, want) {
			t.Errorf("the first request lacks %s", want)
		}
	}
	prompt, err := c.Expand(context.Background(), "/greet Ann")
	if err != nil || !strings.Contains(prompt, "Greet Ann. Today: sunny") {
		t.Fatalf("prompt command: %q, %v", prompt, err)
	}
	if text, _, _ := c.Send(context.Background(), prompt); text != "Hello, Ann." {
		t.Errorf("second turn %q", text)
	}
	id := c.Session.ID
	c.Close()
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}

	cfg.Resume = id
	again, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Session.ID != id || len(again.Session.History) < 4 {
		t.Fatalf("resumed %s with %d messages, want %s with the turns before", again.Session.ID, len(again.Session.History), id)
	}
	if _, err := Open(context.Background(), Config{Env: w.env}); err == nil {
		t.Error("Open without a catalog and client: no error")
	}
	if _, _, err := NewClient(context.Background(), func(string) string { return "" }); err != ErrNoAPIKey {
		t.Errorf("no key: %v", err)
	}
}

// TestOpenCatalog: the catalog and policy every front opens: the approval mode parsed and
// checked against the settings and folder trust, the workspace's policy file read, the
// core tools added for the model side.
func TestOpenCatalog(t *testing.T) {
	w := newWorld(t, "", "")
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
			if res, err := reg.Call(context.Background(), "echo", json.RawMessage(`{"text":"x"}`), tools.CallOptions{}); !errors.Is(err, tools.ErrDenied) {
				t.Errorf("echo under the workspace's deny rule: %+v, %v", res, err)
			}
		})
	}
}
