package registry

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The discovery index caches, per root, each child manifest's file identity (inode, size,
// modification and change times, in nanoseconds) and its head (name, version,
// description). Discovery then stats a manifest (one fstatat) instead of opening, reading
// and decoding it, as git's index does for the work tree. An entry is trusted only when all
// four identity fields match. Like git's "racily clean" rule, a manifest changed less than
// racyWindow before the index was written is not stored, so an edit within the same clock
// tick is never missed. Links, invalid JSON and unreadable manifests are never cached.
// The index lives in $GEM_HOME/cache/discovery; losing it costs one slow run.

const indexMagic = "gemidx3\n"

// racyWindow: manifests changed this recently are not cached (a variable for tests).
var racyWindow = 2 * time.Second

type fileID struct {
	ino, size, mtime, ctime uint64
}

type indexEntry struct {
	folder                     string
	id                         fileID
	name, version, description string
	commands                   []string // name, binary template, name, binary template, …
}

type rootIndex struct {
	path    string
	entries []indexEntry // as loaded, sorted by folder (a map costs twice the memory here)
	hits    atomic.Int64 // entries confirmed by this discovery
	mu      sync.Mutex
	stored  map[string]indexEntry
	dirty   bool
}

func indexPath(env Env, root string) string {
	return env.IndexFile(root)
}

func loadRootIndex(path string) *rootIndex {
	ix := &rootIndex{path: path, stored: map[string]indexEntry{}}
	data, err := readFile(path)
	if err != nil || len(data) <= len(indexMagic) || !bytes.HasPrefix(data, []byte(indexMagic)) {
		ix.dirty = err == nil // rewrite a corrupt index
		return ix
	}
	// The file's bytes, never written again, are viewed as one string: every name below is a
	// substring of it, so decoding 1,000 entries copies nothing (each new page costs a fault).
	all := unsafe.String(&data[len(indexMagic)], len(data)-len(indexMagic))
	r := data[len(indexMagic):]
	sub := func(k, l int) string { off := len(all) - len(r) + k; return all[off : off+l] }
	n, k := binary.Uvarint(r)
	if k <= 0 || n > 1<<20 {
		ix.dirty = true
		return ix
	}
	r = r[k:]
	ix.entries = make([]indexEntry, 0, n)
	for range n {
		var e indexEntry
		var folder string
		ok := true
		for _, f := range []*uint64{&e.id.ino, &e.id.size, &e.id.mtime, &e.id.ctime} {
			v, k := binary.Uvarint(r)
			if k <= 0 {
				ok = false
				break
			}
			*f, r = v, r[k:]
		}
		for _, s := range []*string{&folder, &e.name, &e.version, &e.description} {
			if !ok {
				break
			}
			l, k := binary.Uvarint(r)
			if k <= 0 || uint64(len(r)-k) < l {
				ok = false
				break
			}
			*s, r = sub(k, int(l)), r[k+int(l):]
		}
		if ok {
			var n uint64
			if n, k = binary.Uvarint(r); k <= 0 || n > 1<<16 {
				ok = false
			} else {
				r = r[k:]
				for range n {
					l, k := binary.Uvarint(r)
					if k <= 0 || uint64(len(r)-k) < l {
						ok = false
						break
					}
					e.commands, r = append(e.commands, sub(k, int(l))), r[k+int(l):]
				}
			}
		}
		if !ok {
			ix.entries, ix.dirty = nil, true
			return ix
		}
		e.folder = folder
		ix.entries = append(ix.entries, e)
	}
	if !slices.IsSortedFunc(ix.entries, cmpFolder) {
		slices.SortFunc(ix.entries, cmpFolder)
	}
	return ix
}

func cmpFolder(a, b indexEntry) int { return strings.Compare(a.folder, b.folder) }

// lookup returns the cached head for folder when id matches.
func (ix *rootIndex) lookup(folder string, id fileID) (indexEntry, bool) {
	i, ok := slices.BinarySearchFunc(ix.entries, folder, func(e indexEntry, f string) int { return strings.Compare(e.folder, f) })
	if !ok || ix.entries[i].id != id {
		return indexEntry{}, false
	}
	e := ix.entries[i]
	ix.hits.Add(1)
	return e, true
}

// store records a freshly read manifest.
func (ix *rootIndex) store(folder string, e indexEntry) {
	ix.mu.Lock()
	ix.stored[folder] = e
	ix.dirty = true
	ix.mu.Unlock()
}

// changed reports whether the index must be written: entries were added or changed, or
// some are gone.
func (ix *rootIndex) changed() bool {
	return ix.dirty || int(ix.hits.Load()) != len(ix.entries)
}

// save writes the index: the entries stored in this run plus those of hitFolders (the
// children confirmed from the index); best effort.
func (ix *rootIndex) save(now time.Time, hitFolders []string) {
	fresh := ix.stored
	for _, folder := range hitFolders {
		if i, ok := slices.BinarySearchFunc(ix.entries, folder, func(e indexEntry, f string) int { return strings.Compare(e.folder, f) }); ok {
			fresh[folder] = ix.entries[i]
		}
	}
	cutoff := uint64(now.Add(-racyWindow).UnixNano())
	buf := make([]byte, 0, 64+len(fresh)*128)
	buf = append(buf, indexMagic...)
	var keep []string
	for folder, e := range fresh {
		if e.id.mtime < cutoff && e.id.ctime < cutoff {
			keep = append(keep, folder)
		}
	}
	slices.Sort(keep)
	buf = binary.AppendUvarint(buf, uint64(len(keep)))
	for _, folder := range keep {
		e := fresh[folder]
		for _, v := range []uint64{e.id.ino, e.id.size, e.id.mtime, e.id.ctime} {
			buf = binary.AppendUvarint(buf, v)
		}
		for _, s := range []string{folder, e.name, e.version, e.description} {
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
		buf = binary.AppendUvarint(buf, uint64(len(e.commands)))
		for _, s := range e.commands {
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
	}
	if err := os.MkdirAll(filepath.Dir(ix.path), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(ix.path), ".idx-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(buf)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), ix.path) != nil {
		os.Remove(tmp.Name())
	}
}
