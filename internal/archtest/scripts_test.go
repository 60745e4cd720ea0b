package archtest

import (
	"os"
	"path/filepath"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestScriptsBuildWithTheUsersGoCaches: a script that moves HOME (demo.sh, the benchmarks:
// a home of their own) runs go only before the move, or after pinning GOCACHE and
// GOMODCACHE to the user's; else each run builds from empty caches (make demo spent 27 of
// its 33 s rebuilding the fake model server). demo.sh says what it is doing before each go
// command, so a wait is never silent.
func TestScriptsBuildWithTheUsersGoCaches(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(root, "scripts", "*.sh"))
	if err != nil || len(scripts) < 4 {
		t.Fatalf("scripts: %v %v", scripts, err)
	}
	goCalls := 0
	for _, path := range scripts {
		f := parseScript(t, path)
		moved, pinned := false, map[string]bool{}
		var previous string // the command before, in source order
		syntax.Walk(f, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.DeclClause:
				for _, a := range n.Args {
					if a.Name == nil || n.Variant.Value != "export" {
						continue
					}
					pinned[a.Name.Value] = pinned[a.Name.Value] || !moved
					moved = moved || a.Name.Value == "HOME"
				}
			case *syntax.CallExpr:
				name := ""
				if len(n.Args) > 0 {
					name = n.Args[0].Lit()
				}
				for _, a := range n.Assigns {
					if a.Name.Value == "HOME" && (len(n.Args) == 0 || name == "go") {
						moved = true
					}
				}
				if name == "go" {
					goCalls++
					if moved && !(pinned["GOCACHE"] && pinned["GOMODCACHE"]) {
						t.Errorf("%s:%s: go runs after HOME moved, with empty Go caches: build before the move, or export GOCACHE and GOMODCACHE first", filepath.Base(path), n.Pos())
					}
					if filepath.Base(path) == "demo.sh" && previous != "note" && previous != "say" {
						t.Errorf("demo.sh:%s: go runs without a word before it (note …): the demo would wait in silence", n.Pos())
					}
				}
				if name != "" {
					previous = name
				}
			}
			return true
		})
	}
	if goCalls < 3 {
		t.Fatalf("only %d go commands found in the scripts: the check is broken", goCalls)
	}
}

func parseScript(t *testing.T, path string) *syntax.File {
	t.Helper()
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := syntax.NewParser().Parse(src, path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
