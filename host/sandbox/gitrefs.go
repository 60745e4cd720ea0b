package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A ref a program puts in place (refs/**, packed-refs, HEAD, ORIG_HEAD: ruleGitRef) names
// commits the user's git stash, reset --hard or checkout later writes into the work tree
// unchecked. With git's plumbing (hash-object, mktree, commit-tree, update-ref) a program
// that may not write .gemini/settings.json could make a commit that adds it and move the
// branch there. So a ref is only put in place by a checked rename (git writes X.lock and
// renames it onto X; packed-refs.new onto packed-refs), never written in place, and the
// commits it newly reaches — reachable from a value it names, not from any existing ref —
// must each change no protected path (IsProtected, any depth; added, changed or removed)
// relative to at least one of their parents (a root commit relative to an empty tree).
// A value that is not a commit (a tag is peeled to what it tags) is refused unless an
// existing ref names it already. Objects are read in Go (gitobjects.go): the supervisor
// runs no git.

// checkRefContent checks the syntax of a ref file (a loose ref: a value or "ref: <name>";
// packed-refs: a header, "<value> <name>" and "^<peeled>" lines) and returns the values it
// names.
func checkRefContent(content []byte) ([]string, error) {
	text := string(content)
	if target, ok := strings.CutPrefix(text, "ref: "); ok {
		name := strings.TrimSuffix(target, "\n")
		if !strings.HasPrefix(name, "refs/") || strings.ContainsAny(name, "\n\x00 ") {
			return nil, errors.New("a symbolic ref names no ref")
		}
		return nil, nil
	}
	var values []string
	for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if n == 0 && strings.HasPrefix(line, "# pack-refs with:") {
			continue
		}
		value, name, named := strings.Cut(strings.TrimPrefix(line, "^"), " ")
		if !isObjectName(value) || (named && (line[0] == '^' || !strings.HasPrefix(name, "refs/"))) {
			return nil, fmt.Errorf("line %d is not a ref git writes", n+1)
		}
		values = append(values, value)
	}
	if len(values) == 0 && text != "" && !strings.HasPrefix(text, "# pack-refs") {
		return nil, errors.New("not a ref git writes")
	}
	return values, nil
}

func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// gitDirOf is the repository holding the object store a ref file (real) belongs to: the
// nearest folder above it with an objects folder (a worktree's folder has none: its
// repository's).
func gitDirOf(real string) (string, error) {
	for dir := filepath.Dir(real); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		if st, err := os.Lstat(filepath.Join(dir, "objects")); err == nil && st.IsDir() {
			return dir, nil
		}
	}
	return "", errors.New("no repository holds the ref")
}

// checkRefUpdate checks the values a ref file put in place at real names (checkRefContent)
// against the repository's history.
func checkRefUpdate(real string, content []byte) error {
	values, err := checkRefContent(content)
	if err != nil || len(values) == 0 {
		return err
	}
	dir, err := gitDirOf(real)
	if err != nil {
		return err
	}
	old, err := existingValues(dir)
	if err != nil {
		return err
	}
	var fresh []objectID
	for _, v := range values {
		id, ok := parseObjectID(v)
		if !ok {
			return errors.New("a SHA-256 repository's refs are not checked: refused")
		}
		if !old[id] {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	st := newObjectStore(dir)
	defer st.Close()
	return checkNewHistory(st, old, fresh)
}

// existingValues are the values the repository's refs (in dir) name now: loose refs under
// refs/ (not locks, which are data until renamed), packed-refs, HEAD and ORIG_HEAD.
func existingValues(dir string) (map[objectID]bool, error) {
	old := map[objectID]bool{}
	add := func(content []byte) {
		if values, err := checkRefContent(content); err == nil {
			for _, v := range values {
				if id, ok := parseObjectID(v); ok {
					old[id] = true
				}
			}
		}
	}
	for _, name := range []string{"packed-refs", "HEAD", "ORIG_HEAD"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			add(b)
		}
	}
	err := filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone while read
		}
		if d.Type().IsRegular() && !strings.HasSuffix(d.Name(), ".lock") {
			if b, err := os.ReadFile(p); err == nil {
				add(b)
			}
		}
		return nil
	})
	return old, err
}

// checkNewHistory walks the commits the values fresh reach and the existing refs (old) do
// not, and refuses one that changes a protected path relative to each of its parents. The
// walk paints commits from both sides newest first (by committer time, as git's merge-base
// does) and stops when no commit only the new side reaches is left: a commit reached late
// from the old side (clock skew) is at worst checked needlessly.
func checkNewHistory(st *objectStore, old map[objectID]bool, fresh []objectID) error {
	w := newPaintWalk(st)
	for _, id := range fresh {
		c, err := peelCommit(st, id)
		if err != nil {
			return err
		}
		w.push(c, paintNew)
	}
	for id := range old {
		if c, err := peelCommit(st, id); err == nil {
			w.push(c, paintOld)
		}
	}
	newOnly, err := w.run()
	if err != nil {
		return err
	}
	for _, c := range newOnly {
		if err := checkCommitChanges(st, c); err != nil {
			return err
		}
	}
	return nil
}

// peelCommit is the commit id names (a tag peeled), or an error for anything else.
func peelCommit(st *objectStore, id objectID) (*gitCommit, error) {
	for range 16 {
		typ, data, err := st.read(id)
		if err != nil {
			return nil, err
		}
		switch typ {
		case "commit":
			return parseCommit(id, data)
		case "tag":
			next, ok := parseTagTarget(data)
			if !ok {
				return nil, fmt.Errorf("tag %s names no object", id)
			}
			id = next
		default:
			return nil, fmt.Errorf("object %s is a %s, not a commit", id, typ)
		}
	}
	return nil, errors.New("a chain of tags too long")
}

// checkCommitChanges refuses a commit that changes a protected path relative to every
// parent (a root commit: relative to an empty tree). A new commit's parent the guard cannot
// read is refused, not taken for a shallow clone's boundary: the program may write it into
// objects/ after the check (a merge of a commit adding .gemini/settings.json, HEAD^2), and
// .git/shallow is the program's to write too.
func checkCommitChanges(st *objectStore, c *gitCommit) error {
	tree, err := st.tree(c.tree)
	if err != nil {
		return err
	}
	parents := make([][]treeEntry, len(c.parents))
	for i, p := range c.parents {
		pc, err := st.commit(p)
		if err != nil {
			return fmt.Errorf("commit %s: parent: %w", c.id, err)
		}
		if parents[i], err = st.tree(pc.tree); err != nil {
			return err
		}
	}
	var firstErr error
	for _, pt := range parents {
		err := protectedDiff(st, pt, tree, "")
		if err == nil {
			return nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if len(c.parents) == 0 {
		firstErr = protectedDiff(st, nil, tree, "")
	}
	if firstErr != nil {
		return fmt.Errorf("commit %s: %w", c.id, firstErr)
	}
	return nil
}

// protectedDiff refuses a difference between trees a and b (at prefix) in a protected path
// (added, changed or removed), descending only into folders whose object differs.
func protectedDiff(st *objectStore, a, b []treeEntry, prefix string) error {
	before := make(map[string]treeEntry, len(a))
	for _, e := range a {
		before[e.name] = e
	}
	seen := make(map[string]bool, len(b))
	for _, e := range b {
		seen[e.name] = true
		o, had := before[e.name]
		if had && o == e {
			continue
		}
		if err := protectedEntryDiff(st, o, e, prefix); err != nil {
			return err
		}
	}
	for _, o := range a {
		if !seen[o.name] {
			if err := protectedEntryDiff(st, o, treeEntry{}, prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// protectedEntryDiff judges one entry that differs (o before, e after; the zero entry where
// there is none).
func protectedEntryDiff(st *objectStore, o, e treeEntry, prefix string) error {
	name := e.name
	if name == "" {
		name = o.name
	}
	p := prefix + name
	if IsProtected(p) {
		return fmt.Errorf("%s is protected", p)
	}
	if !o.isDir() && !e.isDir() {
		return nil
	}
	sub := func(x treeEntry) ([]treeEntry, error) {
		if !x.isDir() {
			return nil, nil
		}
		return st.tree(x.id)
	}
	ta, err := sub(o)
	if err != nil {
		return err
	}
	tb, err := sub(e)
	if err != nil {
		return err
	}
	return protectedDiff(st, ta, tb, p+"/")
}
