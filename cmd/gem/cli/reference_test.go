package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/iostreams"
)

// TestCLIReferenceIsCurrent: docs/cli holds exactly what Reference renders from the app, so
// a verb or flag changed without `make docs` fails here; and the reference has a section
// for every verb.
func TestCLIReferenceIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "docs", "cli")
	want := Reference()
	ios, _, _, _ := iostreams.Test()
	var all strings.Builder
	for _, data := range want {
		all.Write(data)
	}
	for _, path := range leafPaths("", NewApp(&Factory{IO: ios}).Commands) {
		if !strings.Contains(all.String(), "# gem "+path+"\n") {
			t.Errorf("the reference has no section for gem %s", path)
		}
	}
	have, err := filepath.Glob(filepath.Join(dir, "gem*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range have {
		if _, ok := want[filepath.Base(f)]; !ok {
			t.Errorf("%s is no longer generated (no such verb): run make docs", f)
		}
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(data) {
			t.Errorf("docs/cli/%s differs from the app's command tree (or is missing): run make docs", name)
		}
	}
}
