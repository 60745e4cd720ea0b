// Package pathx owns the path questions gem asks everywhere: is a path its root or below it
// (Within, lexical), and what folder a path really is (Real, its links resolved, also for
// a path whose end does not exist yet: its existing part is). Callers
// resolve links first when links matter: trust, policy tiers, project extensions and
// settings are decided on real paths.
package pathx

import (
	"os"
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

// Real resolves path as the kernel will: the links and ".." of its existing part, in order
// (a ".." after a link from where the link leads), then the part that does not exist yet
// taken as written, cleaned. A relative path is resolved from the current folder when it
// exists, else returned cleaned (a variable left unexpanded).
func Real(path string) string {
	if !filepath.IsAbs(path) {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r
		}
		return filepath.Clean(path)
	}
	return RealOnDisk(path, nil)
}

// RealOnDisk is Real for an absolute path read, component by component, where disk says
// it is now (nil: where it is): a folder staged elsewhere, resolved as it will be once in
// its place.
func RealOnDisk(path string, disk func(string) string) string {
	if disk == nil {
		disk = func(p string) string { return p }
	}
	todo := strings.Split(path, "/")
	cur, links := "/", 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(disk(next))
		if err != nil {
			// Nothing there (yet): the rest is taken as written.
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(disk(next))
		if links++; err != nil || links > 40 {
			return filepath.Join(append([]string{next}, todo...)...) // the kernel refuses it too
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return cur
}
