package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sandboxStarts are host/sandbox's functions that start a program.
var sandboxStarts = map[string]bool{"Command": true, "StartProcess": true, "StartCommand": true, "RunContext": true, "ExecInPlace": true, "Run": true, "Prestart": true}

// launchOnly: the folders whose files may call sandboxStarts. Every other file, tests
// included, starts a program through host/launch.
var launchOnly = []string{"host/launch", "host/sandbox"}

// TestOneLauncher: every program gem starts goes through host/launch; no other file of the
// module (tests included) names host/sandbox's start functions.
func TestOneLauncher(t *testing.T) {
	uses := map[string][]string{} // folder → "file:line: sandbox.X"
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, u := range sandboxStartUses(t, path) {
			uses[filepath.Dir(rel)] = append(uses[filepath.Dir(rel)], rel+":"+u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(uses["host/launch"]) < len(sandboxStarts) {
		t.Fatalf("host/launch names %d of sandbox's %d start functions: the check (or the launcher) is broken: %v", len(uses["host/launch"]), len(sandboxStarts), uses["host/launch"])
	}
	var dirs []string
	for dir := range uses {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		if !containsDir(launchOnly, dir) {
			for _, u := range uses[dir] {
				t.Errorf("%s: start programs through host/launch (launch.Extension, launch.User, launch.Tool), not host/sandbox", u)
			}
		}
	}
}

func containsDir(dirs []string, dir string) bool {
	for _, d := range dirs {
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return true
		}
	}
	return false
}

// sandboxStartUses lists where path names one of sandboxStarts through its import of
// host/sandbox, as "line: sandbox.X".
func sandboxStartUses(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == module+"/host/sandbox" {
			name = "sandbox"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && sandboxStarts[sel.Sel.Name] {
			found = append(found, strconv.Itoa(fset.Position(sel.Pos()).Line)+": "+name+"."+sel.Sel.Name)
		}
		return true
	})
	return found
}
