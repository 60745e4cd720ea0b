package tools

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

func (c *coreBackend) listDirectory(a listDirArgs) (string, error) {
	if out, rel, ok, err := c.outputRoot(a.DirPath); ok {
		if err != nil {
			return "", err
		}
		defer out.Close()
		entries, err := fs.ReadDir(out.FS(), filepath.ToSlash(rel))
		if err != nil {
			return "", outputError(a.DirPath, err)
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, "[DIR] "+e.Name())
			} else {
				names = append(names, e.Name())
			}
		}
		return fmt.Sprintf("%s:\n%s\n", a.DirPath, strings.Join(names, "\n")), nil
	}
	rel, err := c.rel(a.DirPath)
	if err != nil {
		return "", err
	}
	entries, err := fs.ReadDir(c.root.FS(), filepath.ToSlash(rel))
	if err != nil {
		return "", c.fsError(rel, err)
	}
	ignore := a.FileFilteringOptions.respect()
	var dirs, files []string
	hidden := 0
	for _, e := range entries {
		if slices.ContainsFunc(a.Ignore, func(p string) bool { ok, _ := doublestar.Match(p, e.Name()); return ok }) {
			continue
		}
		if ignore && e.Name() != ".git" && c.ignore.Ignored(path.Join(filepath.ToSlash(rel), e.Name()), e.IsDir()) {
			hidden++
			continue
		}
		if e.IsDir() {
			dirs = append(dirs, "[DIR] "+e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	if len(dirs)+len(files) == 0 && hidden == 0 {
		return fmt.Sprintf("%s is empty", c.abs(rel)), nil
	}
	text := fmt.Sprintf("%s:\n%s\n", c.abs(rel), strings.Join(append(dirs, files...), "\n"))
	if hidden > 0 {
		text += fmt.Sprintf("(%d ignored by .gitignore or .geminiignore)\n", hidden)
	}
	return text, nil
}
