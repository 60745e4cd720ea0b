// Command review-agent is a code-review agent built on gem's Go SDK: a typed tool
// (find_todos, which reads the workspace through the session's FS, confined as gem's core
// tools are) and a hook that keeps the review read-only (it refuses every tool that would
// change something). The same hook serves as a command hook for gem itself:
//
//	review-agent [-C dir] "review the error handling"   # run a review
//	review-agent hook                                    # a BeforeTool command hook
//
// As a hook, name it in ~/.gemini/settings.json:
//
//	{"hooks": {"BeforeTool": [{"matcher": "write_file|replace|run_shell_command",
//	   "hooks": [{"type": "command", "command": "/path/to/review-agent hook"}]}]}}
//
// It reads GEMINI_API_KEY (and gem's settings and installed extensions) as gem -p does.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gemhost/gem/sdk"
)

type todosArgs struct {
	Pattern string `json:"pattern" jsonschema:"a glob of the files to look in, ** for any depth (**/*.go)"`
}

type todo struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// findTodos lists the TODO and FIXME lines of the files a glob matches.
var findTodos = sdk.NewTool("find_todos", "Lists the TODO and FIXME comments of the workspace's files matching a glob",
	func(sc sdk.SessionContext, in todosArgs) ([]todo, error) {
		files, err := sc.FS().Glob(sc, in.Pattern) // sc is the call's context: Ctrl-C stops the search
		if err != nil {
			return nil, sdk.ModelErrorf("the pattern %q: %v", in.Pattern, err)
		}
		var out []todo
		for _, f := range files {
			if sc.Err() != nil {
				return nil, sc.Err()
			}
			data, err := sc.FS().ReadFile(sc, f)
			if err != nil {
				continue
			}
			lines := bufio.NewScanner(strings.NewReader(string(data)))
			for n := 1; lines.Scan(); n++ {
				if l := lines.Text(); strings.Contains(l, "TODO") || strings.Contains(l, "FIXME") {
					out = append(out, todo{File: f, Line: n, Text: strings.TrimSpace(l)})
				}
			}
		}
		return out, nil
	}).WithKind(sdk.KindSearch)

// readOnly refuses every tool that would change something: a review changes nothing.
var readOnly = sdk.OnBeforeTool("read-only", "write_file|replace|run_shell_command|save_memory",
	func(sc sdk.SessionContext, in sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
		return sdk.BeforeToolOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny,
			Reason: in.ToolName + " is refused: this review session changes nothing; describe the change instead"}}, nil
	})

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		readOnly.RunAsCommand()
	}
	dir := flag.String("C", "", "the project to review (default: the current folder)")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	if prompt == "" {
		prompt = "Review this project: list its TODOs and the risks you see."
	}
	if err := run(*dir, prompt); err != nil {
		fmt.Fprintln(os.Stderr, "review-agent:", err)
		os.Exit(1)
	}
}

func run(dir, prompt string) error {
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{
		Cwd:          dir,
		Instructions: []sdk.Instruction{sdk.Static("You review code. You change nothing: you read, search and report, with file:line references.")},
		Tools:        []sdk.Tool{findTodos},
		Hooks:        []sdk.Hook{readOnly},
	})
	if err != nil {
		return err
	}
	defer a.Close()
	s, err := a.Session(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	for ev, err := range s.SendStream(ctx, prompt) {
		if err != nil {
			return err
		}
		switch ev.Type {
		case sdk.EventMessage:
			if ev.Role == "assistant" {
				fmt.Print(ev.Text)
			}
		case sdk.EventToolResult:
			status := "ok"
			if ev.ToolCall.Err != nil {
				status = ev.ToolCall.Err.Error()
			}
			fmt.Fprintf(os.Stderr, "[%s: %s]\n", ev.ToolCall.Name, status)
		}
	}
	fmt.Println()
	return nil
}
