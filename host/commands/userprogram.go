package commands

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/registry"
)

// UserProgram prepares a shell command line the user wrote themselves (a hook in their
// settings, a !{…} of their own prompt command): it runs in the project (root) under the
// project's sandbox, with a private data and temporary folder named folder, without the
// network, and may read what it needs to start: the toolchain of its first word (node or
// python from the home folder) and the folders of the scripts it names by absolute path,
// ~ or $GEMINI_PROJECT_DIR (a hook at ~/.gemini/hooks/check.sh) when they lie under one of
// scriptRoots (the home folder for the user's own settings, nothing for a project's: its
// scripts are in the workspace, readable anyway). A script right in such a root opens only
// itself, not the root. Nothing else of the home folder is open to it: ~/.gemini holds the
// user's credentials and settings. A launcher's caches (npx's ~/.npm) are writable to the
// user's own programs only, not to a project's (scriptRoots empty).
func UserProgram(env registry.Env, root, folder, commandLine string, environ []string, scriptRoots ...string) ([]string, *sandbox.Policy, error) {
	data, temp, err := sandbox.PrivateDirs(env.GemHome, folder)
	if err != nil {
		return nil, nil, err
	}
	var needs toolchain.Needs
	fields := strings.Fields(commandLine)
	tenv := searchEnv(env, root, nil)
	if len(fields) > 0 {
		needs = toolchain.For(fields[0], tenv)
		if len(scriptRoots) == 0 {
			// A project's own hook or command (a trusted folder's): its toolchain to read, but
			// no launcher's cache to write, which only the user's consent gives.
			needs.Write = nil
		}
	}
	read := append([]string{}, needs.Read...)
	for _, f := range fields {
		path := scriptPath(f, env.Home, root)
		for _, r := range scriptRoots {
			if path == "" || !pathx.Within(r, path) {
				continue
			}
			if dir := filepath.Dir(path); dir != filepath.Clean(r) {
				path = dir
			}
			read = append(read, path)
			break
		}
	}
	p := sandbox.ForExtension(sandbox.Access{Extension: root, Workspace: root, WriteWorkspace: true, Data: data, Temp: temp, Read: read, Write: needs.Write})
	p.Toolchains = toolchainGrants(needs, &p)
	toolchain.EnsureCaches(needs, needs.Write, env.Home)
	childEnv := sandbox.Env(environ, nil, "GEMINI_CLI=1", "GEM_WORKSPACE="+root, "GEMINI_PROJECT_DIR="+root, "GEM_HOME="+env.GemHome, "TMPDIR="+temp)
	return finishEnv(childEnv, environ, &p, needs, tenv, env.GitConfigFile(root)), &p, nil
}

// scriptPath is word as an existing file's absolute path, after the expansions a shell
// would make of ~, $HOME and $GEMINI_PROJECT_DIR; "" when it is none.
func scriptPath(word, home, root string) string {
	word = strings.Trim(word, `"'`)
	for _, v := range []struct{ from, to string }{
		{"~/", home + "/"}, {"$HOME/", home + "/"}, {"${HOME}/", home + "/"},
		{"$GEMINI_PROJECT_DIR/", root + "/"}, {"${GEMINI_PROJECT_DIR}/", root + "/"},
	} {
		if rest, ok := strings.CutPrefix(word, v.from); ok {
			word = v.to + rest
			break
		}
	}
	if !filepath.IsAbs(word) {
		return ""
	}
	real, err := filepath.EvalSymlinks(word)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return real
}
