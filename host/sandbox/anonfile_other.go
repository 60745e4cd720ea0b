//go:build unix && !linux

package sandbox

import (
	"os"
	"syscall"
)

// anonymousFile is a temporary file removed at once (this system has no memfd), closed to
// other users.
func anonymousFile() (*os.File, error) {
	f, err := os.CreateTemp("", "gem-env-")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	os.Remove(f.Name())
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), envFileName), nil
}
