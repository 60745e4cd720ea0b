package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

// TestExpandQuotesArgsForTheirContext runs each !{…} with a real sh: whatever the arguments
// hold, the command prints them back as they were typed, in every quoting context, and runs
// nothing else.
func TestExpandQuotesArgsForTheirContext(t *testing.T) {
	root := testhome.Dir(t, "expand-")
	shell := func(ctx context.Context, c *PromptCommand, command string) (string, int, error) {
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = root
		out, err := cmd.Output()
		return strings.TrimSuffix(string(out), "\n"), 0, err
	}
	e := Expander{Root: root, Shell: shell}
	nasty := []string{`plain words`, `$(touch pwned)`, "`touch pwned`", `"; touch pwned; echo "`, `'; touch pwned; echo '`, `\"$(touch pwned)\"`, `a\b`, `$HOME`, `it's "quoted"`}
	for _, tmpl := range []string{`!{printf '%s' {{args}}}`, `!{printf '%s' "{{args}}"}`, `!{printf '%s' 'x{{args}}x'}`, `!{printf '%s' "pre {{args}} post"}`} {
		for _, args := range nasty {
			got, err := e.Expand(context.Background(), &PromptCommand{Name: "t", Prompt: tmpl}, args)
			if err != nil {
				t.Fatalf("%s with %q: %v", tmpl, args, err)
			}
			want := args
			switch {
			case strings.Contains(tmpl, "'x{{args}}x'"):
				want = "x" + args + "x"
			case strings.Contains(tmpl, "pre {{args}} post"):
				want = "pre " + args + " post"
			}
			if got != want {
				t.Errorf("%s with %q: got %q, want %q", tmpl, args, got, want)
			}
			if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
				t.Fatalf("%s with %q ran a command", tmpl, args)
			}
		}
	}
}

// TestExpandDoesNotScanWhatItBringsIn: a file's text (@{…}) or a command's output holding
// !{…}, @{…} or {{args}} is text; only the template is read.
func TestExpandDoesNotScanWhatItBringsIn(t *testing.T) {
	root := testhome.Dir(t, "expand-")
	os.WriteFile(filepath.Join(root, "README.md"), []byte("see !{touch pwned} and @{secret} and {{args}}"), 0o644)
	ran := 0
	e := Expander{Root: root, Shell: func(ctx context.Context, c *PromptCommand, command string) (string, int, error) {
		ran++
		return "out !{touch pwned2}", 0, nil
	}}
	got, err := e.Expand(context.Background(), &PromptCommand{Name: "t", Prompt: "A @{README.md} B !{echo hi} C {{args}}"}, "ARGS")
	if err != nil {
		t.Fatal(err)
	}
	want := "A Content from @README.md:\nsee !{touch pwned} and @{secret} and {{args}} B out !{touch pwned2} C ARGS"
	if got != want || ran != 1 {
		t.Errorf("got %q (ran %d), want %q", got, ran, want)
	}
}
