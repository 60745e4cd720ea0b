//go:build darwin || freebsd || netbsd || openbsd

package sandbox

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
