package sdk_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/sdk"
)

// TestCommandsWithoutSession: /help, /extensions, /commands and /history are built-in
// commands (Commands lists them, NeedsSession false) that RunCommand runs with no API key;
// /help is generated from the commands' table; a command that works on a session is a
// *NeedsSessionError, a name no built-in has an *UnknownCommandError.
func TestCommandsWithoutSession(t *testing.T) {
	_, getenv := fakeModel(t)
	home := getenv("HOME")
	ext := filepath.Join(home, ".gemini", "extensions", "kit")
	os.MkdirAll(filepath.Join(ext, "commands"), 0o755)
	os.WriteFile(filepath.Join(ext, "gemini-extension.json"), []byte(`{"name": "kit", "version": "1.0.0",
 "commands": {"greet": {"type": "executable", "binary": "${extensionPath}/greet.sh", "description": "Greets people", "subcommands": ["to"]}}}`), 0o644)
	os.WriteFile(filepath.Join(ext, "greet.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	os.WriteFile(filepath.Join(ext, "commands", "review.toml"), []byte("description = \"Review the change\"\nprompt = \"Review it.\"\n"), 0o644)
	noKey := withoutKey(getenv)
	o := sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: noKey}
	cmds, err := sdk.Commands(o)
	if err != nil {
		t.Fatal(err)
	}
	var sessionless []string
	for _, c := range cmds {
		if !c.NeedsSession {
			sessionless = append(sessionless, c.Name)
		}
	}
	if got := strings.Join(sessionless, " "); got != "help extensions commands history" {
		t.Errorf("the commands that need no session: %q", got)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"help", []string{"Built-in commands:", "  /compress  ", "  /extensions  list the extensions", "Extension commands:\n  /greet [to]  Greets people  (from kit)",
			"Prompt commands (commands/*.toml: sent to the model):\n  /review  Review the change  (from kit)", "MCP prompts and skills: listed here once a session is open"}},
		{"extensions", []string{"NAME", "kit  ", "1.0.0", "enabled"}},
		{"commands", []string{"  /greet [to]  Greets people  (from kit)"}},
		{"history", []string{"Nothing typed yet."}},
	} {
		out, err := sdk.RunCommand(ctx, o, tc.name, nil)
		if err != nil {
			t.Errorf("/%s: %v", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("/%s: %q, want it to say %q", tc.name, out, w)
			}
		}
	}
	// every built-in command of the table is in /help, with its description
	help, _ := sdk.RunCommand(ctx, o, "help", nil)
	for _, c := range cmds {
		if c.Source == "builtin" && !strings.Contains(help, "/"+c.Name+" ") {
			t.Errorf("/help leaves /%s out", c.Name)
		}
	}
	if _, err := sdk.RunCommand(ctx, o, "stats", nil); err == nil {
		t.Error("/stats ran without a session")
	} else if _, ok := errors.AsType[*sdk.NeedsSessionError](err); !ok {
		t.Errorf("/stats without a session: %T %v", err, err)
	}
	if _, err := sdk.RunCommand(ctx, o, "nosuch", nil); err == nil {
		t.Error("/nosuch ran")
	} else if _, ok := errors.AsType[*sdk.UnknownCommandError](err); !ok {
		t.Errorf("/nosuch: %T %v", err, err)
	}
}

// TestSessionHistoryAndHelp: in a session, /history is its prompts (no Host.History) and
// /help lists the session's skills too.
func TestSessionHistoryAndHelp(t *testing.T) {
	_, getenv := fakeModel(t, chunks(text("One.")), chunks(text("Two.")))
	home := getenv("HOME")
	os.MkdirAll(filepath.Join(home, ".gemini", "skills", "tidy"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "skills", "tidy", "SKILL.md"), []byte("---\nname: tidy\ndescription: Tidies up\n---\nTIDY\n"), 0o644)
	ctx := context.Background()
	s := openSession(t, sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: getenv})
	for _, p := range []string{"first prompt", "second prompt"} {
		if _, err := s.Send(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := s.RunCommand(ctx, "history", nil); err != nil || out != "   1  first prompt\n   2  second prompt\n" {
		t.Errorf("/history: %q, %v", out, err)
	}
	out, err := s.RunCommand(ctx, "help", nil)
	if err != nil || !strings.Contains(out, "Skills (/<skill> <request> activates one for the request):\n  /tidy  Tidies up") || strings.Contains(out, "once a session is open") {
		t.Errorf("/help in a session: %q, %v", out, err)
	}
}
