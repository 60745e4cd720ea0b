package commands

import (
	"fmt"
	"path/filepath"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// Workspace is the folder every program may write: $GEM_WORKSPACE when the user names one,
// else the git top level of the current folder (ProjectRoot), else the current folder; the
// folder it really is, its links resolved (env.Cwd already is), as trust is decided on it.
func Workspace(env registry.Env) string {
	if env.Getenv != nil {
		if w := env.Getenv("GEM_WORKSPACE"); w != "" {
			if abs, err := filepath.Abs(w); err == nil {
				return pathx.Real(abs)
			}
		}
	}
	return ProjectRoot(env.Cwd)
}

// UnsafeWorkspaceError is a workspace gem will not hand to programs as writable: the root
// folder, the home folder, or one that holds gem's state or an extensions root (a program
// could then rewrite ~/.bashrc, its own permissions or other extensions).
type UnsafeWorkspaceError struct {
	Root   string
	Reason string
}

func (e *UnsafeWorkspaceError) Error() string {
	return fmt.Sprintf("the workspace %s %s, so programs would be able to write there; run gem from a project folder, or name the workspace explicitly in GEM_WORKSPACE", e.Root, e.Reason)
}

// CheckWorkspace refuses an unsafe workspace root unless the user named it in
// $GEM_WORKSPACE. Paths are compared with their symbolic links resolved.
func CheckWorkspace(env registry.Env, root string) error {
	if env.Getenv != nil && env.Getenv("GEM_WORKSPACE") != "" {
		return nil
	}
	if reason := TooWide(env, root); reason != "" {
		return &UnsafeWorkspaceError{root, reason}
	}
	return nil
}

// TooWide says why dir is too wide a folder to hand over as a project (to programs as their
// workspace, or to trust): "is the root folder", "is your home folder", "holds your home
// folder", "holds gem's state …", "holds your extensions …"; "" when it is not.
func TooWide(env registry.Env, dir string) string {
	real := pathx.Real(dir)
	switch {
	case real == string(filepath.Separator):
		return "is the root folder"
	case real == pathx.Real(env.Home):
		return "is your home folder"
	}
	for _, inner := range []struct{ path, what string }{
		{env.Home, "holds your home folder"},
		{env.GemHome, "holds gem's state (" + env.GemHome + ")"},
		{env.GeminiExtensionsDir(), "holds your extensions (" + env.GeminiExtensionsDir() + ")"},
	} {
		p := pathx.Real(inner.path)
		if p != real && pathx.Within(real, p) {
			return inner.what
		}
	}
	return ""
}

// SecretOnCommandLineError is a manifest field that would put a secret on a program's
// command line, where ps, logs and the questions gem asks would show it.
type SecretOnCommandLineError struct {
	Field, Variable string
}

func (e *SecretOnCommandLineError) Error() string {
	return fmt.Sprintf("%s puts the secret $%s on the command line, where other processes and logs can read it: pass it in the program's env instead", e.Field, e.Variable)
}

// CheckCommandLine refuses a command-line value of x's manifest (field names it) that
// references a secret: a secret-looking variable or a sensitive setting.
func CheckCommandLine(x *registry.Extension, field, value string) error {
	for _, name := range manifest.ReferencedVars(value) {
		secret := manifest.LooksSecret(name)
		for _, s := range x.Manifest().Settings {
			if s.EnvVar == name && s.Sensitive {
				secret = true
			}
		}
		if secret {
			return &SecretOnCommandLineError{Field: field, Variable: name}
		}
	}
	return nil
}
