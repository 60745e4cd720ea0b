// Package archtest holds tests of rules that span the tree: dependencies point down
// (deps_test.go), libraries carry no advice in the command line's terms, and only the programs' main files and the config reader touch
// the process's streams, exit and environment; the scripts keep the user's Go caches
// (scripts_test.go); every program starts through host/launch (launch_test.go); README and docs/ stay short, linked and true to the tree (docs_test.go).
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const root = "../.."

// goFiles lists the non-test Go files below dirs (relative to the repository), leaving out
// testdata folders (test programs are mains of their own).
func goFiles(t *testing.T, dirs ...string) []string {
	t.Helper()
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestLibrariesCarryNoCLIAdvice: no string a library passes to a function (errors,
// messages, warnings) names a gem verb or flag; the CLI adds that (cmd/gem/internal/advice,
// cmd/gem/cli/errors.go).
func TestLibrariesCarryNoCLIAdvice(t *testing.T) {
	if len(cliAdvice(t, filepath.Join(root, "cmd/gem/internal/advice/advice.go"))) == 0 {
		t.Fatal("the check finds nothing in cmd/gem/internal/advice, which is all advice: it is broken")
	}
	files := goFiles(t, "host", "registry", "manifest")
	if len(files) < 50 {
		t.Fatalf("only %d library files found", len(files))
	}
	for _, path := range files {
		for _, s := range cliAdvice(t, path) {
			t.Errorf("%s: %q names a gem command or flag; return a typed error and add the advice in cmd/gem/internal/advice or the CLI", path, s)
		}
	}
}

var adviceText = regexp.MustCompile(`\bgem (ext|tools|trust|mcp|run|doctor|shell)\b|--(yes|consent|timeout|force|network|read|write|scope|all|json)\b`)

// cliAdvice lists the string literals a file passes to functions that name a gem verb or flag.
func cliAdvice(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		for _, arg := range call.Args {
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, _ := strconv.Unquote(lit.Value); adviceText.MatchString(s) {
					found = append(found, s)
				}
			}
		}
		return true
	})
	return found
}

// TestProcessAccessStaysAtTheEdge: os.Stdout, os.Stderr, os.Stdin, os.Exit, os.Getenv and
// os.Environ appear only in the programs' main.go and in internal/config.
func TestProcessAccessStaysAtTheEdge(t *testing.T) {
	if len(processAccess(t, filepath.Join(root, "internal/config/config.go"))) == 0 {
		t.Fatal("the check finds nothing in internal/config, the environment's reader: it is broken")
	}
	for _, path := range goFiles(t, "cmd", "host", "registry", "manifest", "internal") {
		rel, _ := filepath.Rel(root, path)
		if filepath.Base(rel) == "main.go" && strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "internal/config/") || strings.HasPrefix(rel, "internal/testbins/") {
			continue
		}
		for _, name := range processAccess(t, path) {
			t.Errorf("%s uses os.%s; take the streams or environment from the caller (iostreams, registry.Env, internal/config)", rel, name)
		}
	}
}

var processUse = regexp.MustCompile(`^(Stdout|Stderr|Stdin|Exit|Getenv|LookupEnv|Environ)$`)

// processAccess lists the os.X a file uses that reach the process's streams, exit or environment.
func processAccess(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && processUse.MatchString(sel.Sel.Name) {
				found = append(found, sel.Sel.Name)
			}
		}
		return true
	})
	return found
}
