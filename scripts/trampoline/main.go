// Command trampoline only execve's its arguments: the baseline `gem run` is measured against
// in scripts/bench.sh (the least a Go launcher can cost: Go's start-up and one execve).
package main

import (
	"os"
	"os/exec"
	"syscall"
)

func main() {
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		os.Exit(127)
	}
	syscall.Exec(path, os.Args[1:], os.Environ())
	os.Exit(126)
}
