//go:build unix && !linux

package sandbox

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
