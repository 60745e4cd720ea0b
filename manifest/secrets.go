package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
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

// Mask returns value, or, when name looks secret, value with what it says literally masked:
// its $VAR and ${VAR} references are kept (TOKEN=${GEMINI_API_KEY} says which variable a
// program is handed; only a value written out is a secret to hide).
func Mask(name, value string) string {
	if value == "" || !LooksSecret(name) {
		return value
	}
	var b strings.Builder
	literal := false
	for i := 0; i < len(value); {
		if n := refLen(value[i:]); n > 0 {
			b.WriteString(value[i : i+n])
			i, literal = i+n, false
			continue
		}
		if !literal {
			b.WriteString("****")
			literal = true
		}
		i++
	}
	return b.String()
}

// refLen is the length of the $VAR or ${VAR…} reference s starts with, or 0.
func refLen(s string) int {
	if len(s) < 2 || s[0] != '$' {
		return 0
	}
	if s[1] == '{' {
		if end := strings.IndexByte(s, '}'); end > 2 {
			if name, _, _ := strings.Cut(s[2:end], ":-"); isVarName(name) {
				return end + 1
			}
		}
		return 0
	}
	if n := varNameLen(s[1:]); n > 0 {
		return n + 1
	}
	return 0
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

// VarUse is a variable a manifest names and the fields that name it, as JSON paths
// (mcpServers.s.env.TOKEN, commands.c.env.KEY, mcpServers.s.args[1]).
type VarUse struct {
	Name   string
	Fields []string
}

// VarUses lists the variables a manifest's JSON text references (ReferencedVars) with the
// fields that reference each: what a consent text says a variable is handed to. Fields are
// visited in key order; a text that is not JSON is one field, "the manifest".
func VarUses(text string) []VarUse {
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		var out []VarUse
		for _, v := range ReferencedVars(text) {
			out = append(out, VarUse{Name: v, Fields: []string{"the manifest"}})
		}
		return out
	}
	var out []VarUse
	add := func(field, s string) {
		for _, v := range ReferencedVars(s) {
			i := slices.IndexFunc(out, func(u VarUse) bool { return u.Name == v })
			if i < 0 {
				out = append(out, VarUse{Name: v})
				i = len(out) - 1
			}
			if !slices.Contains(out[i].Fields, field) {
				out[i].Fields = append(out[i].Fields, field)
			}
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case string:
			add(path, v)
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				add(p, k) // a key naming a variable is a use too
				walk(p, v[k])
			}
		}
	}
	walk("", doc)
	return out
}
