//go:build unix && !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// pidNamespaced is false: PID namespaces are Linux's.
func pidNamespaced(*exec.Cmd) bool { return false }
