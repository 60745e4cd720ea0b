package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// checkIndex checks an index a program puts in place (.git/index, renamed from index.lock):
// git checkout -- . and git restore . write its entries into the work tree without the
// checks git makes of a tree's paths, so an entry .git/hooks/post-checkout was written into
// the repository's hooks and run by that same checkout. No entry may have a .git component
// (compared as a case-folding file system would), nor ".", ".." or an empty one, and the
// index may not be split (its "link" extension names entries kept in another file). The
// object format is not known here: the content is read as both SHA-1 and SHA-256 indexes,
// and each reading that parses must pass.
func checkIndex(content []byte) error {
	parsed := false
	for _, hashLen := range []int{20, 32} {
		entries, err := indexEntries(content, hashLen)
		if err != nil {
			continue
		}
		parsed = true
		for _, e := range entries {
			if err := checkIndexPath(e.name); err != nil {
				return err
			}
		}
	}
	if !parsed {
		return errors.New("not an index git writes")
	}
	return nil
}

// checkIndexUpdate checks an index a program puts in place (content) against the one it
// replaces (old; nil when there is none): git checkout -- . writes a protected name's entry
// (.gemini/settings.json, .envrc, GEMINI.md: IsProtected) into the work tree as it writes
// any other, where the guard never lets the program write one. Every entry whose path is
// protected must be one of the old index's, the same path, stage, mode and object: a
// repository with GEMINI.md committed keeps it as it is, and the program adds or changes
// none (removing one is left to the work tree's rules, which refuse it there). Each reading
// of content that parses (SHA-1, SHA-256) is compared with the old one read the same way
// (an old index that does not parse so has no entries).
func checkIndexUpdate(old, content []byte) error {
	for _, hashLen := range []int{20, 32} {
		entries, err := indexEntries(content, hashLen)
		if err != nil {
			continue
		}
		before, _ := indexEntries(old, hashLen)
		if err := protectedEntriesKept(before, entries); err != nil {
			return err
		}
	}
	return nil
}

// protectedEntriesKept refuses an entry of after whose path is protected and which before
// does not hold as it is.
func protectedEntriesKept(before, after []indexEntry) error {
	protected := protectedMemo()
	had := make(map[indexEntry]bool)
	for _, e := range before {
		if protected(e.name) {
			had[e] = true
		}
	}
	for _, e := range after {
		if protected(e.name) && !had[e] {
			return fmt.Errorf("the entry %q adds or changes a protected name", e.name)
		}
	}
	return nil
}

// protectedMemo is IsProtected for the paths of an index, each folder judged once (an
// index is sorted: its entries come folder by folder).
func protectedMemo() func(name string) bool {
	folders := map[string]bool{}
	return func(name string) bool {
		cut := strings.LastIndexAny(name, `/\`)
		if cut < 0 {
			return isProtectedName(name)
		}
		dir := name[:cut]
		p, ok := folders[dir]
		if !ok {
			p = IsProtected(dir)
			folders[dir] = p
		}
		return p || isProtectedName(name[cut+1:])
	}
}

// checkIndexPath refuses a path git would refuse in a tree (verify_path).
func checkIndexPath(name string) error {
	for _, c := range strings.Split(strings.TrimSuffix(name, "/"), "/") { // a sparse folder ends in /
		if c == "" || c == "." || c == ".." || foldName(c) == ".git" {
			return fmt.Errorf("the entry %q is not a path of the work tree", name)
		}
	}
	return nil
}

// indexEntry is what an index entry says of a path of the work tree (its times and sizes,
// which git rewrites at will, left out).
type indexEntry struct {
	name   string
	stage  uint16 // 0, or a conflict's side (1 to 3)
	mode   uint32
	object string // the object's name (raw bytes)
}

// indexEntries reads the entries of an index (versions 2 to 4) whose object names are
// hashLen bytes, and fails on anything it does not read whole, or a split index.
func indexEntries(b []byte, hashLen int) ([]indexEntry, error) {
	bad := errors.New("not an index")
	if len(b) < 12+hashLen || string(b[:4]) != "DIRC" {
		return nil, bad
	}
	version, count := binary.BigEndian.Uint32(b[4:]), binary.BigEndian.Uint32(b[8:])
	if version < 2 || version > 4 {
		return nil, bad
	}
	end := len(b) - hashLen // the trailing checksum
	off, prev := 12, ""
	entries := make([]indexEntry, 0, min(int(count), len(b)/62))
	fixed := 40 + hashLen + 2 // times, dev, ino, mode, uid, gid, size, object name, flags
	for i := uint32(0); i < count; i++ {
		start := off
		if off+fixed > end {
			return nil, bad
		}
		flags := binary.BigEndian.Uint16(b[off+fixed-2:])
		e := indexEntry{
			stage:  flags >> 12 & 3,
			mode:   binary.BigEndian.Uint32(b[off+24:]),
			object: string(b[off+40 : off+40+hashLen]),
		}
		off += fixed
		if flags&0x4000 != 0 { // extended flags
			if version < 3 || off+2 > end {
				return nil, bad
			}
			off += 2
		}
		var name string
		if version == 4 {
			strip, n := indexVarint(b[off:end])
			if n == 0 || strip > uint64(len(prev)) {
				return nil, bad
			}
			off += n
			z := bytes.IndexByte(b[off:end], 0)
			if z < 0 {
				return nil, bad
			}
			name = prev[:len(prev)-int(strip)] + string(b[off:off+z])
			off += z + 1
		} else {
			z := bytes.IndexByte(b[off:end], 0)
			if z < 0 {
				return nil, bad
			}
			name = string(b[off : off+z])
			off = start + (off-start+z+8)&^7 // NUL-padded to a multiple of 8
			if off > end {
				return nil, bad
			}
		}
		e.name = name
		entries, prev = append(entries, e), name
	}
	for off < end { // extensions: a signature, a size, the data
		if off+8 > end {
			return nil, bad
		}
		sig, size := string(b[off:off+4]), int(binary.BigEndian.Uint32(b[off+4:]))
		if sig == "link" {
			return nil, errors.New("a split index")
		}
		if size < 0 || off+8+size > end {
			return nil, bad
		}
		off += 8 + size
	}
	return entries, nil
}

// indexVarint reads git's offset varint (index version 4), returning the value and the
// bytes read (0 if it does not end).
func indexVarint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(c&127)
		if c&128 == 0 {
			return v, i + 1
		}
		if i == 9 {
			break
		}
	}
	return 0, 0
}
