package sdk

import (
	"context"
	"io"
)

// RunHookCommand is RunAsCommand without the exit, for tests.
func RunHookCommand(h Hook, stdin io.Reader, stdout, stderr io.Writer) int {
	return h.runCommand(context.Background(), stdin, stdout, stderr)
}
