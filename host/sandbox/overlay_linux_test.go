package sandbox

import (
	"fmt"
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

// TestOverlayDirs: every folder named on the way is a plain name, made 0700 and checked; a
// folder on the way that is a link is refused, not followed.
func TestOverlayDirs(t *testing.T) {
	base := filepath.Join(outsideTmp(t), "overlays", "ext")
	elsewhere := outsideTmp(t)
	for _, tc := range []struct {
		name  string
		names []string
		ok    bool
	}{
		{"a program", []string{"mcp-srv"}, true},
		{"a program's cache", []string{"caches", "mcp-srv", "npm"}, true},
		{"no name", nil, false},
		{"a parent in the middle", []string{"caches", "..", "npm"}, false},
		{"a path as a name", []string{"caches", "a/b"}, false},
		{"a comma (overlayfs options)", []string{"caches", "a,b"}, false},
		{"through a link", []string{"linked", "npm"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "through a link" {
				os.MkdirAll(base, 0o700)
				os.Symlink(elsewhere, filepath.Join(base, "linked"))
			}
			o, err := OverlayDirs(base, tc.names...)
			if (err == nil) != tc.ok {
				t.Fatalf("OverlayDirs(%q) = %v, %v; want ok %v", tc.names, o, err, tc.ok)
			}
			if err == nil {
				if st, err := os.Stat(o.Upper); err != nil || st.Mode().Perm() != 0o700 {
					t.Errorf("upper %s: %v %v", o.Upper, st, err)
				}
			}
		})
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("a folder was made through the link: %v", entries)
	}
}

// TestOverlayWorkFolders: each start gets a work folder of its own; those of gem processes
// that ended are removed at the next start (mode-0 folders overlayfs left inside too), those
// of running ones are kept.
func TestOverlayWorkFolders(t *testing.T) {
	base := filepath.Join(outsideTmp(t), "overlays", "ext")
	first, err := OverlayDirs(base, "mcp-srv")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(first.Upper)
	ended := 1 << 22 // above pid_max's default: no such process
	for processExists(ended) {
		ended++
	}
	stale := filepath.Join(dir, fmt.Sprintf("work-%d-1", ended))
	os.MkdirAll(filepath.Join(stale, "work"), 0o700)
	os.Chmod(filepath.Join(stale, "work"), 0)
	running := filepath.Join(dir, fmt.Sprintf("work-%d-1", os.Getppid()))
	os.MkdirAll(running, 0o700)
	second, err := OverlayDirs(base, "mcp-srv")
	if err != nil {
		t.Fatal(err)
	}
	if second.Work == first.Work || second.Upper != first.Upper {
		t.Errorf("two starts: work %s and %s, upper %s and %s; want two work folders, one upper", first.Work, second.Work, first.Upper, second.Upper)
	}
	for _, c := range []struct {
		path string
		kept bool
	}{{stale, false}, {running, true}, {first.Work, true}, {second.Work, true}} {
		if _, err := os.Stat(c.path); (err == nil) != c.kept {
			t.Errorf("%s: kept %v, want %v", c.path, err == nil, c.kept)
		}
	}
}
