package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
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
				t.Errorf("%s: start programs through the session's host/launch.Launcher, not host/sandbox", u)
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

// launchPreparers are host/commands' functions that work out a program's workspace or prepare
// a program with it: the session's Launcher calls them (with the workspace it worked out
// once), nothing else does.
var launchPreparers = map[string]bool{"Workspace": true, "ProjectRoot": true, "Program": true, "Isolation": true, "UserProgram": true, "Prepare": true, "PrepareRun": true, "ExplainProgram": true}

// projectFileSites are the files that still work out the workspace themselves, for the
// project's own files (context files, prompt commands, policies, saved chats), not for a
// program: each may call commands.Workspace this many times. The list only shrinks (pass the
// session's Launcher.Workspace instead).
var projectFileSites = map[string]int{
	"host/agent/context.go":   2, // the project's GEMINI.md, its .gemini/skills and agents
	"host/agent/promptcmd.go": 1, // the project's .gemini/commands
}

// TestWorkspaceWorkedOutOnce: the workspace a program gets is worked out once per session, by
// its Launcher (host/launch.New): no other file of the module calls host/commands' workspace
// and preparation functions (launchPreparers) — or only the project-file sites, as counted —
// and host/commands itself prepares with the workspace it is given, never one of its own.
func TestWorkspaceWorkedOutOnce(t *testing.T) {
	sites := map[string]int{} // file → commands.Workspace calls (projectFileSites)
	inLaunch := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.Dir(rel)
		for _, u := range selectorUses(t, path, module+"/host/commands", launchPreparers) {
			switch {
			case dir == "host/launch":
				inLaunch++
			case u.name == "Workspace" && projectFileSites[rel] > 0:
				sites[rel]++
			default:
				t.Errorf("%s:%d: commands.%s: prepare programs through the session's host/launch.Launcher (its Workspace, Program, UserProgram, Prepare…), which works the workspace out once", rel, u.line, u.name)
			}
		}
		if dir == "host/commands" && filepath.Base(rel) != "workspace.go" {
			for _, line := range identCalls(t, path, "Workspace", "ProjectRoot") {
				t.Errorf("%s:%d: host/commands works out no workspace of its own: take the one the Launcher passes (ProgramSpec.Root, the root argument)", rel, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if inLaunch < 5 {
		t.Fatalf("host/launch calls host/commands' preparers %d times: the check (or the launcher) is broken", inLaunch)
	}
	for file, n := range sites {
		if n > projectFileSites[file] {
			t.Errorf("%s works out the workspace %d times (at most %d): use the session's Launcher.Workspace", file, n, projectFileSites[file])
		}
	}
}

type selectorUse struct {
	name string
	line int
}

// selectorUses lists where path names one of names through its import of pkg.
func selectorUses(t *testing.T, path, pkg string, names map[string]bool) []selectorUse {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == pkg {
			local = filepath.Base(pkg)
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var found []selectorUse
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && names[sel.Sel.Name] {
				found = append(found, selectorUse{sel.Sel.Name, fset.Position(sel.Pos()).Line})
			}
		}
		return true
	})
	return found
}

// identCalls lists the lines where path calls one of the functions names of its own package.
func identCalls(t *testing.T, path string, names ...string) []int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && slices.Contains(names, id.Name) {
				lines = append(lines, fset.Position(call.Pos()).Line)
			}
		}
		return true
	})
	return lines
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
