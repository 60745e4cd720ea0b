package toolchain

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

func TestKeepProjectOut(t *testing.T) {
	const own = "/home/u/.gem/data/ctx"
	for _, c := range []struct {
		name, command string
		args          []string
		wantArgs      []string
		wantEnv       []string
	}{
		{"npx gets the extension's folder as its prefix", "npx", []string{"-y", "ctx-mcp"}, []string{"--prefix=" + own, "-y", "ctx-mcp"}, nil},
		{"npx by path", "/usr/bin/npx", []string{"ctx-mcp"}, []string{"--prefix=" + own, "ctx-mcp"}, nil},
		{"npx with a prefix of its own keeps it", "npx", []string{"--prefix=/payload", "ctx-mcp"}, []string{"--prefix=/payload", "ctx-mcp"}, nil},
		{"npx with a prefix as two arguments keeps it", "npx", []string{"--prefix", "/payload", "ctx-mcp"}, []string{"--prefix", "/payload", "ctx-mcp"}, nil},
		{"npm exec", "npm", []string{"exec", "-y", "ctx-mcp"}, []string{"--prefix=" + own, "exec", "-y", "ctx-mcp"}, nil},
		{"npm x", "npm", []string{"x", "ctx-mcp"}, []string{"--prefix=" + own, "x", "ctx-mcp"}, nil},
		{"npm start is left alone", "npm", []string{"start"}, []string{"start"}, nil},
		{"npm exec after an option", "npm", []string{"--yes", "exec", "ctx"}, []string{"--prefix=" + own, "--yes", "exec", "ctx"}, nil},
		{"npm exec after an option's value", "npm", []string{"--loglevel", "silent", "exec", "ctx"}, []string{"--prefix=" + own, "--loglevel", "silent", "exec", "ctx"}, nil},
		{"npm exe, exec's abbreviation", "npm", []string{"exe", "ctx"}, []string{"--prefix=" + own, "exe", "ctx"}, nil},
		{"npm run x is left alone", "npm", []string{"run", "x"}, []string{"run", "x"}, nil},
		{"npm -- exec is left alone", "npm", []string{"--", "exec"}, []string{"--", "exec"}, nil},
		{"python -m", "/usr/bin/python3", []string{"-m", "pyxserver"}, []string{"-m", "pyxserver"}, []string{"PYTHONSAFEPATH=1"}},
		{"python -um joined", "python3", []string{"-um", "pyxserver"}, []string{"-um", "pyxserver"}, []string{"PYTHONSAFEPATH=1"}},
		{"python -c", "python", []string{"-c", "import x"}, []string{"-c", "import x"}, []string{"PYTHONSAFEPATH=1"}},
		{"python3.12 -m", "python3.12", []string{"-u", "-m", "srv"}, []string{"-u", "-m", "srv"}, []string{"PYTHONSAFEPATH=1"}},
		{"python with stdin", "python3", nil, nil, []string{"PYTHONSAFEPATH=1"}},
		{"a script keeps its folder on sys.path", "python3", []string{"/ext/server.py"}, []string{"/ext/server.py"}, nil},
		{"a warning filter's value is no -c", "python3", []string{"-W", "error::DeprecationWarning", "/ext/s.py"}, []string{"-W", "error::DeprecationWarning", "/ext/s.py"}, nil},
		{"a joined warning filter is no -c", "python3", []string{"-Werror::DeprecationWarning", "/ext/s.py"}, []string{"-Werror::DeprecationWarning", "/ext/s.py"}, nil},
		{"-X's value is no -m", "python3", []string{"-X", "importtime", "/ext/s.py"}, []string{"-X", "importtime", "/ext/s.py"}, nil},
		{"a script's own -m argument", "python3", []string{"/ext/s.py", "-m", "x"}, []string{"/ext/s.py", "-m", "x"}, nil},
		{"node is left alone", "node", []string{"/ext/index.js"}, []string{"/ext/index.js"}, nil},
		{"uvx is left alone", "uvx", []string{"mcp-server-fetch"}, []string{"mcp-server-fetch"}, nil},
		{"pythonista is no python", "pythonista", []string{"-m", "x"}, []string{"-m", "x"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			args, env := KeepProjectOut(c.command, slices.Clone(c.args), own)
			if !slices.Equal(args, c.wantArgs) || !slices.Equal(env, c.wantEnv) {
				t.Errorf("KeepProjectOut(%q, %q) = %q, %q; want %q, %q", c.command, c.args, args, env, c.wantArgs, c.wantEnv)
			}
		})
	}
}

// TestNpmExecSpellingsKeepProjectOut: the real npm, in a project whose node_modules/.bin has
// the command an extension's server runs, each way npm spells exec: the extension's own
// copy runs, never the project's.
func TestNpmExecSpellingsKeepProjectOut(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	home := testhome.Dir(t, "npm-keepout-")
	bin := func(dir, says string) {
		os.MkdirAll(filepath.Join(dir, "node_modules/.bin"), 0o755)
		os.WriteFile(filepath.Join(dir, "package.json"), []byte("{}"), 0o644)
		os.WriteFile(filepath.Join(dir, "node_modules/.bin/ctx-mcp"), []byte("#!/bin/sh\necho "+says+"\n"), 0o755)
	}
	project, own := filepath.Join(home, "project"), filepath.Join(home, "own")
	bin(project, "PROJECT")
	bin(own, "OWN")
	for _, args := range [][]string{{"exec", "ctx-mcp"}, {"--yes", "exec", "ctx-mcp"}, {"--loglevel", "silent", "exec", "ctx-mcp"}, {"exe", "ctx-mcp"}, {"-y", "x", "ctx-mcp"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			a, _ := KeepProjectOut(npm, slices.Clone(args), own)
			cmd := exec.Command(npm, append(a, "--offline")...)
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "HOME="+home, "npm_config_cache="+filepath.Join(home, ".npm"), "npm_config_registry=http://127.0.0.1:1/", "npm_config_update_notifier=false")
			out, _ := cmd.CombinedOutput()
			if got := strings.TrimSpace(string(out)); !strings.Contains(got, "OWN") || strings.Contains(got, "PROJECT") {
				t.Errorf("npm %q ran %q; want the extension's own ctx-mcp (OWN)", a, got)
			}
		})
	}
}
