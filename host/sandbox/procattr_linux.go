package sandbox

import "syscall"

// childProcAttr is for plugins, MCP servers, hooks and !{…} shells: a session of their own
// (no controlling terminal, so no terminal to push input into), killed with gem.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
