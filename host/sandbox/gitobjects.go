package sandbox

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A repository's objects, read in Go for the ref checks (gitrefs.go): the supervisor runs no
// git, and the light front links no git library. Loose objects (zlib) and packs (an index of
// version 2, deltas by offset or by name) of a SHA-1 repository; commits, trees and tags are
// read whole, a blob's content never.

// objectID is an object's SHA-1 name.
type objectID [20]byte

func (id objectID) String() string { return hex.EncodeToString(id[:]) }

func parseObjectID(s string) (objectID, bool) {
	var id objectID
	if len(s) != 40 {
		return id, false
	}
	_, err := hex.Decode(id[:], []byte(s))
	return id, err == nil
}

// maxObject is the largest commit, tree or tag read; maxDeltaChain the longest chain of
// deltas followed.
const maxObject, maxDeltaChain = 64 << 20, 10000

var errNoObject = errors.New("no such object")

// objectStore reads the objects of the repository at dir (its objects folder).
type objectStore struct {
	dir   string
	packs []*packFile
	open  bool
}

func newObjectStore(dir string) *objectStore { return &objectStore{dir: dir} }

func (s *objectStore) Close() {
	for _, p := range s.packs {
		p.f.Close()
	}
}

// read returns an object's type ("commit", "tree", "tag", "blob") and, but for a blob, its
// content. readDepth reads a delta's base (depth > 0): a blob's content too.
func (s *objectStore) read(id objectID) (string, []byte, error) {
	return s.readDepth(id, 0)
}

func (s *objectStore) readDepth(id objectID, depth int) (string, []byte, error) {
	if depth > maxDeltaChain {
		return "", nil, errors.New("a chain of deltas too long")
	}
	typ, data, err := s.loose(id, depth > 0)
	if !errors.Is(err, errNoObject) {
		return typ, data, err
	}
	if err := s.openPacks(); err != nil {
		return "", nil, err
	}
	for _, p := range s.packs {
		if off, ok := p.find(id); ok {
			return p.objectAt(s, off, depth)
		}
	}
	return "", nil, fmt.Errorf("object %s: %w", id, errNoObject)
}

// loose reads objects/xx/yyyy (a blob's content when full).
func (s *objectStore) loose(id objectID, full bool) (string, []byte, error) {
	name := id.String()
	f, err := os.Open(filepath.Join(s.dir, "objects", name[:2], name[2:]))
	if err != nil {
		return "", nil, fmt.Errorf("object %s: %w", id, errNoObject)
	}
	defer f.Close()
	z, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", nil, fmt.Errorf("object %s: %w", id, err)
	}
	br := bufio.NewReader(z)
	head, err := br.ReadString(0)
	if err != nil {
		return "", nil, fmt.Errorf("object %s: %w", id, err)
	}
	typ, size, _ := strings.Cut(strings.TrimSuffix(head, "\x00"), " ")
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 {
		return "", nil, fmt.Errorf("object %s: a bad header", id)
	}
	if typ == "blob" && !full {
		return typ, nil, nil
	}
	if n > maxObject {
		return "", nil, fmt.Errorf("object %s: too large", id)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(br, data); err != nil {
		return "", nil, fmt.Errorf("object %s: %w", id, err)
	}
	return typ, data, nil
}

// openPacks opens every pack with an index (once).
func (s *objectStore) openPacks() error {
	if s.open {
		return nil
	}
	s.open = true
	idxs, _ := filepath.Glob(filepath.Join(s.dir, "objects", "pack", "pack-*.idx"))
	for _, name := range idxs {
		p, err := openPack(name)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(name), err)
		}
		s.packs = append(s.packs, p)
	}
	return nil
}

// packFile is a pack and its index (version 2).
type packFile struct {
	f       *os.File
	fanout  [256]uint32
	names   []byte // 20 bytes each, sorted
	offsets []byte // 4 bytes each
	large   []byte // 8 bytes each
}

func openPack(idxName string) (*packFile, error) {
	b, err := os.ReadFile(idxName)
	if err != nil {
		return nil, err
	}
	if len(b) < 8+256*4 || string(b[:4]) != "\xfftOc" || binary.BigEndian.Uint32(b[4:]) != 2 {
		return nil, errors.New("not a pack index of version 2")
	}
	p := &packFile{}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(b[8+4*i:])
	}
	n := int(p.fanout[255])
	off := 8 + 256*4
	if n < 0 || len(b) < off+n*(20+4+4)+40 {
		return nil, errors.New("a short pack index")
	}
	p.names = b[off : off+20*n]
	off += 20*n + 4*n // names, CRCs
	p.offsets = b[off : off+4*n]
	p.large = b[off+4*n : len(b)-40]
	if p.f, err = os.Open(strings.TrimSuffix(idxName, ".idx") + ".pack"); err != nil {
		return nil, err
	}
	return p, nil
}

// find is the offset of id in the pack.
func (p *packFile) find(id objectID) (int64, bool) {
	lo := 0
	if id[0] > 0 {
		lo = int(p.fanout[id[0]-1])
	}
	hi := int(p.fanout[id[0]])
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(p.names[20*(lo+i):20*(lo+i)+20], id[:]) >= 0 })
	if i >= hi || !bytes.Equal(p.names[20*i:20*i+20], id[:]) {
		return 0, false
	}
	o := binary.BigEndian.Uint32(p.offsets[4*i:])
	if o&0x80000000 == 0 {
		return int64(o), true
	}
	j := int(o &^ 0x80000000)
	if 8*j+8 > len(p.large) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p.large[8*j:])), true
}

var packTypes = map[byte]string{1: "commit", 2: "tree", 3: "blob", 4: "tag"}

// objectAt reads the object at off (a delta resolved against its base).
func (p *packFile) objectAt(s *objectStore, off int64, depth int) (string, []byte, error) {
	if depth > maxDeltaChain {
		return "", nil, errors.New("a chain of deltas too long")
	}
	r := bufio.NewReader(io.NewSectionReader(p.f, off, 1<<62))
	c, err := r.ReadByte()
	if err != nil {
		return "", nil, err
	}
	kind, size, shift := c>>4&7, uint64(c&15), 4
	for c&0x80 != 0 && shift < 64 {
		if c, err = r.ReadByte(); err != nil {
			return "", nil, err
		}
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	var baseType string
	var base []byte
	switch kind {
	case 6: // a delta against the object at a lower offset
		c, err := r.ReadByte()
		rel := int64(c & 0x7f)
		for err == nil && c&0x80 != 0 && rel < 1<<55 {
			c, err = r.ReadByte()
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if err != nil || rel <= 0 || rel > off {
			return "", nil, errors.New("a bad delta offset")
		}
		baseType, base, err = p.objectAt(s, off-rel, depth+1)
		if err != nil {
			return "", nil, err
		}
	case 7: // a delta against an object by name
		var id objectID
		if _, err := io.ReadFull(r, id[:]); err != nil {
			return "", nil, err
		}
		if baseType, base, err = s.readDepth(id, depth+1); err != nil {
			return "", nil, err
		}
	default:
		typ, ok := packTypes[kind]
		if !ok {
			return "", nil, fmt.Errorf("an object of type %d", kind)
		}
		if typ == "blob" && depth == 0 {
			return typ, nil, nil
		}
		data, err := inflate(r, size)
		return typ, data, err
	}
	delta, err := inflate(r, size)
	if err != nil {
		return "", nil, err
	}
	data, err := applyDelta(base, delta)
	if baseType == "blob" && depth == 0 {
		data = nil
	}
	return baseType, data, err
}

// inflate reads size bytes of zlib data.
func inflate(r io.Reader, size uint64) ([]byte, error) {
	if size > maxObject {
		return nil, errors.New("an object too large")
	}
	z, err := zlib.NewReader(r)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	_, err = io.ReadFull(z, data)
	return data, err
}

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("a bad delta")
	varint := func() (uint64, bool) {
		var v uint64
		for shift := 0; len(delta) > 0 && shift < 64; shift += 7 {
			c := delta[0]
			delta = delta[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != uint64(len(base)) || dstSize > maxObject {
		return nil, bad
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		if op&0x80 == 0 { // insert
			if op == 0 || int(op) > len(delta) {
				return nil, bad
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
			continue
		}
		var off, n uint64
		for i := range 7 {
			if op&(1<<i) == 0 {
				continue
			}
			if len(delta) == 0 {
				return nil, bad
			}
			if i < 4 {
				off |= uint64(delta[0]) << (8 * i)
			} else {
				n |= uint64(delta[0]) << (8 * (i - 4))
			}
			delta = delta[1:]
		}
		if n == 0 {
			n = 0x10000
		}
		if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
			return nil, bad
		}
		out = append(out, base[off:off+n]...)
	}
	if uint64(len(out)) != dstSize {
		return nil, bad
	}
	return out, nil
}

// gitCommit is what the ref checks read of a commit.
type gitCommit struct {
	id      objectID
	tree    objectID
	parents []objectID
	when    int64 // committer time (seconds)
}

// commit reads the commit id.
func (s *objectStore) commit(id objectID) (*gitCommit, error) {
	typ, data, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if typ != "commit" {
		return nil, fmt.Errorf("object %s is a %s, not a commit", id, typ)
	}
	return parseCommit(id, data)
}

func parseCommit(id objectID, data []byte) (*gitCommit, error) {
	c := &gitCommit{id: id}
	head, _, _ := bytes.Cut(data, []byte("\n\n"))
	hasTree := false
	for _, line := range strings.Split(string(head), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "tree", "parent":
			h, ok := parseObjectID(value)
			if !ok {
				return nil, fmt.Errorf("commit %s: a bad %s line", id, key)
			}
			if key == "tree" {
				c.tree, hasTree = h, true
			} else {
				c.parents = append(c.parents, h)
			}
		case "committer":
			f := strings.Fields(value)
			if len(f) >= 2 {
				c.when, _ = strconv.ParseInt(f[len(f)-2], 10, 64)
			}
		}
	}
	if !hasTree {
		return nil, fmt.Errorf("commit %s: no tree", id)
	}
	return c, nil
}

// treeEntry is an entry of a tree.
type treeEntry struct {
	name string
	mode string // "40000" a folder
	id   objectID
}

func (e treeEntry) isDir() bool { return e.mode == "40000" }

// tree reads the tree id.
func (s *objectStore) tree(id objectID) ([]treeEntry, error) {
	typ, data, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if typ != "tree" {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id, typ)
	}
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		z := bytes.IndexByte(data, 0)
		if sp < 0 || z < sp || len(data) < z+21 {
			return nil, fmt.Errorf("tree %s: a bad entry", id)
		}
		e := treeEntry{mode: string(data[:sp]), name: string(data[sp+1 : z])}
		copy(e.id[:], data[z+1:z+21])
		out = append(out, e)
		data = data[z+21:]
	}
	return out, nil
}

// tagTarget reads the object a tag names.
func parseTagTarget(data []byte) (objectID, bool) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	v, ok := strings.CutPrefix(string(line), "object ")
	if !ok {
		return objectID{}, false
	}
	return parseObjectID(v)
}
