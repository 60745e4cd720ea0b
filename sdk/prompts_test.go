package sdk_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemhost/gem/sdk"
)

// TestCommandsAfterACancelledListing: a listing of the MCP servers' prompts cut short by a
// cancelled caller (a prompt cancelled while the servers start) is not kept; the next
// caller lists them.
func TestCommandsAfterACancelledListing(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	bin := filepath.Join(home, "servers", "notes-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "../sample-extensions/notes-mcp/cmd/notes-mcp").CombinedOutput(); err != nil {
		t.Fatalf("building notes-mcp: %v\n%s", err, out)
	}
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: getenv, Settings: sdk.NoSettings,
		MCPServers: map[string]sdk.MCPServerConfig{"notes": {Command: bin, Env: map[string]string{"NOTES_MCP_FILE": "notes.json"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := a.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := func(cs []sdk.Command) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if got := names(s.Commands(cancelled)); slices.Contains(got, "review_notes") {
		t.Logf("listed although cancelled: %v", got)
	}
	if got := names(s.Commands(ctx)); !slices.Contains(got, "review_notes") {
		t.Fatalf("after a cancelled listing: %v, want review_notes", got)
	}
}
