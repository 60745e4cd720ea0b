package commands

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// toolchainEnv is where programs are looked up: the user's home and PATH.
func toolchainEnv(env registry.Env) toolchain.Env {
	path := ""
	if env.Getenv != nil {
		path = env.Getenv("PATH")
	}
	return toolchain.Env{Home: env.Home, Path: path}
}

// ProgramNeeds is what one of x's programs needs beyond the default sandbox: the launcher
// profile and toolchain of command (an MCP server's command, "" for others), and the
// toolchains the manifest's sandbox.toolchains (and plugin's) name.
//
// Launchers are looked up on the user's PATH less what is not the user's own: the extension,
// and every folder a program may write (programWritable: the workspace, root, when known).
func ProgramNeeds(env registry.Env, x *registry.Extension, command, plugin string, root ...string) toolchain.Needs {
	ws := ""
	if len(root) > 0 {
		ws = root[0]
	}
	tenv := searchEnv(env, ws, nil)
	tenv.Exclude = append(tenv.Exclude, x.Path)
	return programNeeds(x, command, plugin, tenv)
}

// programNeeds is ProgramNeeds with launchers looked up in tenv.
func programNeeds(x *registry.Extension, command, plugin string, tenv toolchain.Env) toolchain.Needs {
	var n toolchain.Needs
	if command != "" {
		n = toolchain.For(command, tenv)
	}
	m := x.Manifest()
	var names []string
	if m.Sandbox != nil {
		names = append(names, m.Sandbox.Toolchains...)
	}
	for _, p := range m.Plugins {
		if p.ID == plugin && p.Sandbox != nil {
			names = append(names, p.Sandbox.Toolchains...)
		}
	}
	if len(names) > 0 {
		t := toolchain.Toolchains(names, tenv)
		n.Read = append(n.Read, t.Read...)
		n.Write = append(n.Write, t.Write...)
	}
	return n
}

// Needs is what all of x's programs need, as one grant: what the consent text shows and
// consent records.
func Needs(env registry.Env, x *registry.Extension) registry.Grant {
	var g registry.Grant
	m := x.Manifest()
	platform := manifest.HostPlatforms(env.Getenv)[0]
	resolved := m.Resolved(x.Expander(env, platform))
	for i, s := range resolved.MCPServers {
		if s.Command != "" {
			g = g.Add(grantOf(ProgramNeeds(env, x, s.Command, "")))
		}
		// A server handed the project as an argument (a filesystem server) is there to
		// change it: consent gives it the workspace capability, said in the consent text.
		if i < len(m.MCPServers) && slices.ContainsFunc(m.MCPServers[i].Args, func(a string) bool {
			return strings.Contains(a, "${workspacePath}")
		}) {
			g.Workspace = true
		}
	}
	g = g.Add(grantOf(ProgramNeeds(env, x, "", "")))
	for _, p := range m.Plugins {
		g = g.Add(grantOf(ProgramNeeds(env, x, "", p.ID)))
	}
	return g
}

func grantOf(n toolchain.Needs) registry.Grant {
	return registry.Grant{Network: n.Network, Read: n.Read, Write: n.Write, Notes: n.Warnings}
}

// MissingNeedsError is a program that needs more than the user granted (its toolchain moved,
// or the extension was never agreed to in gem).
type MissingNeedsError struct {
	Extension string
	Missing   registry.Grant
	Home      string
}

func (e *MissingNeedsError) Error() string {
	return "it needs what was not granted: " + strings.Join(e.Missing.Lines(e.Home), ", ")
}

// toolchainGrants are the entries of pol.Read that grant what n's toolchains need to read
// (their installations and profiles' files, granted at consent or by a switch among those
// agreed to): the plan shows them as lines of their own (sandbox.Intent.Toolchains).
func toolchainGrants(n toolchain.Needs, pol *sandbox.Policy) []string {
	var out []string
	for _, r := range n.Read {
		for _, q := range pol.Read {
			if pathx.Within(q, r) && !slices.Contains(sandbox.SystemRead, q) && !slices.Contains(out, q) {
				out = append(out, q)
			}
		}
	}
	return out
}

// missing is what n needs that pol does not allow.
func missing(n toolchain.Needs, pol *sandbox.Policy) registry.Grant {
	var g registry.Grant
	g.Network = n.Network && !pol.Network
	covered := func(p string, list []string) bool {
		return slices.ContainsFunc(list, func(q string) bool { return pathx.Within(q, p) })
	}
	for _, r := range n.Read {
		if !covered(r, pol.Read) && !covered(r, pol.Write) {
			g.Read = append(g.Read, r)
		}
	}
	for _, w := range n.Write {
		if !covered(w, pol.Write) {
			g.Write = append(g.Write, w)
		}
	}
	return g
}

// networkVars are the host's proxy and certificate settings: a program granted the network
// gets them (and may read the files they name); one without the network gets none.
var networkVars = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT",
	"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_NATIVE_TLS", "GIT_SSL_CAINFO",
	"npm_config_registry", "npm_config_cafile", "npm_config_proxy", "npm_config_https_proxy", "npm_config_strict_ssl",
	"NPM_CONFIG_REGISTRY", "NPM_CONFIG_CAFILE", "YARN_REGISTRY", "BUN_CONFIG_REGISTRY", "DENO_CERT", "GOPROXY", "GONOSUMDB", "GOPRIVATE",
}

// caVars name files a program with the network must be able to read.
var caVars = []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT", "npm_config_cafile", "NPM_CONFIG_CAFILE", "GIT_SSL_CAINFO", "DENO_CERT"}

// finishEnv completes a program's environment and policy for its network and toolchains:
// with the network, the host's proxy and CA settings (read access to the CA files they
// name); without it, the launchers' offline settings (they fail at once instead of
// retrying); a PATH that lists only folders the program may read; and, with the workspace
// capability, what the git capability needs (workspaceGit; its answer kept in gitCache).
func finishEnv(childEnv []string, environ []string, pol *sandbox.Policy, n toolchain.Needs, tenv toolchain.Env, gitCache string, own ...string) []string {
	lookup := func(k string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if key, v, ok := strings.Cut(environ[i], "="); ok && key == k {
				return v, true
			}
		}
		return "", false
	}
	var add []string
	if pol.Network {
		for _, k := range networkVars {
			if v, ok := lookup(k); ok {
				add = append(add, k+"="+v)
				if slices.Contains(caVars, k) && filepath.IsAbs(v) {
					pol.Read = append(pol.Read, v)
				}
			}
		}
	} else {
		add = append(add, n.Offline...)
	}
	// The launcher keeps its shared folders (XDG_* point into the data folder), unless the
	// user set the variable.
	for _, kv := range n.Pin {
		k, _, _ := strings.Cut(kv, "=")
		if v, ok := lookup(k); ok {
			add = append(add, k+"="+v)
		} else {
			add = append(add, kv)
		}
	}
	if pol.Guard && pol.Workspace != "" && !sandbox.Disabled() {
		// The git capability (git.go): the hooks folder frozen, commits made as the user.
		hooks, identity := workspaceGit(gitCache, pol.Workspace, environ)
		pol.Frozen = append(pol.Frozen, hooks...)
		add = append(add, identity...)
	}
	out := setEnv(childEnv, add...)
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + readablePath(v, pol, tenv.Exclude, own)
		}
	}
	return out
}

// readablePath keeps the PATH entries the policy lets the program read (system folders,
// granted toolchains, the extension) and not write, so a lookup never lands on a denied
// entry and falls back to a wrong interpreter, nor on a program planted by another: none in
// a folder any program may write (exclude, programWritable) but the folders gem put first
// for it (own: a payload's node_modules/.bin, a Claude Code plugin's bin/).
func readablePath(path string, pol *sandbox.Policy, exclude, own []string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		// Judged by its name and by the folder it leads to: an entry that is a link into the
		// workspace (or another writable folder) is that folder.
		real := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			real = r
		}
		if dir == "" || ((pathIn(dir, exclude) || pathIn(real, exclude)) && !slices.Contains(own, dir)) {
			continue
		}
		// A folder it may read, or one holding a file granted to it (a launcher granted alone,
		// ~/.local/bin/uvx: the lookup must find it there, and Landlock keeps the rest shut).
		ok := slices.ContainsFunc(append(slices.Clone(pol.Read), pol.Write...), func(q string) bool { return pathx.Within(q, dir) || filepath.Dir(q) == filepath.Clean(dir) })
		// Never a folder a program may write (the workspace, caches, data): what is planted
		// there would be run as the user's own.
		writable := func(d string) bool {
			return slices.ContainsFunc(pol.Write, func(q string) bool { return pathx.Within(q, d) }) || (pol.Workspace != "" && pathx.Within(pol.Workspace, d))
		}
		if writable(dir) || writable(real) || !filepath.IsAbs(dir) {
			ok = false
		}
		if ok && !slices.Contains(keep, dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// setEnv returns env with each KEY=VALUE of kvs set (replacing an earlier value).
func setEnv(env []string, kvs ...string) []string {
	out := slices.Clone(env)
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(out, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		if i >= 0 {
			out[i] = kv
		} else {
			out = append(out, kv)
		}
	}
	return out
}
