//go:build linux || darwin || freebsd || netbsd || openbsd

package registry

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// dirHandle is an open root folder; files below it are opened relative to it (openat),
// which spares the kernel walking the root's path again for every manifest.
type dirHandle struct {
	fd   int
	path string
}

func openDir(path string) (*dirHandle, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &dirHandle{fd: fd, path: path}, nil
}

func (d *dirHandle) Close() { unix.Close(d.fd) }

// stat returns the identity of a file below d (following symlinks).
func (d *dirHandle) stat(rel string) (fileID, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, rel, &st, 0); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fileID{}, false
	}
	return fileID{ino: uint64(st.Ino), size: uint64(st.Size),
		mtime: uint64(st.Mtim.Sec)*1e9 + uint64(st.Mtim.Nsec), ctime: uint64(st.Ctim.Sec)*1e9 + uint64(st.Ctim.Nsec)}, true
}

// exists reports whether a file below d exists (following symlinks).
func (d *dirHandle) exists(rel string) bool {
	var st unix.Stat_t
	return unix.Fstatat(d.fd, rel, &st, 0) == nil
}

// readSmall reads a file below d in as few system calls as it can: open, one read into a
// buffer sized for a manifest, close (a larger file takes more reads; no fstat).
func (d *dirHandle) readSmall(rel string) ([]byte, error) {
	fd, err := unix.Openat(d.fd, rel, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			return nil, fs.ErrNotExist
		}
		return nil, &os.PathError{Op: "open", Path: d.path + "/" + rel, Err: err}
	}
	defer unix.Close(fd)
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := (*bp)[:0]
	for {
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: d.path + "/" + rel, Err: err}
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			// A short read of a regular file means end of file.
			*bp = buf
			return append([]byte(nil), buf...), nil
		}
		buf = append(buf, 0)[:len(buf)]
	}
}

// readBufs holds read buffers sized for manifests, reused across files.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// readFile reads a whole file with plain system calls. os.ReadFile first registers the file
// with Go's network poller (an epoll set created on first use, a few system calls more),
// which a short-lived gem process does not need.
func readFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	size := 4096
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Size > 0 && st.Size < 1<<30 {
		size = int(st.Size) + 1 // +1: the read that sees the end fits without growing
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// dirStamp is the identity of folder path (device, inode, modification and change times in
// nanoseconds; "-" when it does not exist) and the later of its two times: any name made,
// renamed or removed in it changes the stamp. ok is false when it is not a folder or cannot
// be looked at.
func dirStamp(path string) (stamp string, changed int64, ok bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return "-", 0, err == unix.ENOENT
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return "", 0, false
	}
	m, c := int64(st.Mtim.Sec)*1e9+int64(st.Mtim.Nsec), int64(st.Ctim.Sec)*1e9+int64(st.Ctim.Nsec)
	return fmt.Sprintf("%d:%d:%d:%d", uint64(st.Dev), uint64(st.Ino), m, c), max(m, c), true
}

// readOwnFile reads path when it is a regular file (not a link) of this user that no one
// else may write: a file of gem's home that nothing but gem wrote.
func readOwnFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	return io.ReadAll(f)
}
