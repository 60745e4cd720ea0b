package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// agentFrontLeft are the files of cmd/ that still reach host/agent directly, with what for:
// the agent's front is the SDK (issue 48: gem -p, gem shell and gem acp as renderers over
// sdk sessions), so this list only shrinks. A file not on it may not import host/agent; a
// file on it that no longer does must leave it.
var agentFrontLeft = map[string]string{
}

// TestCmdReachesAgentThroughSDK: cmd/ imports host/agent only in the files agentFrontLeft
// lists; the rest reach the agent through sdk.
func TestCmdReachesAgentThroughSDK(t *testing.T) {
	root := filepath.Join("..", "..")
	var importers []string
	err := filepath.WalkDir(filepath.Join(root, "cmd"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == module+"/host/agent" {
				rel, _ := filepath.Rel(root, path)
				importers = append(importers, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(importers) == 0 && len(agentFrontLeft) > 0 {
		t.Fatal("no file of cmd/ imports host/agent: empty agentFrontLeft (or the walk is broken)")
	}
	for _, f := range importers {
		if _, ok := agentFrontLeft[f]; !ok {
			t.Errorf("%s imports host/agent: reach the agent through sdk (add what is missing there)", f)
		}
	}
	for f := range agentFrontLeft {
		if !slices.Contains(importers, f) {
			t.Errorf("%s no longer imports host/agent: take it off agentFrontLeft", f)
		}
	}
}
