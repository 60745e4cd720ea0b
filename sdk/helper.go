package sdk

import (
	"os"

	"github.com/gemhost/gem/host/sandbox"
)

// The program embedding the agent is the sandbox's re-exec helper for the programs the
// agent starts (MCP servers, plugins, hooks, Shell): gem's own binary is not needed beside
// it. Started as the helper, the program becomes the sandboxed program at once, before its
// main runs.
func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:], os.Environ(), os.Stderr))
	}
	sandbox.ServeAsHelper()
}
