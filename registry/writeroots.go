package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/paths"
)

// The folders every extension's consent record lets its programs write are what no PATH entry
// may lie in (host/commands' programWritable): a program could plant a launcher there that
// another program would run. Reading every record on every start made gem run's cost grow
// with the number of extensions installed (37 ms with 1,000 against 13 ms with 20), so they
// are kept in one index, $GEM_HOME/cache/consent-writes, beside the discovery index, with
// the stamp (device, inode, modification and change times) of the folders the records live
// in (receipts/, and consent/ of gem before receipts). Every record is written by a rename
// or removed, which changes its folder's stamp: an index whose stamp is not the folders'
// now is stale and the records are read again (and the index rewritten).
//
// The index is trusted only when it cannot hide a folder:
//   - it lives in gem's home, which no program gem starts may write (host/sandbox keeps it
//     out of every grant), and is read only when it is a regular file of this user that no
//     one else may write, not a link;
//   - it is written only when no change was under way: no pending receipt (whose effect
//     depends on the extension's folder, not on the records' folder), the folders' stamps
//     the same before and after the records were read, and both older than racyWindow (as
//     the discovery index: a change within the same clock tick keeps the same stamp);
//   - when the folders cannot be looked at (or on systems without file identities) it is
//     not used, and when the records cannot be listed, each extension's record is read
//     (Extension.ConsentGrant).
//
// A record edited in place by hand (not renamed) keeps its folder's stamp: gem never does
// this, and the index then keeps the folders the record named before until the next
// consent, grant, install or uninstall.

const writesIndexMagic = "gemwrites1"

// writesIndex is the index's file.
type writesIndex struct {
	Magic  string              `json:"magic"`
	Stamp  string              `json:"stamp"`
	Writes map[string][]string `json:"writes,omitempty"` // extension folder (Dir) → write roots
}

// WriteRoots are the folders each extension's consent record lets its programs write.
type WriteRoots struct {
	env    Env
	byDir  map[string][]string // nil: read each extension's record
	source string              // "index", "records" or "each" (for tests)
}

// Of returns the folders x's consent record lets its programs write: x.ConsentGrant(env)'s
// WriteRoots.
func (w *WriteRoots) Of(x *Extension) []string {
	if w.byDir == nil {
		return x.ConsentGrant(w.env).WriteRoots()
	}
	return w.byDir[filepath.Clean(x.Dir)]
}

// ReadWriteRoots returns the write roots of every consent record: from the index when it is
// fresh, else from the records (rewriting the index when it may).
func ReadWriteRoots(env Env) *WriteRoots {
	w := &WriteRoots{env: env}
	stamp, changed, stampOK := recordsStamp(env)
	if stampOK {
		if data, err := readOwnFile(env.ConsentWritesFile()); err == nil {
			var ix writesIndex
			if json.Unmarshal(data, &ix) == nil && ix.Magic == writesIndexMagic && ix.Stamp == stamp {
				w.byDir, w.source = ix.Writes, "index"
				if w.byDir == nil {
					w.byDir = map[string][]string{}
				}
				return w
			}
		}
	}
	byDir, settled, ok := writesFromRecords(env)
	if !ok {
		w.source = "each"
		return w
	}
	w.byDir, w.source = byDir, "records"
	after, _, afterOK := recordsStamp(env)
	if stampOK && afterOK && settled && after == stamp && time.Now().UnixNano()-changed > int64(racyWindow) {
		ix := writesIndex{Magic: writesIndexMagic, Stamp: stamp, Writes: byDir}
		if data, err := json.Marshal(ix); err == nil {
			os.MkdirAll(filepath.Dir(env.ConsentWritesFile()), 0o700)
			fsx.WriteFileAtomic(env.ConsentWritesFile(), data, 0o600) // best effort
		}
	}
	return w
}

// recordsStamp is the stamp of the folders consent records live in, and when the later of
// them last changed.
func recordsStamp(env Env) (stamp string, changed int64, ok bool) {
	var parts []string
	for _, dir := range []string{env.ReceiptDir(), filepath.Dir(env.LegacyConsentFile("x"))} {
		s, c, ok := dirStamp(dir)
		if !ok {
			return "", 0, false
		}
		parts, changed = append(parts, s), max(changed, c)
	}
	return strings.Join(parts, " "), changed, true
}

// writesFromRecords reads every consent record: the write roots by extension folder, whether
// no change was under way (no pending receipt), and ok false when the records' folders
// cannot be listed.
func writesFromRecords(env Env) (byDir map[string][]string, settled, ok bool) {
	current := map[string]*Receipt{} // receipts found under their own folder's name
	var others []string              // folders named by the other records
	pending := map[string]bool{}
	settled = true
	for _, dir := range []string{env.ReceiptDir(), filepath.Dir(env.LegacyConsentFile("x"))} {
		entries, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			return nil, false, false
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			r, err := readReceiptFile(path)
			if err != nil {
				continue // unreadable: ReadReceipt fails too, and grants nothing
			}
			switch {
			case strings.HasSuffix(e.Name(), paths.PendingReceiptSuffix):
				settled, pending[r.Dir] = false, true
				others = append(others, r.Dir)
			case path == env.ReceiptFile(r.Dir):
				current[r.Dir] = r
			default:
				others = append(others, r.Dir)
			}
		}
	}
	byDir = map[string][]string{}
	add := func(dir string, r *Receipt) {
		if agreedManifest(r) == nil {
			return
		}
		if w := r.Grant.WriteRoots(); len(w) > 0 {
			byDir[dir] = w
		}
	}
	for dir, r := range current {
		if !pending[dir] {
			add(dir, r) // ReadReceipt(env, dir) is r: no pending receipt for it
		}
	}
	for dir := range pending {
		others = append(others, dir)
	}
	for _, dir := range others {
		if _, done := byDir[dir]; done || (current[dir] != nil && !pending[dir]) {
			continue
		}
		if r, err := ReadReceipt(env, dir); err == nil && r != nil {
			add(dir, r)
		}
	}
	return byDir, settled, true
}

// WriteRoots are the folders g lets programs write: Write and, for a consent's grant, what
// the manifest's sandbox.write (and its plugins') resolved to when the user agreed.
func (g Grant) WriteRoots() []string {
	out := append([]string(nil), g.Write...)
	for _, r := range g.Roots {
		if strings.HasSuffix(r.Field, "sandbox.write") {
			out = append(out, r.Real)
		}
	}
	return out
}
