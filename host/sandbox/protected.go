package sandbox

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// protectedComponents are the names no program may create, rename, replace, link, remove or
// write, at any depth of a workspace, whether they exist yet or not: what git, gem, Gemini
// CLI, Claude Code, other agents, editors and direnv read and obey. A path is protected when
// any of its components is one of these (compared as a case-folding file system would:
// foldName), or starts with ".env". A repository's .git folder is the one exception the
// workspace capability makes: git works in it, as the table of gitdir.go decides.
var protectedComponents = map[string]bool{
	// git: a repository (a .git folder, or a .git file pointing at one) anywhere in the tree
	// is obeyed by the user's git and by editors that scan subfolders (core.fsmonitor,
	// hooks, filters run code); attributes and submodules name drivers and URLs.
	".git": true, ".gitattributes": true, ".gitmodules": true,
	// agents and editors: their settings run MCP servers, hooks and tasks.
	".gem": true, ".gemini": true, ".claude": true, ".cursor": true, ".vscode": true, ".idea": true,
	// context files the next agent session obeys (Gemini CLI reads GEMINI.md in subfolders too).
	"gemini.md": true, "agents.md": true, "claude.md": true,
	// launchers' project files: npx, pnpm, yarn, bun and uv read them in the folder they
	// start in (the project, for another extension's MCP server): .npmrc's script-shell and
	// node-options, yarn's yarnPath, a pnpmfile and bun's preload run code with that server's
	// grants, and a registry or index of the project's choosing serves its package.
	".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true, ".pnpmfile.cjs": true, "bunfig.toml": true, "uv.toml": true,
	// direnv and shells.
	".envrc": true, ".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true,
	".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true,
}

// ProtectedNames lists the protected names (for documentation and messages); IsProtected
// decides.
var ProtectedNames = []string{
	".git", ".gitattributes", ".gitmodules", ".gem", ".gemini", ".claude", ".cursor", ".vscode", ".idea",
	"GEMINI.md", "AGENTS.md", "CLAUDE.md", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "bunfig.toml", "uv.toml", ".envrc", ".env*", ".bashrc", ".bash_profile", ".bash_login",
	".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin",
}

// ProtectedComponent returns the first component of rel (a slash- or separator-separated
// path relative to a workspace) that is protected, and whether there is one.
func ProtectedComponent(rel string) (string, bool) {
	for c := range strings.FieldsFuncSeq(rel, isSeparator) {
		if isProtectedName(c) {
			return c, true
		}
	}
	return "", false
}

func isSeparator(r rune) bool { return r == '/' || r == '\\' }

// IsProtected reports whether rel (relative to a workspace) is or lies beneath a protected
// name.
func IsProtected(rel string) bool {
	_, ok := ProtectedComponent(rel)
	return ok
}

func isProtectedName(c string) bool {
	n := foldName(c)
	if n == "" {
		return false
	}
	return protectedComponents[n] || strings.HasPrefix(n, ".env")
}

// foldName is the name c as a case-insensitive file system compares names (ext4 and f2fs
// with casefold, NTFS, APFS, HFS+): Unicode simple case folding to lower case (ſ is s, the
// Kelvin sign K is k: AGENTſ.md is AGENTS.md there), without the code points such file
// systems ignore (HFS+, and Linux's casefold before 6.12: zero-width joiners, direction
// marks, the byte-order mark — git's own list for .git), and without trailing dots and
// spaces (NTFS). It is applied on every file system: a name that would be a protected one
// on some file system is refused on all (no one names a file AGENTſ.md but to get past a
// check).
func foldName(c string) string {
	var b strings.Builder
	for _, r := range c {
		if ignorable(r) {
			continue
		}
		if s, ok := fullFold[r]; ok {
			b.WriteString(s)
			continue
		}
		b.WriteRune(foldRune(r))
	}
	return strings.TrimRight(b.String(), ". ")
}

// fullFold are the letters Unicode's full case folding writes as two or three (ext4's and
// tmpfs's casefold fold fully after NFD: bunﬁg.toml, with the ligature ﬁ, is bunfig.toml
// there, and .pnpmﬁle.cjs .pnpmfile.cjs); simple folding keeps them one letter.
var fullFold = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st",
}

// foldRune is the smallest rune of r's simple case-folding orbit, in lower case: the same
// rune for every member (s, S, ſ → s; k, K, K → k).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		// ASCII: the orbit's least member is the upper-case letter (K, S: below K and ſ).
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return unicode.ToLower(least)
}

// ignorable are the code points HFS+ leaves out of names (git's is_hfs_dotgit list).
func ignorable(r rune) bool {
	return (r >= 0x200c && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x206a && r <= 0x206f) || r == 0xfeff
}
