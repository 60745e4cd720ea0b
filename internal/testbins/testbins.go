// Package testbins builds the helper programs a package's tests run (test plugins, test MCP
// servers) once per test binary, into a temporary folder removed when the tests end.
package testbins

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds each package path (relative to the test's folder) into the binary path its
// key points at, runs the tests and cleans up; a build failure stops the tests with the
// compiler's output.
func Main(m *testing.M, targets map[*string]string) {
	dir, err := os.MkdirTemp("", "gem-testbins")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for dst, pkg := range targets {
		*dst = filepath.Join(dir, filepath.Base(pkg))
		if out, err := exec.Command("go", "build", "-o", *dst, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
