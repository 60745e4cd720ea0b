// Command embed-extension runs gem's agent with one Gemini CLI extension and nothing else:
// an installed extension by name, or an extension folder. The extension is loaded as gem
// loads it (its MCP servers, tool plugins, context file, commands, skills, agents and
// hooks, each program in its sandbox); the user's other extensions and settings stay out.
//
//	embed-extension <extension name or folder> <prompt>
//
// Calls the policy asks about are put to the terminal (y/N).
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gemhost/gem/sdk"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: embed-extension <extension name or folder> <prompt>")
		os.Exit(2)
	}
	if err := run(os.Args[1], strings.Join(os.Args[2:], " ")); err != nil {
		fmt.Fprintln(os.Stderr, "embed-extension:", err)
		os.Exit(1)
	}
}

func run(ext, prompt string) error {
	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{
		Settings:   sdk.NoSettings,
		Extensions: []sdk.Extension{sdk.LoadExtension(ext)},
		Approve:    ask,
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
	res, err := s.Send(ctx, prompt)
	if err != nil {
		return err
	}
	for _, c := range res.ToolCalls {
		fmt.Fprintf(os.Stderr, "[%s] %s\n", c.Name, firstLine(c.Output))
	}
	fmt.Println(res.Text)
	return nil
}

// ask puts a call the policy asks about to the user on stdin.
func ask(_ context.Context, req sdk.ApprovalRequest) (sdk.Decision, error) {
	fmt.Fprintf(os.Stderr, "%s\nAllow? [y/N] ", req.Question)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y") {
		return sdk.ApproveOnce, nil
	}
	return sdk.Deny, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
