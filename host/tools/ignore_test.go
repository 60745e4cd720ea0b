package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIgnorer(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write(".gitignore", "# build output\nbuild/\n*.log\n!keep.log\n/top.txt\n")
	write("sub/.gitignore", "secret.txt\n")
	write(".geminiignore", "drafts/\n")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ig := NewIgnorer(root.FS())
	for _, c := range []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"main.go", false, false},
		{"build", true, true},
		{"build/out.bin", false, true},
		{"deep/build/out.bin", false, true},
		{"app.log", false, true},
		{"sub/app.log", false, true},
		{"keep.log", false, false},
		{"top.txt", false, true},
		{"sub/top.txt", false, false},
		{"sub/secret.txt", false, true},
		{"secret.txt", false, false},
		{"drafts/idea.md", false, true},
		{".git/config", false, true},
		{".gitignore", false, false},
	} {
		if got := ig.Ignored(c.path, c.isDir); got != c.want {
			t.Errorf("%s: ignored %v, want %v", c.path, got, c.want)
		}
	}
}
