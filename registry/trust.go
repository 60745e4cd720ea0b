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
// parent folder). Both are compared as the folders they really are, their symbolic links
// resolved: a link inside a trusted folder to an untrusted one is untrusted, and a rule
// written through a link covers the folder it leads to (Gemini CLI records process.cwd(),
// the real folder, too).
func (e Env) FolderTrust(dir string) (bool, *TrustRule) {
	rules, err := TrustedFolders(e)
	if err != nil {
		return false, nil
	}
	return decideTrust(realRules(rules), pathx.Real(dir))
}

// FolderTrusted is FolderTrust without the rule.
func (e Env) FolderTrusted(dir string) bool { ok, _ := e.FolderTrust(dir); return ok }

// realRule is a trust rule with the folder it covers, links resolved (TRUST_PARENT: the
// parent of the folder written, as Gemini CLI reads it, then resolved).
type realRule struct {
	TrustRule
	root string
}

func realRules(rules map[string]TrustLevel) []realRule {
	out := make([]realRule, 0, len(rules))
	for p, level := range rules {
		root := filepath.Clean(p)
		if level == TrustParent {
			root = filepath.Dir(root)
		}
		out = append(out, realRule{TrustRule{Path: p, Level: level}, pathx.Real(root)})
	}
	return out
}

// decideTrust is the decision on resolved paths: the rule of the longest folder holding dir;
// of rules for one folder (two spellings of it), DO_NOT_TRUST wins, then the first by path.
func decideTrust(rules []realRule, dir string) (bool, *TrustRule) {
	var best *realRule
	for i, r := range rules {
		if !pathx.Within(r.root, dir) {
			continue
		}
		if best == nil || len(r.root) > len(best.root) || (len(r.root) == len(best.root) && beats(r.TrustRule, best.TrustRule)) {
			best = &rules[i]
		}
	}
	if best == nil {
		return false, nil
	}
	rule := best.TrustRule
	return rule.Level == TrustFolder || rule.Level == TrustParent, &rule
}

// beats orders two rules for the same folder: distrust first, then by path.
func beats(a, b TrustRule) bool {
	if (a.Level == DoNotTrust) != (b.Level == DoNotTrust) {
		return a.Level == DoNotTrust
	}
	return a.Path < b.Path
}

// SetFolderTrust records level for dir (an empty level removes dir's own rules, however they
// spell it), by the folder dir really is, atomically, in Gemini CLI's format.
func SetFolderTrust(env Env, dir string, level TrustLevel) error {
	rules, err := TrustedFolders(env)
	if err != nil {
		return err
	}
	dir = pathx.Real(dir)
	for p := range rules {
		if pathx.Real(p) == dir {
			delete(rules, p) // one rule per folder: the new one replaces another spelling's
		}
	}
	if level != "" {
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
