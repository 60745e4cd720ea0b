//go:build !linux

package registry

import "path/filepath"

func realPath(path string) (string, error) { return filepath.EvalSymlinks(path) }
