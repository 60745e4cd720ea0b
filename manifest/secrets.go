package manifest

import (
	"slices"
	"strings"
)

// secretWords are parts of variable names that suggest a secret.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL", "CREDS", "PRIVATE", "CERT"}

// LooksSecret reports whether an environment variable or header name suggests a secret.
func LooksSecret(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// Mask returns value, or a mask when name looks secret.
func Mask(name, value string) string {
	if value != "" && LooksSecret(name) {
		return "****"
	}
	return value
}

// inherited are the variables a program inherits by default.
var inherited = map[string]bool{
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

// InheritedByDefault reports whether a host variable reaches an extension's programs (and
// its manifest's ${VAR} expansions) without the user agreeing to it: the allowlist (PATH,
// HOME, LANG, LC_*, XDG_*, …), never a secret-looking name or an execution hijacker.
func InheritedByDefault(name string) bool {
	if hijackers[name] || strings.HasPrefix(name, "DYLD_") || LooksSecret(name) {
		return false
	}
	return inherited[name] || strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_")
}

// ReferencedVars returns the names of the $VAR and ${VAR} references in s, in order, once
// each (the path variables ${extensionPath}, ${workspacePath}, ${/}, ${platform}, ${arch}
// are not host variables and are left out).
func ReferencedVars(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		rest := s[i+1:]
		braced := rest[0] == '{'
		if braced {
			rest = rest[1:]
		}
		n := varNameLen(rest)
		if n == 0 {
			continue
		}
		name := rest[:n]
		switch name {
		case "extensionPath", "workspacePath", "platform", "arch", "pathSeparator":
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
		i += n
	}
	return out
}
