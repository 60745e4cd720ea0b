package toolchain

import (
	"slices"
	"testing"
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
