package sandbox

import (
	"os/exec"
	"syscall"
)

// childProcAttr is for plugins, MCP servers, hooks and !{…} shells: a session of their own
// (no controlling terminal, so no terminal to push input into), killed with gem.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// pidNamespaced reports whether cmd starts in a PID namespace of its own: everything it
// starts ends with it.
func pidNamespaced(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWPID != 0
}
