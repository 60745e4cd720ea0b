package toolchain

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// KeepOut is what keeps the project's own code out of one family of launchers when an
// extension's MCP server starts with one in the project (its working folder): a program that
// may change the project (the model's shell, another extension's command) must not choose
// what that server runs, with that server's network, token and data folder.
type KeepOut struct {
	Launchers []string // base names of the command (path.Match patterns: "python3.*")
	// Sub, when set, are the sub-commands that make it a package launcher (npm exec, its
	// abbreviation exe, npm x), found after any options (npm --yes exec); other command lines
	// of the launcher are left as they are.
	Sub []string
	// Prefix is the flag given the extension's own folder (its data folder) when the command
	// line has none: npm looks up a package's bin there (its node_modules/.bin) instead of in
	// the project's, while the working folder stays the project.
	Prefix string
	// Env is added to the program's environment, only when Modules says the command line
	// runs a module (or Modules is false).
	Env []string
	// Modules: Env applies to a command line that names no script of its own (python -m
	// NAME, -c CODE, stdin): Python puts the working folder first on sys.path there, before
	// the standard library. A script's command line keeps its own folder (the extension's)
	// on sys.path, as PYTHONSAFEPATH would take it away.
	Modules bool
}

// KeepOuts is the table: launcher → what keeps the project's code out. Launchers not in it
// either do not look in the working folder for what they run (uvx and the other `uv tool`
// commands read user-level configuration only; pnpm dlx and yarn dlx install into a folder
// of their own) or run a path the manifest names (node, deno with a script).
var KeepOuts = []KeepOut{
	// npx -y NAME runs node_modules/.bin/NAME of the working folder (or a folder above)
	// before its registry.
	{Launchers: []string{"npx"}, Prefix: "--prefix"},
	{Launchers: []string{"npm"}, Sub: []string{"exec", "exe", "x"}, Prefix: "--prefix"},
	// PYTHONSAFEPATH (Python ≥ 3.11; older ones ignore it): no working folder on sys.path.
	{Launchers: []string{"python", "python3", "python3.*"}, Env: []string{"PYTHONSAFEPATH=1"}, Modules: true},
}

// KeepOutOf is the entry of KeepOuts for command (a name or a path), or nil.
func KeepOutOf(command string) *KeepOut {
	name := filepath.Base(command)
	for i := range KeepOuts {
		if slices.ContainsFunc(KeepOuts[i].Launchers, func(p string) bool { ok, _ := path.Match(p, name); return ok }) {
			return &KeepOuts[i]
		}
	}
	return nil
}

// KeepProjectOut is how an extension's MCP server command line (command, args) starts so that
// the project's code stays out (KeepOuts): its arguments, and what its environment gets. own
// is a folder of the extension's own (its data folder). A command line the table does not
// name comes back as it is.
func KeepProjectOut(command string, args []string, own string) ([]string, []string) {
	k := KeepOutOf(command)
	if k == nil || (len(k.Sub) > 0 && !runsSub(args, k.Sub)) {
		return args, nil
	}
	var env []string
	if !k.Modules || runsModule(args) {
		env = k.Env
	}
	if k.Prefix != "" && own != "" && !slices.ContainsFunc(args, func(a string) bool { return a == k.Prefix || strings.HasPrefix(a, k.Prefix+"=") }) {
		args = append([]string{k.Prefix + "=" + own}, args...)
	}
	return args, env
}

// runsSub reports whether the sub-command of a command line (its first argument that is not
// an option) is one of sub. An argument after an option without "=" (npm --loglevel silent
// exec) may be that option's value, so the next one is looked at too.
func runsSub(args, sub []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "-"):
			continue
		case slices.Contains(sub, a):
			return true
		case i == 0 || !strings.HasPrefix(args[i-1], "-") || strings.Contains(args[i-1], "="):
			return false // the sub-command, another one
		}
	}
	return false
}

// runsModule reports whether a Python command line names no script: -m, -c, "-" or nothing
// before its first argument that is not an option.
func runsModule(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-":
			return true
		case !strings.HasPrefix(a, "-"):
			return false // a script
		case strings.HasPrefix(a, "--"):
			if a == "--check-hash-based-pycs" {
				i++
			}
			continue
		}
		// One-letter flags, joined (-um, -Bc); W and X take the rest, or the next argument.
		for j, c := range a[1:] {
			if c == 'm' || c == 'c' {
				return true
			}
			if c == 'W' || c == 'X' {
				if j == len(a)-2 {
					i++
				}
				break
			}
		}
	}
	return true // stdin (the REPL)
}
