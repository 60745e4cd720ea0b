package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsListEveryVariable keeps docs/environment.md's table and Vars the same list.
func TestDocsListEveryVariable(t *testing.T) {
	data, err := os.ReadFile("../../docs/environment.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Variables\n")
	if !ok {
		t.Fatal("docs/environment.md has no ## Variables section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	var rows []string
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	var want []string
	for _, v := range Vars {
		want = append(want, "| `"+v.Name+"` | "+v.Meaning+" |")
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/environment.md's table differs from config.Vars; it should read:\n%s", strings.Join(want, "\n"))
	}
}

// TestEveryReadVariableIsListed: each Getenv("NAME") in gem's own code names a listed variable.
func TestEveryReadVariableIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, v := range Vars {
		listed[v.Name] = true
	}
	call := regexp.MustCompile(`Getenv\("([A-Z_]+)"\)`)
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "sample-extensions" || d.Name() == "pluginsdk" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range call.FindAllStringSubmatch(string(data), -1) {
			if !listed[m[1]] {
				t.Errorf("%s reads %s, which config.Vars (and docs/environment.md's table) does not list", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
