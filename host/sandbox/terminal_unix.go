//go:build unix

package sandbox

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}

// inForeground reports whether gem's process group is the terminal's foreground one: only
// then may it hand the terminal to a child (a `gem run … &` must not take it).
func inForeground(f *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// takeTerminalBack makes gem's process group the terminal's foreground again after a child
// had it (SIGTTOU, which a background group gets for this, is ignored meanwhile).
func takeTerminalBack(f *os.File) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCSPGRP, unix.Getpgrp())
}
