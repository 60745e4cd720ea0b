package acp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// TestCommandsAndSkills: available_commands_update lists the prompt commands, the MCP
// servers' prompts (a client's server here) and the skills; "/<skill> request" activates
// the skill for the request, "/<prompt> tag=…" sends the server's prompt text.
func TestCommandsAndSkills(t *testing.T) {
	conn, c, proj, srv := serve(t, chunks(text("Tidied.")), chunks(text("Reviewed.")))
	home := filepath.Dir(proj)
	bin := filepath.Join(home, "servers", "notes-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "../../sample-extensions/notes-mcp/cmd/notes-mcp").CombinedOutput(); err != nil {
		t.Fatalf("building notes-mcp: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(home, ".gemini", "commands"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "commands", "greet.toml"), []byte("description = \"Greets\"\nprompt = \"Say hello to {{args}}\"\n"), 0o644)
	os.MkdirAll(filepath.Join(home, ".gemini", "skills", "tidy"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "skills", "tidy", "SKILL.md"), []byte("---\nname: tidy\ndescription: Tidies things up\n---\nTIDY-INSTRUCTIONS: sort, then fold.\n"), 0o644)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{{Stdio: &acp.McpServerStdio{
		Name: "notes", Command: bin, Args: []string{}, Env: []acp.EnvVariable{{Name: "NOTES_MCP_FILE", Value: "notes.json"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for deadline := time.Now().Add(20 * time.Second); names == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c.mu.Lock()
		for _, u := range c.updates {
			if u.AvailableCommandsUpdate != nil {
				names = []string{}
				for _, cmd := range u.AvailableCommandsUpdate.AvailableCommands {
					if cmd.Input == nil {
						continue // a built-in that takes nothing (TestBuiltinCommands)
					}
					names = append(names, cmd.Name+":"+cmd.Input.Unstructured.Hint)
				}
			}
		}
		c.mu.Unlock()
	}
	want := "chat:save|resume|list|delete [tag] model:[model] tools:[desc] memory:show|add <fact>|refresh skills:[list|enable <name>|disable <name>] skill:<name> restore:[id] greet:arguments review_notes:tag=… tidy:what to do with the skill"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("the commands: %q", got)
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("/tidy the desk")}}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests[0].Body); !strings.Contains(body, "TIDY-INSTRUCTIONS") || !strings.Contains(body, `"text":"the desk"`) {
		t.Errorf("the skill's request: %s", body)
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("/review_notes tag=work")}}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests[1].Body); !strings.Contains(body, "Review my notes tagged work") {
		t.Errorf("the MCP prompt's request: %s", body)
	}
}

// TestBuiltinCommands: gem shell's built-in commands (/stats, /memory, /chat, /skills,
// /skill, /clear…, and /help, /extensions, /commands, /history, which need no session) are
// advertised first and run for a prompt naming one: what they show is the agent's
// message, and the model is not asked. /history is the session's prompts.
func TestBuiltinCommands(t *testing.T) {
	conn, c, proj, srv := serve(t, chunks(text("Hi.")))
	ext := filepath.Join(filepath.Dir(proj), ".gemini", "extensions", "kit")
	os.MkdirAll(ext, 0o755)
	os.WriteFile(filepath.Join(ext, "gemini-extension.json"), []byte(`{"name": "kit", "version": "2.0.0"}`), 0o644)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	var advertised []string
	for deadline := time.Now().Add(20 * time.Second); advertised == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c.mu.Lock()
		for _, u := range c.updates {
			if u.AvailableCommandsUpdate != nil {
				advertised = []string{}
				for _, cmd := range u.AvailableCommandsUpdate.AvailableCommands {
					advertised = append(advertised, cmd.Name)
				}
			}
		}
		c.mu.Unlock()
	}
	if got := strings.Join(advertised, " "); !strings.HasPrefix(got, "chat model tools mcp memory stats compress agents clear skills skill restore help extensions commands history") {
		t.Errorf("the commands advertised: %q", got)
	}
	say := func(prompt string) string {
		t.Helper()
		c.mu.Lock()
		from := len(c.updates)
		c.mu.Unlock()
		resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(prompt)}})
		if err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%s: %v, %v", prompt, resp.StopReason, err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		var b strings.Builder
		for _, u := range c.updates[from:] {
			if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
				b.WriteString(m.Content.Text.Text)
			}
		}
		return b.String()
	}
	if got := say("hello"); got != "Hi." {
		t.Errorf("the model's answer: %q", got)
	}
	for _, step := range []struct{ prompt, want string }{
		{"/stats", "conversation"},
		{`/memory add "tea is green"`, "tea is green"},
		{"/memory show", "tea is green"},
		{"/chat save first", `as "first"`},
		{"/chat list", "first"},
		{"/chat resume nosuch", "no chat saved under this tag"},
		{"/model", "Model: "},
		{"/skills", "No skills"}, {"/skill nosuch", `no skill "nosuch"`},
		{"/help", "  /extensions  list the extensions and their state"}, {"/help", "  /memory  "},
		{"/extensions", "kit   2.0.0    enabled  user"}, {"/commands", "No extension commands"},
		{"/history", "   1  hello\n"},
		{"/clear", "New conversation"},
	} {
		if got := say(step.prompt); !strings.Contains(got, step.want) {
			t.Errorf("%s: %q, want it to say %q", step.prompt, got, step.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(filepath.Dir(proj), ".gemini", "GEMINI.md")); !strings.Contains(string(data), "tea is green") {
		t.Errorf("/memory add did not reach GEMINI.md: %q", data)
	}
	if len(srv.Requests) != 1 {
		t.Errorf("the commands went to the model: %d requests", len(srv.Requests))
	}
}
