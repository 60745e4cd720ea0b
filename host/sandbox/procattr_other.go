//go:build unix && !linux

package sandbox

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
