// Package sandbox owns starting subprocesses: the environment they get (an allowlist, with
// secrets and execution hijackers dropped), and how they are started: exec in place for
// `gem run`, or as a child in its own process group that dies with gem. Filesystem,
// network and resource limits (spec/sandbox.md) arrive with the sandbox issue; until then
// this package is the one place they will be applied.
package sandbox

import (
	"strings"

	"github.com/gemhost/gem/manifest"
)

// allowed are the variables a subprocess inherits by default.
var allowed = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true,
	"TERM": true, "COLORTERM": true, "TMPDIR": true, "SHELL": true, "TZ": true, "DISPLAY": true,
	"WAYLAND_DISPLAY": true, "NO_COLOR": true, "FORCE_COLOR": true, "COLUMNS": true, "LINES": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "HOSTNAME": true,
}

// hijackers change what a program loads or runs; never inherited unless asked for.
var hijackers = map[string]bool{
	"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "NODE_OPTIONS": true,
	"NODE_PATH": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true,
	"PERL5LIB": true, "PERL5OPT": true, "RUBYLIB": true, "RUBYOPT": true, "BASH_ENV": true, "ENV": true,
	"GIT_EXEC_PATH": true, "GOFLAGS": true,
}

// Allowed reports whether a variable is inherited by default.
func Allowed(name string) bool {
	if hijackers[name] || strings.HasPrefix(name, "DYLD_") || manifest.LooksSecret(name) {
		return false
	}
	return allowed[name] || strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_")
}

// Env filters environ (KEY=value) to what a subprocess may see: the allowlist plus the
// names in extra (the manifest's sandbox.env), which may name secrets or hijackers on
// purpose. Then add (settings, declared env, gem's own variables) is appended, later
// entries winning.
func Env(environ []string, extra []string, add ...string) []string {
	out := make([]string, 0, len(environ)/2+len(add))
	seen := map[string]int{}
	put := func(kv string) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			return
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if Allowed(k) || contains(extra, k) {
			put(kv)
		}
	}
	for _, kv := range add {
		put(kv)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
