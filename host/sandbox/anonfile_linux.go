package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// anonymousFile is a file in memory with no name (memfd): the program's environment, its
// secrets included, never lands on a disk.
func anonymousFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("gem-program-env", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), envFileName), nil
}
