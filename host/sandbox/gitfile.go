package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// initConfigKeys are the keys git init writes into a new repository's config (by version,
// file system and flags: --bare, --shared, --object-format, --ref-format), each with the
// values it may have. Nothing else may be in a config a program puts in place: every other
// key (core.fsmonitor, core.hooksPath, core.sshCommand, alias.*, filter.*, include.path,
// includeIf.*, core.worktree, remote.*) is refused.
var initConfigKeys = map[string][]string{
	"core.repositoryformatversion": {"0", "1"},
	"core.filemode":                {"true", "false"},
	"core.bare":                    {"true", "false"},
	"core.logallrefupdates":        {"true", "false", "always"},
	"core.symlinks":                {"true", "false"},
	"core.ignorecase":              {"true", "false"},
	"core.precomposeunicode":       {"true", "false"},
	"core.sharedrepository":        {"0", "1", "2", "group", "all", "world", "everybody", "umask", "false", "true"},
	"receive.denynonfastforwards":  {"true", "false"},
	"extensions.objectformat":      {"sha1", "sha256"},
	"extensions.refstorage":        {"files", "reftable"},
}

// CheckGitFile checks the content of a file a checked rename puts in place (NameRule.Checked):
// a repository's "config" holds git init's keys alone (initConfigKeys; no subsection, no
// quoting or continuation that could hide another key), a rebase's "todo" no exec line, an
// "index" no entry in a .git folder (gitindex.go), a "ref" the syntax of a loose ref or
// packed-refs (gitrefs.go).
func CheckGitFile(what string, content []byte) error {
	switch what {
	case "config":
		return checkInitConfig(content)
	case "todo":
		return checkTodo(content)
	case "index":
		return checkIndex(content)
	case "ref":
		_, err := checkRefContent(content)
		return err
	}
	return fmt.Errorf("%s is not a file gem checks", what)
}

func checkInitConfig(content []byte) error {
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(content))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case strings.HasPrefix(line, "["):
			name, ok := strings.CutSuffix(line, "]")
			name = strings.ToLower(strings.TrimPrefix(name, "["))
			if !ok || !plainWord(name) {
				return fmt.Errorf("line %d: section %s is not one git init writes", n, line)
			}
			section = name
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.ToLower(strings.TrimSpace(value))
		if !strings.Contains(line, "=") {
			value = "true" // a bare key is true
		}
		full := section + "." + key
		allowed, ok := initConfigKeys[full]
		if section == "" || !plainWord(key) || !ok {
			return fmt.Errorf("line %d: %s is not a key git init writes", n, full)
		}
		if !plainWord(value) || !contains(allowed, value) {
			return fmt.Errorf("line %d: %s = %q is not a value git init writes", n, full, value)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return nil
}

// plainWord: letters, digits and dashes only (no quote, backslash, dot or comment).
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// checkTodo refuses a rebase todo with an exec line (exec or x, which git rebase
// --continue runs in a shell).
func checkTodo(content []byte) error {
	for n, line := range strings.Split(string(content), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 && (fields[0] == "exec" || fields[0] == "x") {
			return fmt.Errorf("line %d: an exec line (%s) runs a command", n+1, strings.TrimSpace(line))
		}
	}
	return nil
}
