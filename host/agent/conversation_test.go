package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
