package sdk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestPackageDocExampleIsCompiled: every line of the package doc's code, in order, is a line
// of the compiled func Example (which adds the error checks and the scripted model), so the
// doc's calls have the signatures the compiler checked (it once called NewAgent without its
// context).
func TestPackageDocExampleIsCompiled(t *testing.T) {
	fset := token.NewFileSet()
	doc, err := parser.ParseFile(fset, "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var snippet []string
	for _, line := range strings.Split(doc.Doc.Text(), "\n") {
		if code, ok := strings.CutPrefix(line, "\t"); ok {
			snippet = append(snippet, strings.TrimSpace(code))
		} else if len(snippet) > 0 {
			break // the first code block only
		}
	}
	if len(snippet) < 4 {
		t.Fatalf("the package doc has no code block: %q", snippet)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, "example_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Example" {
			for _, line := range strings.Split(string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset]), "\n") {
				body = append(body, strings.TrimSpace(line))
			}
		}
	}
	if body == nil {
		t.Fatal("example_test.go has no func Example")
	}
	i := 0
	for _, line := range body {
		if i < len(snippet) && line == snippet[i] {
			i++
		}
	}
	if i < len(snippet) {
		t.Errorf("the package doc's line %q is not in func Example (in that order): keep the doc's code the compiled example's", snippet[i])
	}
}
