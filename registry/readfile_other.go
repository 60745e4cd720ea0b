//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package registry

import (
	"os"
	"path/filepath"
)

type dirHandle struct{ path string }

func openDir(path string) (*dirHandle, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return &dirHandle{path: path}, nil
}

func (d *dirHandle) Close() {}

func (d *dirHandle) readSmall(rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(d.path, rel))
}

// stat is not cached on these systems: every manifest is read.
func (d *dirHandle) stat(rel string) (fileID, bool) { return fileID{}, false }

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func (d *dirHandle) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(d.path, rel))
	return err == nil
}

// dirStamp: no identities on these systems (the index of write roots is never trusted).
func dirStamp(path string) (stamp string, changed int64, ok bool) { return "", 0, false }

func readOwnFile(path string) ([]byte, error) { return nil, os.ErrPermission }
