// Package validate owns the semantic rules of gemini-extension.json: everything
// manifest.Load cannot see from types alone (required fields, name pattern, command and
// plugin binaries that must stay inside the extension folder, hashes, settings, MCP server
// transports, engine constraints, unknown fields). It reports every problem at once, each
// with its JSON path, the value and what is wanted.
//
// Checks that need the extension folder on disk (context files, binaries present for this
// platform, symlinks) live in registry; this package does no I/O.
package validate

import (
	"errors"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gemhost/gem/internal/netaddr"
	"github.com/gemhost/gem/internal/suggest"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/version"
)

var (
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9-]+$`)
	commandPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	hexSHA256      = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	platformKey    = regexp.MustCompile(`^[a-z0-9]+/[a-z0-9]+$`)
)

// Manifest returns every problem of m: the load problems given (from manifest.Parse or
// manifest.Load) followed by the semantic ones. env is the second-pass lookup used to expand
// the name, as Gemini CLI checks the name after expansion; it may be nil.
func Manifest(m *manifest.Manifest, loadProblems manifest.Problems, env manifest.Lookup) manifest.Problems {
	v := &validator{problems: append(manifest.Problems(nil), loadProblems...)}
	obj, isObject := m.Raw.(map[string]any)
	if !isObject {
		return v.problems
	}
	v.name(m, obj, env)
	v.version(m, obj)
	v.unknownFields(obj)
	for i, c := range m.ContextFileName {
		p := "contextFileName"
		if len(m.ContextFileName) > 1 || isArray(obj["contextFileName"]) {
			p += "[" + strconv.Itoa(i) + "]"
		}
		v.insideFolder(p, c, "a file inside the extension folder, such as GEMINI.md")
	}
	v.settings(m)
	v.mcpServers(m, env)
	v.commands(m)
	v.plugins(m)
	v.sandbox("sandbox", m.Sandbox)
	if m.Engines.Gem != "" {
		if err := version.ParseConstraint(m.Engines.Gem); err != nil {
			v.err("engines.gem", m.Engines.Gem, "must be a semver constraint such as \">=0.1.0\" ("+err.Error()+")")
		}
	}
	if m.MigratedTo != "" && !strings.Contains(m.MigratedTo, "://") && !strings.HasPrefix(m.MigratedTo, "git@") {
		v.warn("migratedTo", m.MigratedTo, "should be the URL of the extension's new source")
	}
	return v.problems
}

type validator struct {
	problems manifest.Problems
}

func (v *validator) add(sev manifest.Severity, path, value, want string) {
	if value != "" {
		value = strconv.Quote(value)
	}
	v.problems = append(v.problems, manifest.Problem{Severity: sev, Path: path, Value: value, Want: want})
}

func (v *validator) err(path, value, want string)  { v.add(manifest.Error, path, value, want) }
func (v *validator) warn(path, value, want string) { v.add(manifest.Warning, path, value, want) }

func isArray(x any) bool { _, ok := x.([]any); return ok }

func (v *validator) name(m *manifest.Manifest, obj map[string]any, env manifest.Lookup) {
	raw, present := obj["name"]
	if !present || raw == nil {
		v.err("name", "", `is required: add "name": "<letters, digits and dashes>"`)
		return
	}
	if _, isString := raw.(string); !isString {
		return // Load reported the type.
	}
	name := manifest.ExpandEnvVars(m.Name, env)
	if !namePattern.MatchString(name) {
		v.err("name", name, "Invalid extension name: \""+name+"\". Only letters (a-z, A-Z), numbers (0-9), and dashes (-) are allowed.")
	}
}

func (v *validator) version(m *manifest.Manifest, obj map[string]any) {
	raw, present := obj["version"]
	if !present || raw == nil || m.Version == "" {
		if _, isString := raw.(string); isString || raw == nil {
			v.err("version", "", `is required: add "version": "1.0.0"`)
		}
		return
	}
	if !version.IsStrict(m.Version) {
		v.warn("version", m.Version, "is not a semantic version; use MAJOR.MINOR.PATCH such as 1.0.0 so updates can compare versions")
	}
}

func (v *validator) unknownFields(obj map[string]any) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(manifest.KnownFields, k) {
			continue
		}
		want := "is not a field gem or Gemini CLI knows; it is ignored"
		if near := suggest.Closest(k, manifest.KnownFields); near != "" {
			want += " (did you mean \"" + near + "\"?)"
		}
		v.warn(k, "", want)
	}
}

// insideFolder checks lexically that a path (absolute after ${extensionPath}, or relative to
// the extension folder) stays inside the extension folder.
func (v *validator) insideFolder(field, value, want string) {
	const root = "/__extension__"
	vars := manifest.Vars{ExtensionPath: root, WorkspacePath: "/__workspace__", PathSeparator: "/",
		Platform: manifest.Platform{OS: "linux", Arch: "x64"}}
	p := vars.ExpandPathVars(value)
	if strings.TrimSpace(p) == "" {
		v.err(field, value, "must not be empty: want "+want)
		return
	}
	if !strings.HasPrefix(p, "/") {
		p = root + "/" + p
	}
	clean := path.Clean(p)
	if clean != root && !strings.HasPrefix(clean, root+"/") {
		v.err(field, value, "leaves the extension folder: want "+want)
	}
}

func (v *validator) settings(m *manifest.Manifest) {
	seen := map[string]int{}
	for i, s := range m.Settings {
		p := "settings[" + strconv.Itoa(i) + "]"
		if s.Name == "" {
			v.err(p+".name", "", "is required: the name the user sees when asked for the value")
		}
		if s.Description == "" {
			v.warn(p+".description", "", "is missing: say what the value is for")
		}
		switch {
		case s.EnvVar == "":
			v.err(p+".envVar", "", "is required: the environment variable that carries the value, such as MY_API_KEY")
		case !manifest.IsEnvVarName(s.EnvVar):
			v.err(p+".envVar", s.EnvVar, "must be an environment variable name: letters, digits and _, not starting with a digit")
		default:
			if j, dup := seen[s.EnvVar]; dup {
				v.err(p+".envVar", s.EnvVar, "is also used by settings["+strconv.Itoa(j)+"]; each setting needs its own variable")
			}
			seen[s.EnvVar] = i
		}
	}
}

func (v *validator) mcpServers(m *manifest.Manifest, env manifest.Lookup) {
	for _, s := range m.MCPServers {
		p := "mcpServers." + s.Name
		if s.Command == "" && s.URL == "" && s.HTTPURL == "" && s.TCP == "" {
			v.err(p, "", "needs a transport: \"command\" for stdio, \"httpUrl\" for streamable HTTP, or \"url\" for SSE")
		}
		if s.Type != "" && s.Type != "sse" && s.Type != "http" && s.Type != "stdio" {
			v.err(p+".type", s.Type, "must be \"sse\" or \"http\"")
		}
		if s.Timeout < 0 {
			v.err(p+".timeout", strconv.FormatFloat(s.Timeout, 'f', -1, 64), "must be a positive number of milliseconds")
		}
		for _, u := range []struct{ field, val string }{{"url", s.URL}, {"httpUrl", s.HTTPURL}} {
			if u.val != "" && !strings.HasPrefix(u.val, "http://") && !strings.HasPrefix(u.val, "https://") && !strings.HasPrefix(u.val, "$") {
				v.err(p+"."+u.field, u.val, "must be an http:// or https:// URL")
			}
		}
		v.oauth(p+".oauth", s.OAuth, env)
	}
}

// oauth checks a server's oauth field as sign-in will read it (manifest.ParseOAuth), its
// variables expanded from env; a problem in a value still holding a variable (unset here)
// is left to the sign-in, which sees the value.
func (v *validator) oauth(field string, raw []byte, env manifest.Lookup) {
	if env != nil {
		raw = manifest.ExpandEnvJSON(raw, env)
	}
	o, err := manifest.ParseOAuth(raw)
	if err == nil {
		err = o.CheckSites(netaddr.SameSite)
	}
	var oe *manifest.OAuthError
	switch {
	case err == nil:
	case !errors.As(err, &oe) || oe.Field == "":
		v.err(field, "", err.Error())
	case strings.Contains(oe.Value, "$") || strings.Contains(o.AuthorizationURL, "$"):
	default:
		v.err(field+"."+oe.Field, oe.Value, oe.Problem)
	}
}

func (v *validator) commands(m *manifest.Manifest) {
	for _, c := range m.Commands {
		p := "commands." + c.Name
		if !commandPattern.MatchString(c.Name) {
			v.err(p, c.Name, "command names must start with a letter or digit and hold only letters, digits, '.', '_' and '-'")
		}
		switch c.Type {
		case "executable":
		case "":
			v.err(p+".type", "", `is required: "executable"`)
		default:
			v.err(p+".type", c.Type, `must be "executable" (the only command type gem defines)`)
		}
		v.binary(p+".binary", c.Binary)
		seen := map[string]bool{}
		for i, sub := range c.Subcommands {
			sp := p + ".subcommands[" + strconv.Itoa(i) + "]"
			if sub == "" || strings.ContainsAny(sub, " \t\n") {
				v.err(sp, sub, "must be one word")
			} else if seen[sub] {
				v.warn(sp, sub, "is listed twice")
			}
			seen[sub] = true
		}
		v.envNames(p+".env", c.Env)
		v.hashes(p+".sha256", c.SHA256)
		v.context(p+".context", c.Context)
	}
}

// context checks a gem-only part's context file: a path inside the extension folder
// (relative to it), read by gem alone (manifest.GemContextFiles).
func (v *validator) context(field, value string) {
	if value != "" {
		v.insideFolder(field, value, "a file inside the extension folder, such as GEM.md")
	}
}

func (v *validator) plugins(m *manifest.Manifest) {
	for _, pl := range m.Plugins {
		p := "plugins." + pl.ID
		if !commandPattern.MatchString(pl.ID) {
			v.err(p, pl.ID, "plugin ids must start with a letter or digit and hold only letters, digits, '.', '_' and '-'")
		}
		v.binary(p+".binary", pl.Binary)
		v.envNames(p+".env", pl.Env)
		v.hashes(p+".sha256", pl.SHA256)
		v.sandbox(p+".sandbox", pl.Sandbox)
		v.context(p+".context", pl.Context)
	}
}

func (v *validator) binary(field, value string) {
	const want = "a program inside the extension folder, such as ${extensionPath}/bin/${platform}/${arch}/<name>"
	if value == "" {
		v.err(field, "", "is required: "+want)
		return
	}
	v.insideFolder(field, value, want)
}

func (v *validator) envNames(field string, env []manifest.KV) {
	for _, kv := range env {
		if !manifest.IsEnvVarName(kv.Key) {
			v.err(field+"."+kv.Key, kv.Key, "must be an environment variable name")
		}
	}
}

func (v *validator) hashes(field string, hashes []manifest.KV) {
	for _, kv := range hashes {
		if !platformKey.MatchString(kv.Key) {
			v.err(field+"."+kv.Key, kv.Key, "keys are <platform>/<arch> such as linux/x64 or darwin/arm64")
		}
		if !hexSHA256.MatchString(kv.Value) {
			v.err(field+"."+kv.Key, kv.Value, "must be a SHA-256 digest: 64 hexadecimal digits (sha256sum prints it)")
		}
	}
}

func (v *validator) sandbox(field string, s *manifest.Sandbox) {
	if s == nil {
		return
	}
	for i, name := range s.Env {
		if !manifest.IsEnvVarName(name) {
			v.err(field+".env["+strconv.Itoa(i)+"]", name, "must be an environment variable name")
		}
	}
	for _, list := range []struct {
		name  string
		paths []string
	}{{"read", s.Read}, {"write", s.Write}} {
		for i, p := range list.paths {
			fp := field + "." + list.name + "[" + strconv.Itoa(i) + "]"
			if p == "" {
				v.err(fp, "", "must not be empty")
			} else if want := absoluteOnceExpanded(p); want != "" {
				v.err(fp, p, want)
			} else if p == "/" || p == "$HOME" || p == "${HOME}" {
				v.warn(fp, p, "grants "+list.name+" access to a whole tree; name the folder the extension needs")
			}
		}
	}
}

// absoluteOnceExpanded says what a sandbox path must be when it is not absolute once its
// variables are expanded ("" when it is): one that starts with "/", a path variable
// (${extensionPath}, ${workspacePath}, ${extensionData}, ${/}) or an environment variable
// ($HOME, ${XDG_CACHE_HOME}: a folder) is; a relative path or ~ would name no folder the
// sandbox can grant, and would be granted nothing.
func absoluteOnceExpanded(p string) string {
	vars := manifest.Vars{ExtensionPath: "/x", WorkspacePath: "/w", ExtensionData: "/d", Platform: manifest.Platform{OS: "linux", Arch: "x64"}}
	e := manifest.ExpandEnvVars(vars.ExpandPathVars(p), func(string) (string, bool) { return "/env", true })
	if strings.HasPrefix(e, "/") || strings.HasPrefix(e, `\\`) || windowsDrive.MatchString(e) {
		return ""
	}
	if strings.HasPrefix(p, "~") {
		return "must be an absolute path: gem does not expand ~; write $HOME instead (\"$HOME" + strings.TrimPrefix(p, "~") + "\")"
	}
	return "must be an absolute path once its variables are expanded: start it with ${extensionPath}, ${extensionData}, ${workspacePath}, $HOME or /"
}

// windowsDrive is an absolute Windows path's start (C:\ or C:/).
var windowsDrive = regexp.MustCompile(`^[A-Za-z]:[\\/]`)
