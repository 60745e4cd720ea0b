package registry

import (
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// realPath resolves every symlink of path with three system calls (open with O_PATH, read
// the /proc link, close) where filepath.EvalSymlinks takes one lstat per path element.
func realPath(path string) (string, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return filepath.EvalSymlinks(path) // for the error it gives
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n == len(buf) {
		return filepath.EvalSymlinks(path)
	}
	return string(buf[:n]), nil
}
