package archtest

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// maxFileLines is the longest a hand-written Go file may be: a longer one holds several
// concerns, each of which reads better as a file of its own.
const maxFileLines = 700

// generated is the marker of a generated Go file (go.dev/s/generatedcode).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// TestFilesAreShort: no hand-written Go file of the repository (tests and test programs
// included, generated files aside) is longer than maxFileLines.
func TestFilesAreShort(t *testing.T) {
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated.Match(data) {
			return nil
		}
		files++
		if n := bytes.Count(data, []byte("\n")); n > maxFileLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s is %d lines, over %d: split it by concern, one file each", rel, n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("only %d Go files found: the check is broken", files)
	}
}
