package sandbox

import "syscall"

// sysProcAttr is for children that share the user's terminal (gem shell's commands): a
// process group of their own, killed with gem.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// childProcAttr is for plugins, MCP servers, hooks and !{…} shells: a session of their own
// (no controlling terminal, so no terminal to push input into), killed with gem.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
