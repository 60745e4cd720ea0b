package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCmdReachesAgentThroughSDK: no file of cmd/ imports host/agent; gem -p, gem shell and
// gem acp are renderers over sdk sessions (issue 48), and what else the CLI shows of the
// agent (skills, prompt commands, subagents) comes through sdk/inventory.
func TestCmdReachesAgentThroughSDK(t *testing.T) {
	root := filepath.Join("..", "..")
	var importers []string
	sdkUsers := 0
	err := filepath.WalkDir(filepath.Join(root, "cmd"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			switch p, _ := strconv.Unquote(imp.Path.Value); p {
			case module + "/host/agent":
				rel, _ := filepath.Rel(root, path)
				importers = append(importers, filepath.ToSlash(rel))
			case module + "/sdk":
				sdkUsers++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sdkUsers == 0 {
		t.Fatal("no file of cmd/ imports sdk: the walk is broken")
	}
	for _, f := range importers {
		t.Errorf("%s imports host/agent: reach the agent through sdk (add what is missing there)", f)
	}
}
