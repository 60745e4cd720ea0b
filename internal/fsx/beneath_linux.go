package fsx

import (
	"os"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel (relative, or absolute within root) under root with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS): the kernel refuses any path, symbolic
// links included, that resolves outside root, with no window between check and open.
// Kernels without openat2 (before 5.6) get the portable check.
func openBeneath(root, rel string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
	if err == unix.ENOSYS {
		return openBeneathPortable(root, rel)
	}
	if err != nil {
		return nil, beneathError(root, rel, err)
	}
	return os.NewFile(uintptr(fd), root+"/"+rel), nil
}
