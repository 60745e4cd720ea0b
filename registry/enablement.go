package registry

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemhost/gem/internal/fsx"
)

// EnablementFile is the name of Gemini CLI's enablement file.
const EnablementFile = "extension-enablement.json"

// Enablement is the content of extension-enablement.json: per extension, its override
// rules in order.
type Enablement map[string]EnablementEntry

// EnablementEntry holds an extension's rules.
type EnablementEntry struct {
	Overrides []string `json:"overrides"`
}

// Rule is one parsed override: "!/abs/dir/*" disables /abs/dir and everything below it.
type Rule struct {
	Disable        bool
	Base           string // with leading and trailing '/'
	IncludeSubdirs bool
}

// ParseRule parses a rule as Gemini CLI writes it.
func ParseRule(s string) Rule {
	r := Rule{}
	if strings.HasPrefix(s, "!") {
		r.Disable = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "*") {
		r.IncludeSubdirs = true
		s = strings.TrimSuffix(s, "*")
	}
	r.Base = slashed(s)
	return r
}

// String renders the rule in Gemini CLI's format.
func (r Rule) String() string {
	s := r.Base
	if r.IncludeSubdirs {
		s += "*"
	}
	if r.Disable {
		s = "!" + s
	}
	return s
}

// Matches reports whether the rule applies to dir.
func (r Rule) Matches(dir string) bool {
	d := slashed(dir)
	if r.IncludeSubdirs {
		return strings.HasPrefix(d, r.Base)
	}
	return d == r.Base
}

// slashed normalises a directory to forward slashes with a leading and trailing '/'.
func slashed(dir string) string {
	d := filepath.ToSlash(dir)
	if !strings.HasPrefix(d, "/") {
		d = "/" + d
	}
	if !strings.HasSuffix(d, "/") {
		d += "/"
	}
	return d
}

// Decide returns whether name is enabled in dir, and the rule that decided ("default" when
// none matched). The last matching rule wins.
func (e Enablement) Decide(name, dir string) (bool, string) {
	enabled, by := true, "default"
	for _, raw := range e[name].Overrides {
		r := ParseRule(raw)
		if r.Matches(dir) {
			enabled, by = !r.Disable, raw
		}
	}
	return enabled, by
}

// ReadEnablement reads an enablement file; a missing or invalid file is empty (as in
// Gemini CLI), and an invalid one is returned with its error so callers can warn.
func ReadEnablement(path string) (Enablement, error) {
	data, err := readFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return Enablement{}, nil
		}
		return Enablement{}, err
	}
	var e Enablement
	if err := json.Unmarshal(data, &e); err != nil {
		return Enablement{}, err
	}
	if e == nil {
		e = Enablement{}
	}
	return e, nil
}

func applyEnablement(env Env, items []*Extension) (warnings []string) {
	cache := map[*Provider]Enablement{}
	for _, x := range items {
		en, ok := cache[x.Provider]
		if !ok {
			path := env.Dir(x.Provider.Enablement)
			var err error
			if en, err = ReadEnablement(path); err != nil {
				en, warnings = enablementFallback(path, err, warnings)
			}
			cache[x.Provider] = en
		}
		x.Enabled, x.EnabledBy = en.Decide(x.Name, env.Cwd)
	}
	return warnings
}

// enablementFallback is what counts when the enablement file at path cannot be read: the
// last good copy gem kept (so an extension the user disabled stays disabled), else nothing
// (every extension enabled, as Gemini CLI does). Either way every verb warns.
func enablementFallback(path string, err error, warnings []string) (Enablement, []string) {
	if data, rerr := readFile(lastGood(path)); rerr == nil {
		var e Enablement
		if json.Unmarshal(data, &e) == nil && e != nil {
			return e, append(warnings, fmt.Sprintf("Ignoring %s: %v; using the last good copy gem kept (%s) until it is fixed or deleted", path, err, lastGood(path)))
		}
	}
	return Enablement{}, append(warnings, fmt.Sprintf("Ignoring %s: %v; fix or delete the file (every extension counts as enabled meanwhile)", path, err))
}

// lastGood is where WriteEnablement keeps a copy of what it wrote: a dot file beside it,
// which neither gem's nor Gemini CLI's discovery takes for an extension.
func lastGood(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".last-good")
}

// Add appends rule for name after removing the rules it supersedes: those for the same
// folder and, when rule includes subfolders, those below it (Gemini CLI's rule).
func (e Enablement) Add(name string, rule Rule) {
	entry := e[name]
	kept := entry.Overrides[:0:0]
	for _, raw := range entry.Overrides {
		old := ParseRule(raw)
		if old.Base == rule.Base {
			continue
		}
		if rule.IncludeSubdirs && strings.HasPrefix(old.Base, rule.Base) {
			continue
		}
		kept = append(kept, raw)
	}
	entry.Overrides = append(kept, rule.String())
	e[name] = entry
}

// RemoveDisables deletes every disable rule of name that applies to dir; it returns how
// many it removed.
func (e Enablement) RemoveDisables(name, dir string) int {
	entry, ok := e[name]
	if !ok {
		return 0
	}
	kept := entry.Overrides[:0:0]
	for _, raw := range entry.Overrides {
		if r := ParseRule(raw); r.Disable && r.Matches(dir) {
			continue
		}
		kept = append(kept, raw)
	}
	n := len(entry.Overrides) - len(kept)
	entry.Overrides = kept
	e[name] = entry
	return n
}

// ScopeRule is the rule for a scope folder (the home for user scope, the cwd for
// workspace scope), with subfolders included, as Gemini CLI writes it.
func ScopeRule(dir string, disable bool) Rule {
	return Rule{Disable: disable, Base: slashed(dir), IncludeSubdirs: true}
}

// WriteEnablement writes the file atomically (temporary file, then rename), 2-space JSON
// as Gemini CLI writes it.
func WriteEnablement(path string, e Enablement) error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(path, data, 0o644); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(lastGood(path), data, 0o644)
}

// EnablementPath returns the enablement file of a provider.
func (e Env) EnablementPath(p *Provider) string { return e.Dir(p.Enablement) }
