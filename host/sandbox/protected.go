package sandbox

import (
	"strings"
)

// protectedComponents are the names no program may create, rename, replace, link, remove or
// write, at any depth of a workspace, whether they exist yet or not: what git, gem, Gemini
// CLI, Claude Code, other agents, editors and direnv read and obey. A path is protected when
// any of its components is one of these (compared case-insensitively, trailing dots and
// spaces ignored: the same name on a case-folding file system), or starts with ".env".
var protectedComponents = map[string]bool{
	// git: a repository (a .git folder, or a .git file pointing at one) anywhere in the tree
	// is obeyed by the user's git and by editors that scan subfolders (core.fsmonitor,
	// hooks, filters run code); attributes and submodules name drivers and URLs.
	".git": true, ".gitattributes": true, ".gitmodules": true,
	// agents and editors: their settings run MCP servers, hooks and tasks.
	".gem": true, ".gemini": true, ".claude": true, ".cursor": true, ".vscode": true, ".idea": true,
	// context files the next agent session obeys (Gemini CLI reads GEMINI.md in subfolders too).
	"gemini.md": true, "agents.md": true, "claude.md": true,
	// direnv and shells.
	".envrc": true, ".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true,
	".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true,
}

// ProtectedNames lists the protected names (for documentation and messages); IsProtected
// decides.
var ProtectedNames = []string{
	".git", ".gitattributes", ".gitmodules", ".gem", ".gemini", ".claude", ".cursor", ".vscode", ".idea",
	"GEMINI.md", "AGENTS.md", "CLAUDE.md", ".envrc", ".env*", ".bashrc", ".bash_profile", ".bash_login",
	".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin",
}

// ProtectedComponent returns the first component of rel (a slash- or separator-separated
// path relative to a workspace) that is protected, and whether there is one.
func ProtectedComponent(rel string) (string, bool) {
	for c := range strings.FieldsFuncSeq(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if isProtectedName(c) {
			return c, true
		}
	}
	return "", false
}

// IsProtected reports whether rel (relative to a workspace) is or lies beneath a protected
// name.
func IsProtected(rel string) bool {
	_, ok := ProtectedComponent(rel)
	return ok
}

func isProtectedName(c string) bool {
	n := strings.ToLower(strings.TrimRight(c, ". "))
	if n == "" {
		return false
	}
	return protectedComponents[n] || strings.HasPrefix(n, ".env")
}
