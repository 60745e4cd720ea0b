package sandbox

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS
