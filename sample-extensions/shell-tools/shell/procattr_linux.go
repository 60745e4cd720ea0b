package shell

import "syscall"

// procAttr ends the job's leader when the plugin dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
}
