package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRebase: after the lower folder is replaced, the upper folder keeps what the program
// made and loses what would hide the new version; a link the program left is removed, never
// followed; nothing changes while the lower folder is the same.
func TestRebase(t *testing.T) {
	base, outside := outsideTmp(t), outsideTmp(t)
	os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("not the program's"), 0o644)
	o, err := OverlayDirs(filepath.Join(base, "overlays", "ext"), "mcp-srv")
	if err != nil {
		t.Fatal(err)
	}
	o.Lower = filepath.Join(base, "ext")
	layout := func(root string, files map[string]string) {
		for name, body := range files {
			p := filepath.Join(root, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			switch {
			case body == "/":
				os.MkdirAll(p, 0o755)
			case body[0] == '>':
				os.Symlink(body[1:], p)
			default:
				os.WriteFile(p, []byte(body), 0o644)
			}
		}
	}
	layout(o.Lower, map[string]string{"code.js": "v1", "lib/a.js": "v1", "dist/": "/"})
	if err := o.Rebase(); err != nil { // the first start: stamps, nothing to prune
		t.Fatal(err)
	}
	layout(o.Upper, map[string]string{"code.js": "patched", "memory.jsonl": "state", "lib/a.js": "patched", "lib/cache.json": "state", "dist": ">" + outside})
	if err := o.Rebase(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(o.Upper, "code.js")); err != nil {
		t.Fatal("the same lower folder: the upper folder must not change")
	}
	os.RemoveAll(o.Lower) // the update: a new folder
	layout(o.Lower, map[string]string{"code.js": "v2", "lib/a.js": "v2", "dist/x.js": "v2"})
	if err := o.Rebase(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		kept bool
	}{
		{"code.js", false}, {"lib/a.js", false}, {"dist", false},
		{"memory.jsonl", true}, {"lib/cache.json", true}, {"lib", true},
	}
	for _, c := range cases {
		_, err := os.Lstat(filepath.Join(o.Upper, c.name))
		if (err == nil) != c.kept {
			t.Errorf("%s: kept=%v, want %v", c.name, err == nil, c.kept)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "keep.txt")); err != nil {
		t.Error("a link in the upper folder was followed:", err)
	}
}
