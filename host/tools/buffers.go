package tools

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
)

// editorText is the editor's text of rel (Options.Buffers), when it cannot be another file's.
// The editor reads by path, following links, with the user's rights, and checks before and
// after its read cannot see a program that swaps the file for a link to a secret and back
// in between: the editor is asked only about a file reached through no link whose folder
// no program gem started may change from before the question to after the answer
// (sandbox.WatchWrites; never where programs may outlive the gem that started them,
// sandbox.MayOutlive); while one may, the model reads the file as gem reads it.
func (c *coreBackend) editorText(rel string) (string, bool) {
	if c.buffers == nil || !c.linkFree(rel) {
		return "", false
	}
	watch := sandbox.WatchWrites(filepath.Dir(c.abs(rel)))
	if watch == nil {
		return "", false
	}
	text, ok := c.buffers(c.abs(rel))
	if !watch.Quiet() || !ok || len(text) > coreMaxFile || !c.linkFree(rel) {
		return "", false
	}
	return text, true
}

// linkFree reports whether rel names a regular file of the workspace reached through no
// symbolic link.
func (c *coreBackend) linkFree(rel string) bool {
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i := range parts {
		st, err := c.root.Lstat(filepath.Join(parts[:i+1]...))
		if err != nil || st.Mode()&fs.ModeSymlink != 0 || (i == len(parts)-1 && !st.Mode().IsRegular()) {
			return false
		}
	}
	return true
}
