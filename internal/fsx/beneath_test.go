package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadBeneath: links that lead out of the folder (directly, through a link to ".", or
// by an absolute path) are refused; files inside, and links inside, are read; a FIFO is
// refused without blocking.
func TestReadBeneath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ext")
	os.MkdirAll(filepath.Join(root, "top", "sub"), 0o755)
	os.WriteFile(filepath.Join(base, "id_rsa"), []byte("PRIVATE"), 0o600)
	os.WriteFile(filepath.Join(root, "GEMINI.md"), []byte("ok"), 0o644)
	os.WriteFile(filepath.Join(root, "big.md"), make([]byte, 100), 0o644)
	os.Symlink("GEMINI.md", filepath.Join(root, "alias.md"))
	os.Symlink("../id_rsa", filepath.Join(root, "direct.md"))
	os.Symlink(".", filepath.Join(root, "top", "deep"))
	os.Symlink("../../../id_rsa", filepath.Join(root, "top", "chain.md")) // top/deep/deep/chain.md is the same
	os.Symlink(filepath.Join(base, "id_rsa"), filepath.Join(root, "abs.md"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644); err != nil { // an archive can plant one
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(root, "zero.md"))
	cases := []struct {
		rel     string
		want    string
		outside bool
		err     bool
	}{
		{"GEMINI.md", "ok", false, false},
		{"alias.md", "ok", false, false},
		{"direct.md", "", true, true},
		{"top/deep/deep/deep/chain.md", "", true, true},
		{"abs.md", "", true, true},
		{"../id_rsa", "", true, true},
		{filepath.Join(base, "id_rsa"), "", true, true},
		{"big.md", "", false, true},
		{"missing.md", "", false, true},
		{"fifo.md", "", false, true}, // refused at once: opening it does not wait for a writer
		{"zero.md", "", true, true},
	}
	for _, c := range cases {
		data, err := ReadBeneath(root, c.rel, 50)
		if (err != nil) != c.err || string(data) != c.want || (c.outside && !errors.Is(err, ErrOutside)) {
			t.Errorf("ReadBeneath(%s) = %q, %v", c.rel, data, err)
		}
	}
}
