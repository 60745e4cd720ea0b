package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxFuncLines is the longest a function of the command line's code may be, from its func
// keyword to its closing brace: longer decisions are tables, longer flows are steps.
const maxFuncLines = 60

// TestCLIFunctionsAreShort: no function of cmd/gem/cli (its tests aside) is longer than
// maxFuncLines.
func TestCLIFunctionsAreShort(t *testing.T) {
	files := goFiles(t, "cmd/gem/cli")
	if len(files) < 20 {
		t.Fatalf("only %d files found in cmd/gem/cli: the check is broken", len(files))
	}
	funcs := 0
	for _, path := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %s is %d lines, over %d: make its decisions a table or split it into steps", rel, fd.Name.Name, n, maxFuncLines)
			}
		}
	}
	if funcs < 100 {
		t.Fatalf("only %d functions found: the check is broken", funcs)
	}
}
