// Package pathx owns the one lexical path question gem asks everywhere: is a path its root
// or below it. Callers resolve links first when links matter.
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
