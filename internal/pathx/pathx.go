// Package pathx owns the path questions gem asks everywhere: is a path its root or below it
// (Within, lexical), and what folder a path really is (Real, its links resolved). Callers
// resolve links first when links matter: trust, policy tiers, project extensions and
// settings are decided on real paths.
package pathx

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is root or below it, after cleaning both (lexically: ".."
// is resolved, links are not). Both should be absolute, or both relative to one folder.
func Within(root, path string) bool {
	root, path = filepath.Clean(root), filepath.Clean(path)
	if path == root {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// Real is path with every symbolic link resolved, absolute when path is; a path that cannot
// be resolved (it does not exist) is returned cleaned, as given.
func Real(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}
