package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
)

// previewEdit is the unified diff a core edit tool's call would make (write_file, replace),
// computed on the file as it is now, to show in its confirmation; ok is false for any other
// call, or one that would fail (its own error says why when it runs).
func (t *Tool) previewEdit(args json.RawMessage) (string, bool) {
	c, ok := t.backend.(*coreBackend)
	if !ok {
		return "", false
	}
	var a replaceArgs // write_file's fields are a subset: file_path; content is read apart
	var w writeFileArgs
	if json.Unmarshal(args, &a) != nil || json.Unmarshal(args, &w) != nil {
		return "", false
	}
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", false
	}
	before, _ := c.read(rel)
	var after string
	switch t.Declared {
	case "write_file":
		after = w.Content
	case "replace":
		if a.OldString == "" {
			after = a.NewString
			break
		}
		n := strings.Count(string(before), a.OldString)
		if n == 0 || (!a.AllowMultiple && n != max(a.ExpectedReplacements, 1)) {
			return "", false
		}
		after = strings.ReplaceAll(string(before), a.OldString, a.NewString)
	default:
		return "", false
	}
	return strings.TrimRight(diffStat(c.abs(rel), string(before), after).Diff, "\n"), true
}

// editStat is what an edit changed: the unified diff of the file and its line counts (what
// Gemini CLI's stats report as files.totalLinesAdded and totalLinesRemoved).
type editStat struct {
	File         string `json:"file"`
	Diff         string `json:"diff"`
	LinesAdded   int    `json:"lines_added"`
	LinesRemoved int    `json:"lines_removed"`
}

// diffStat compares a file's old and new text.
func diffStat(file, before, after string) *editStat {
	st := &editStat{File: file, Diff: udiff.Unified(file, file, before, after)}
	for _, line := range strings.Split(st.Diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			st.LinesAdded++
		case strings.HasPrefix(line, "-"):
			st.LinesRemoved++
		}
	}
	return st
}

// writeAtomic replaces the workspace file rel with data: written beside it, then renamed
// into place, so a gem that dies half-way leaves the old content or the new, never a part.
// An existing file keeps its mode. What writable refuses is not written.
func (c *coreBackend) writeAtomic(rel string, data []byte) error {
	if err := c.writable(rel); err != nil {
		return err
	}
	dir, base, err := c.parentRoot(rel)
	if err != nil {
		return err
	}
	if dir != c.root {
		defer dir.Close()
	}
	mode := os.FileMode(0o644)
	if st, err := dir.Lstat(base); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: write_file and replace write files only", c.abs(rel))
		}
		mode = st.Mode().Perm()
	}
	tmp := fmt.Sprintf(".%s.gem-%d-%d", base, os.Getpid(), time.Now().UnixNano())
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return c.fsError(rel, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, base) // a link put at base meanwhile is replaced, not followed
	}
	if err != nil {
		dir.Remove(tmp)
		return c.fsError(rel, err)
	}
	return nil
}

// parentRoot opens the folder rel is written in, one component at a time, making missing
// ones: each must be a real folder (not a link) and stay the one checked while it is opened,
// so a sandboxed program that swaps a folder of the path for a link between gem's check and
// its write (to land it in .gemini, say) makes the write fail instead. The caller closes
// the root unless it is c.root.
func (c *coreBackend) parentRoot(rel string) (*os.Root, string, error) {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	cur := c.root
	for i, name := range parts[:len(parts)-1] {
		st, err := cur.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(name, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				st, err = cur.Lstat(name)
			}
		}
		if err == nil && !st.IsDir() {
			err = &PathError{c.abs(rel), c.abs(strings.Join(parts[:i+1], "/")) + " is not a folder (or is a symbolic link): core tools do not write through links"}
		}
		var sub *os.Root
		if err == nil {
			if c.beforeOpen != nil {
				c.beforeOpen(strings.Join(parts[:i+1], "/"))
			}
			sub, err = cur.OpenRoot(name)
		}
		if err == nil {
			if now, serr := sub.Stat("."); serr != nil || !os.SameFile(st, now) {
				sub.Close()
				err = &PathError{c.abs(rel), c.abs(strings.Join(parts[:i+1], "/")) + " changed while gem was writing (a program replaced it): not written; try again"}
			}
		}
		if cur != c.root {
			cur.Close()
		}
		if err != nil {
			return nil, "", c.fsError(rel, err)
		}
		cur = sub
	}
	return cur, parts[len(parts)-1], nil
}
