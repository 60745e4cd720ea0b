package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHintsHaveNoParentheses: a hint is shown in parentheses after its error, so the texts
// of the hint tables (hintRules, apiHint here; advice's) hold none: "x (y (z))" reads badly.
func TestHintsHaveNoParentheses(t *testing.T) {
	sources := map[string][]string{
		"errors.go":                    {"hintRules", "apiHint"},
		"../internal/advice/advice.go": {"For", "Block", "sandboxFix"},
	}
	texts := 0
	for file, names := range sources {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if !declares(decl, names) {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				texts++
				if s, _ := strconv.Unquote(lit.Value); strings.ContainsAny(s, "()") {
					t.Errorf("%s: hint %q has parentheses; say it with a colon, a comma or a semicolon", file, s)
				}
				return true
			})
		}
	}
	if texts < 40 {
		t.Fatalf("only %d hint texts found: the check is broken", texts)
	}
}

// declares says whether decl is the function or variable named one of names.
func declares(decl ast.Decl, names []string) bool {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		return d.Recv == nil && slices.Contains(names, d.Name.Name)
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			if v, ok := spec.(*ast.ValueSpec); ok && slices.Contains(names, v.Names[0].Name) {
				return true
			}
		}
	}
	return false
}
