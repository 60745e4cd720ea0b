package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/cmd/gem/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gem":        func() { os.Exit(Main(os.Args)) },
		"gem-engine": func() { os.Exit(cli.Main(os.Args)) },
	})
}

// TestScripts runs the CLI end to end: testdata/script/*.txtar, each in its own $WORK with
// HOME=$WORK/home (GEM_HOME unset, so ~/.gem is $WORK/home/.gem) and the cwd $WORK.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Setenv("HOME", home)
			e.Setenv("GEM_HOME", "")
			e.Setenv("GEMINI_CLI_HOME", "")
			e.Setenv("GEM_ENGINE", "")
			return nil
		},
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// expandenv SRC DST: copy SRC to DST with $VARS of the script's environment expanded.
			"expandenv": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: expandenv src dst")
				}
				data := ts.ReadFile(args[0])
				dst := ts.MkAbs(args[1])
				ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
				ts.Check(os.WriteFile(dst, []byte(os.Expand(data, ts.Getenv)), 0o644))
			},
		},
	})
}
