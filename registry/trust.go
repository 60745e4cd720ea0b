package registry

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/pathx"
)

// TrustLevel is a value of Gemini CLI's ~/.gemini/trustedFolders.json.
type TrustLevel string

const (
	TrustFolder TrustLevel = "TRUST_FOLDER" // the folder and everything below it
	TrustParent TrustLevel = "TRUST_PARENT" // the folder's parent and everything below it
	DoNotTrust  TrustLevel = "DO_NOT_TRUST" // the folder and everything below it, explicitly not
)

// TrustedFolders reads the trust file: folder → level. A missing file is no rules; a file
// that is not valid JSON is an error naming it (and trusts nothing).
func TrustedFolders(env Env) (map[string]TrustLevel, error) {
	return readJSONMap[TrustLevel](env.TrustedFoldersFile(), "fix or delete it (no folder counts as trusted meanwhile)")
}

// TrustRule is the rule that decided a folder's trust.
type TrustRule struct {
	Path  string     `json:"path"`
	Level TrustLevel `json:"level"`
}

// FolderTrust says whether dir is trusted, and by which rule (nil: no rule, so not trusted).
// The rule whose folder is the longest prefix of dir decides (TRUST_PARENT counts as its
// parent folder); dir is compared as given and with its symbolic links resolved.
func (e Env) FolderTrust(dir string) (bool, *TrustRule) {
	rules, err := TrustedFolders(e)
	if err != nil {
		return false, nil
	}
	return decideTrust(rules, dir)
}

// FolderTrusted is FolderTrust without the rule.
func (e Env) FolderTrusted(dir string) bool { ok, _ := e.FolderTrust(dir); return ok }

func decideTrust(rules map[string]TrustLevel, dir string) (bool, *TrustRule) {
	dirs := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	best := -1
	var rule *TrustRule
	for p, level := range rules {
		root := filepath.Clean(p)
		if level == TrustParent {
			root = filepath.Dir(root)
		}
		for _, d := range dirs {
			if pathx.Within(root, d) && len(root) > best {
				best, rule = len(root), &TrustRule{Path: p, Level: level}
			}
		}
	}
	if rule == nil {
		return false, nil
	}
	return rule.Level == TrustFolder || rule.Level == TrustParent, rule
}

// SetFolderTrust records level for dir (an empty level removes dir's own rule), atomically,
// in Gemini CLI's format.
func SetFolderTrust(env Env, dir string, level TrustLevel) error {
	rules, err := TrustedFolders(env)
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	if level == "" {
		delete(rules, dir)
	} else {
		rules[dir] = level
	}
	data, err := json.MarshalIndent(rules, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(env.TrustedFoldersFile(), data, 0o644)
}

// TrustRules lists the trust file's rules, sorted by folder.
func TrustRules(env Env) ([]TrustRule, error) {
	rules, err := TrustedFolders(env)
	if err != nil {
		return nil, err
	}
	out := make([]TrustRule, 0, len(rules))
	for p, l := range rules {
		out = append(out, TrustRule{Path: p, Level: l})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
