//go:build !linux

package shell

import "syscall"

// procAttr: without Pdeathsig, the PTY hang-up when the plugin dies is what ends the job.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true, Setctty: true} }
