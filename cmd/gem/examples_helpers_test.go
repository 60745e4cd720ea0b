package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"

	urfave "github.com/urfave/cli/v2"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/cmd/gem/cli"
	"github.com/gemhost/gem/internal/iostreams"
)

// sampleWords are the names of the bundled samples' extensions, tools and servers: a help
// example that names one can run against them.
var sampleWords = regexp.MustCompile(`\b(hello|notes|mcp_notes_\w+|gallery|shell-tools|run_shell_command)\b`)

// exampleSetup runs before an example that starts so (it needs a state the examples before it
// may have changed).
var exampleSetup = map[string]string{
	"gem ext uninstall hello":         "gem ext install $GEM_REPO/sample-extensions/hello --consent --force",
	"gem ext update hello --rollback": `rm -rf "$WORK/hello-src" && cp -r "$GEM_REPO/sample-extensions/hello" "$WORK/hello-src" && gem ext install "$WORK/hello-src" --consent --force && sed -i 's/"version": "[^"]*"/"version": "9.9.9"/' "$WORK/hello-src/gemini-extension.json" && gem ext update hello --consent`,
}

// exampleUndo runs after an example that starts so, to leave the state the next ones need.
var exampleUndo = map[string]string{
	"gem ext disable hello": "gem ext enable hello && gem ext enable hello --scope workspace",
}

// exampleExempt are examples that name a sample but cannot run here, and why.
var exampleExempt = map[string]string{
	"gem mcp serve --http 127.0.0.1:0": "serves until stopped (mcp.txtar drives it)",
}

func init() {
	// helpexamples: every EXAMPLES line of gem's help that names a bundled sample runs
	// (through sh, with gem on PATH) and exits 0; "| jq …" tails are dropped (jq may be
	// missing), comments too. Prints each example run.
	scriptCmds["helpexamples"] = func(ts *testscript.TestScript, neg bool, args []string) {
		app := cli.NewApp(cli.NewFactory(iostreams.FromFiles(os.Stdin, os.Stdout, os.Stderr, os.Getenv)))
		var examples []string
		var walk func(prefix string, cmds []*urfave.Command)
		collect := func(desc string) {
			_, rest, ok := strings.Cut(desc, "EXAMPLES\n")
			if !ok {
				return
			}
			for _, line := range strings.Split(rest, "\n") {
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				examples = append(examples, line)
			}
		}
		walk = func(prefix string, cmds []*urfave.Command) {
			for _, c := range cmds {
				collect(c.Description)
				walk(prefix+" "+c.Name, c.Subcommands)
			}
		}
		collect(app.Description)
		walk("gem", app.Commands)
		ran := 0
		// destructive ones last
		sort.SliceStable(examples, func(i, j int) bool {
			return !strings.Contains(examples[i], "uninstall") && strings.Contains(examples[j], "uninstall")
		})
		for _, ex := range examples {
			line := ex
			if i := strings.Index(line, "  #"); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			if i := strings.Index(line, " | jq "); i >= 0 {
				line = line[:i]
			}
			if !sampleWords.MatchString(line) || exampleExempt[line] != "" {
				continue
			}
			for prefix, setup := range exampleSetup {
				if strings.HasPrefix(line, prefix) {
					if out, err := exampleShell(ts, setup).CombinedOutput(); err != nil {
						ts.Fatalf("setting up for %q: %s: %v\n%s", line, setup, err, out)
					}
				}
			}
			out, err := exampleShell(ts, line).CombinedOutput()
			if err != nil {
				ts.Fatalf("help example %q failed: %v\n%s", line, err, out)
			}
			fmt.Fprintf(ts.Stdout(), "ran: %s\n", line)
			ran++
			for prefix, undo := range exampleUndo {
				if strings.HasPrefix(line, prefix) {
					if out, err := exampleShell(ts, undo).CombinedOutput(); err != nil {
						ts.Fatalf("after %q: %s: %v\n%s", line, undo, err, out)
					}
				}
			}
		}
		if ran == 0 {
			ts.Fatalf("no help example names a sample")
		}
	}
}

func exampleShell(ts *testscript.TestScript, line string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = ts.Getenv("PWD")
	if cmd.Dir == "" {
		cmd.Dir = ts.Getenv("WORK")
	}
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "GEM_REPO", "GEM_GITHUB_API_URL", "GEM_GEMINI_BASE_URL", "GIT_CONFIG_NOSYSTEM", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	return cmd
}
