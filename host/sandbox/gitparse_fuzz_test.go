package sandbox

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"testing"
)

// The git parsers run in the guard's supervisor on what a sandboxed program wrote: whatever
// the bytes, they answer or refuse, never panic (a panic would end the supervisor and every
// program beside it).

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte{11, 11, 0x90, 11})
	f.Add([]byte("abc"), []byte{3, 5, 0x91, 1, 2, 3, 'x', 'y', 'z'})
	f.Add([]byte{}, []byte{0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err == nil && len(out) > maxObject {
			t.Fatalf("a delta made %d bytes, over the object limit", len(out))
		}
	})
}

func FuzzParseCommit(f *testing.F) {
	f.Add([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter A <a@b> 1700000000 +0000\n\nmsg\n"))
	f.Add([]byte("tree x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseCommit(objectID{}, data)
		parseTagTarget(data)
	})
}

func FuzzCheckRefContent(f *testing.F) {
	f.Add([]byte("4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"))
	f.Add([]byte("ref: refs/heads/main\n"))
	f.Add([]byte("# pack-refs with: peeled fully-peeled sorted \n4b825dc642cb6eb9a060e54bf8d69288fbee4904 refs/heads/main\n^4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRefContent(data)
	})
}

func FuzzCheckIndexUpdate(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"), []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte{}, []byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, old, content []byte) {
		checkIndex(content)
		checkIndexUpdate(old, content)
	})
}

// FuzzObjectStore: a repository whose one loose object, pack index and pack are the fuzzer's
// bytes; reading objects, commits and trees from it answers or refuses.
func FuzzObjectStore(f *testing.F) {
	var loose bytes.Buffer
	z := zlib.NewWriter(&loose)
	z.Write([]byte("tree 25\x00100644 a\x00aaaaaaaaaaaaaaaaaaaa"))
	z.Close()
	idx := append([]byte("\xfftOc\x00\x00\x00\x02"), make([]byte, 256*4+40)...)
	f.Add(loose.Bytes(), idx, []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, looseData, idxData, packData []byte) {
		dir := t.TempDir()
		id := objectID{0xab, 0xcd}
		name := id.String()
		for path, data := range map[string][]byte{
			filepath.Join("objects", name[:2], name[2:]):       looseData,
			filepath.Join("objects", "pack", "pack-fuzz.idx"):  idxData,
			filepath.Join("objects", "pack", "pack-fuzz.pack"): packData,
		} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, path), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		st := newObjectStore(dir)
		defer st.Close()
		ids := []objectID{id, {}}
		if len(idxData) >= 8+256*4+20 {
			var named objectID
			copy(named[:], idxData[8+256*4:])
			ids = append(ids, named)
		}
		for _, x := range ids {
			st.read(x)
			st.commit(x)
			st.tree(x)
		}
	})
}
