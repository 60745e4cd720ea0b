package registry

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
)

// Binary is a resolved program of a command or plugin.
type Binary struct {
	Template string            // as written in the manifest
	Path     string            // resolved absolute path (symlinks followed)
	Platform manifest.Platform // the naming that matched (Rule "node" or "go")
}

// BinaryError says why a binary template could not be resolved.
type BinaryError struct {
	Kind     string // "command" or "plugin"
	Name     string
	Template string
	Path     string   // the resolved path at fault
	Tried    []string // every path tried, for not-found
	Reason   error
}

var (
	ErrBinaryNotFound = errors.New("binary not found")
	ErrOutsideFolder  = errors.New("binary path leaves the extension folder")
	ErrNotExecutable  = errors.New("binary is not an executable file")
)

func (e *BinaryError) Error() string {
	switch {
	case errors.Is(e.Reason, ErrBinaryNotFound):
		msg := fmt.Sprintf("Binary not found for %s %s: %s", e.Kind, e.Name, e.Path)
		if len(e.Tried) > 1 {
			msg += " (also tried " + strings.Join(e.Tried[1:], ", ") + ")"
		}
		return msg + "; build or reinstall the extension for this platform"
	case errors.Is(e.Reason, ErrOutsideFolder):
		return fmt.Sprintf("refusing %s %s: binary %q resolves to %s, outside the extension folder; the binary must live inside the extension (use ${extensionPath}/…)", e.Kind, e.Name, e.Template, e.Path)
	default:
		return fmt.Sprintf("%s %s: binary %s: %v", e.Kind, e.Name, e.Path, e.Reason)
	}
}

func (e *BinaryError) Unwrap() error { return e.Reason }

// Expander returns the variable expander for x on the given platform: first pass with x's
// path and the workspace, second pass with x's settings (.env) then the environment.
func (x *Extension) Expander(env Env, p manifest.Platform) manifest.Expander {
	// The settings are the agreed manifest's (a setting the manifest on disk dropped since
	// is still the setting's alone); never agreed to, the current one's (it names no host
	// variable then: only the default allowlist is read).
	settings := x.PermissionManifest(env)
	if settings == nil {
		settings = x.Manifest()
	}
	return x.expander(env, p, x.Path, settings, func(name string) bool { return x.AgreedHostVar(env, name) })
}

// expander is Expander with ${extensionPath} path, the settings of m and the host variables
// named (beyond the default allowlist) those agreed says: the agreed manifest's at a start,
// the one being agreed to at consent.
func (x *Extension) expander(env Env, p manifest.Platform, path string, m *manifest.Manifest, agreed func(string) bool) manifest.Expander {
	sep := string(filepath.Separator)
	return manifest.Expander{
		Vars: manifest.Vars{ExtensionPath: path, WorkspacePath: env.Cwd, ExtensionData: env.DataDir(x.Name), PathSeparator: sep, Platform: p},
		Lookups: []manifest.Lookup{x.SettingsLookup(), func(name string) (string, bool) {
			// Host variables: the default allowlist, and those the manifest the user
			// agreed to names (the consent text lists them); never others (a manifest's
			// ${GEMINI_API_KEY} must not pull gem's key into an argument or a log). A
			// setting's variable is the setting's alone: a registry entry's {GITHUB_TOKEN}
			// input, unset, must not be answered by the user's GITHUB_TOKEN.
			if env.Getenv == nil || declaresSetting(m, name) || !(manifest.InheritedByDefault(name) || agreed(name)) {
				return "", false
			}
			v := env.Getenv(name)
			return v, v != ""
		}},
	}
}

// SettingsLookup looks names up in the extension's .env (read once, lazily).
func (x *Extension) SettingsLookup() manifest.Lookup {
	var once sync.Once
	var vals map[string]string
	return func(name string) (string, bool) {
		once.Do(func() { vals = ReadDotEnv(filepath.Join(x.Dir, ".env")) })
		v, ok := vals[name]
		return v, ok
	}
}

// ReadDotEnv reads KEY=value lines; a missing file is empty.
func ReadDotEnv(path string) map[string]string {
	data, err := readFile(path)
	if err != nil {
		return nil
	}
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(strings.TrimPrefix(k, "export "))
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		vals[k] = v
	}
	return vals
}

// ResolveBinary resolves a command's or plugin's binary template for this host: variables
// with Node's platform names first, then Go's; the result, after symlinks, must be a
// regular executable file inside the extension folder.
func (x *Extension) ResolveBinary(env Env, kind, name, template string) (*Binary, error) {
	root, err := realPath(x.Path)
	if err != nil {
		return nil, &BinaryError{Kind: kind, Name: name, Template: template, Path: x.Path, Reason: fmt.Errorf("extension folder: %w", err)}
	}
	var tried []string
	for _, p := range manifest.HostPlatforms(env.Getenv) {
		path := x.Expander(env, p).Expand(template)
		if !filepath.IsAbs(path) {
			path = filepath.Join(x.Path, path)
		}
		path = filepath.Clean(path)
		if runtime.GOOS == "windows" && filepath.Ext(path) == "" {
			path += ".exe"
		}
		if !pathx.Within(x.Path, path) && !pathx.Within(root, path) {
			return nil, &BinaryError{Kind: kind, Name: name, Template: template, Path: path, Reason: ErrOutsideFolder}
		}
		real, err := realPath(path)
		if err != nil {
			tried = append(tried, path)
			continue
		}
		if !pathx.Within(root, real) {
			return nil, &BinaryError{Kind: kind, Name: name, Template: template, Path: real, Reason: ErrOutsideFolder}
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, &BinaryError{Kind: kind, Name: name, Template: template, Path: real, Reason: err}
		}
		if !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0) {
			return nil, &BinaryError{Kind: kind, Name: name, Template: template, Path: real,
				Reason: fmt.Errorf("%w (mode %v): run chmod +x on it or rebuild the extension", ErrNotExecutable, fi.Mode())}
		}
		return &Binary{Template: template, Path: real, Platform: p}, nil
	}
	return nil, &BinaryError{Kind: kind, Name: name, Template: template, Path: tried[0], Tried: tried, Reason: ErrBinaryNotFound}
}

// missingCommandBinaries returns a warning for each command whose binary does not exist
// for this platform (Node names, then Go names), from the templates discovery keeps: one
// stat per name tried (relative to the open root when the binary is below it), no manifest
// parse. Full checks (traversal, symlinks, hashes) happen when a command runs.
func (x *Extension) missingCommandBinaries(env Env, root *dirHandle, folder string) []string {
	var warns []string
	platforms := manifest.HostPlatforms(env.Getenv)
	for i, name := range x.CommandNames {
		tmpl := x.CommandBinaries[i]
		if tmpl == "" {
			continue
		}
		var first string
		found := false
		for _, p := range platforms {
			vars := manifest.Vars{ExtensionPath: x.Path, WorkspacePath: env.Cwd, PathSeparator: string(filepath.Separator), Platform: p}
			path := vars.ExpandPathVars(tmpl)
			if strings.Contains(path, "$") { // settings or environment variables: the full second pass
				path = x.Expander(env, p).Expand(tmpl)
			}
			if !filepath.IsAbs(path) {
				path = filepath.Join(x.Path, path)
			}
			if runtime.GOOS == "windows" && filepath.Ext(path) == "" {
				path += ".exe"
			}
			if first == "" {
				first = path
			}
			if rel, ok := strings.CutPrefix(path, x.Dir+string(filepath.Separator)); ok && root != nil && x.Path == x.Dir {
				if root.exists(folder + "/" + filepath.ToSlash(rel)) {
					found = true
					break
				}
			} else if _, err := os.Stat(path); err == nil {
				found = true
				break
			}
		}
		if !found {
			warns = append(warns, "Binary not found for command "+name+": "+filepath.Clean(first))
		}
	}
	return warns
}

// UnconfiguredError is an MCP server whose address is a setting of its extension that is
// not set (a plugin that leaves its url for the user to give: manifest.URLSetting). It is
// never started until the setting is set.
type UnconfiguredError struct{ Extension, Server, Setting string }

func (e *UnconfiguredError) Error() string {
	return fmt.Sprintf("mcp server %s of %s needs configuration: its address is the setting %s, which is not set", e.Server, e.Extension, e.Setting)
}

// Unconfigured is an *UnconfiguredError when s, a remote MCP server of x, has an address
// that names a setting of x (not a sensitive one: those are sealed, and no address) whose
// value is not set or empty; else nil.
func (x *Extension) Unconfigured(s manifest.MCPServer) error {
	url := s.HTTPURL + s.URL
	if s.Command != "" || url == "" {
		return nil
	}
	lookup := x.SettingsLookup()
	for _, st := range x.Manifest().Settings {
		if st.Sensitive || !strings.Contains(url, "${"+st.EnvVar+"}") && !strings.Contains(url, "$"+st.EnvVar) {
			continue
		}
		if v, _ := lookup(st.EnvVar); strings.TrimSpace(v) == "" {
			return &UnconfiguredError{Extension: x.Name, Server: s.Name, Setting: st.EnvVar}
		}
	}
	return nil
}
