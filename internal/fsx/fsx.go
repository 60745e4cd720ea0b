// Package fsx holds gem's file helpers, used wherever gem writes or reads state: writing a
// file atomically (WriteFileAtomic), reading a file without leaving a folder (ReadBeneath:
// links planted by an extension or a cloned project cannot lead out), and naming a cache or
// record file after a path (PathKey). It is a leaf: it imports nothing of gem's.
package fsx

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFileAtomic writes data to a temporary file beside path, syncs it, and renames it into
// place, so readers see the old or the new content, never a part. It makes path's folder.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(tmp.Name(), perm)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// PathKey names a cache or record file after a path (FNV-1a; crypto/sha256 would cost the
// light front its package initialisation).
func PathKey(path string) string {
	h := fnv.New64a()
	h.Write([]byte(path))
	return strconv.FormatUint(h.Sum64(), 16)
}
