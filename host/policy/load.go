package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gemhost/gem/internal/plural"
)

// Sources are the policy files of a session.
type Sources struct {
	UserFile      string // ~/.gem/policies.toml ($GEM_HOME/policies.toml)
	WorkspaceFile string // <workspace>/.gem/policies.toml
	// Gemini CLI's own policy files, read beside gem's at the same tiers: the user's
	// ~/.gemini/policies/*.toml and the workspace's .gemini/policies.toml.
	GeminiUserDir       string
	GeminiWorkspaceFile string
	Extensions          map[string]string // enabled extension name → its folder (policies/*.toml)
	// Exclusions are the enabled extensions' excludeTools entries that carry arguments
	// ("run_shell_command(rm -rf)"): extension name → entries. Each is a deny rule above every
	// file's (Gemini CLI applies excludeTools to the whole session, whoever asks).
	Exclusions map[string][]string
	// Allowed are settings' tools.allowed entries ("tool", or "run_shell_command(git status)"):
	// calls that need no confirmation, as Gemini CLI reads them: allow rules of priority 0 at
	// the tier of the file that set them (AllowedTier: the user's, or a trusted workspace's),
	// so any explicit rule of that tier still decides.
	Allowed     []string
	AllowedTier Tier
}

// AllowedRule is the allow rule of a tools.allowed entry: "tool" or "tool(prefix)".
func AllowedRule(entry string, tier Tier) *Rule {
	r := &Rule{ToolName: strings.TrimSpace(entry), Decision: Allow, Tier: tier, Source: "settings tools.allowed: " + entry}
	if tool, args, ok := strings.Cut(entry, "("); ok && strings.HasSuffix(args, ")") {
		r.ToolName = strings.TrimSpace(tool)
		if prefix := strings.TrimSpace(strings.TrimSuffix(args, ")")); prefix != "" {
			r.CommandPrefix = stringOrArr{prefix}
		}
	}
	return r
}

// ExclusionRule is the deny rule of an excludeTools entry with arguments, "tool(prefix)"
// (false for an entry without them: the tool catalog hides those tools).
func ExclusionRule(extension, entry string) (*Rule, bool) {
	tool, args, ok := strings.Cut(entry, "(")
	if !ok || !strings.HasSuffix(args, ")") {
		return nil, false
	}
	prefix := strings.TrimSpace(strings.TrimSuffix(args, ")"))
	r := &Rule{ToolName: strings.TrimSpace(tool), Decision: Deny, Priority: 999, Tier: TierUser,
		Source: "excludeTools of " + extension + ": " + entry}
	if prefix != "" {
		r.CommandPrefix = stringOrArr{prefix}
	}
	return r, true
}

// Load builds an engine from the files of s, in mode. Problems in one file are errors;
// dropped or unknown entries are warnings.
func Load(s Sources, mode Mode, trusted bool) (*Engine, []string, error) {
	e := &Engine{Mode: mode, Trusted: trusted, UserFile: s.UserFile}
	var warnings []string
	add := func(file string, tier Tier) error {
		rules, w, err := ParseFile(file, tier)
		if err != nil {
			return err
		}
		warnings = append(warnings, w...)
		e.Add(rules...)
		return nil
	}
	for _, dir := range s.Extensions {
		files, _ := filepath.Glob(filepath.Join(dir, "policies", "*.toml"))
		for _, f := range files {
			if err := add(f, TierExtension); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, file := range []string{s.GeminiWorkspaceFile, s.WorkspaceFile} {
		if file == "" {
			continue
		}
		rules, w, err := ParseFile(file, TierWorkspace)
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, w...)
		dropped := 0
		for _, r := range rules {
			if !trusted && r.Decision == Allow {
				dropped++ // a cloned repository must not approve calls for the user
				continue
			}
			e.Add(r)
		}
		if dropped > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: %s ignored: this folder is not trusted", file, plural.Count(dropped, "allow rule")))
		}
	}
	userFiles, _ := filepath.Glob(filepath.Join(s.GeminiUserDir, "*.toml"))
	if s.GeminiUserDir == "" {
		userFiles = nil
	}
	if s.UserFile != "" {
		userFiles = append(userFiles, s.UserFile)
	}
	for _, f := range userFiles {
		if err := add(f, TierUser); err != nil {
			return nil, nil, err
		}
	}
	tier := s.AllowedTier
	if tier == TierMode {
		tier = TierUser
	}
	for _, entry := range s.Allowed {
		e.Add(AllowedRule(entry, tier))
	}
	for ext, entries := range s.Exclusions {
		for _, entry := range entries {
			if r, ok := ExclusionRule(ext, entry); ok {
				e.Add(r)
			}
		}
	}
	return e, warnings, nil
}

// Audit appends decisions to a JSON-lines log.
type Audit struct {
	File string
	mu   sync.Mutex
	f    *os.File // kept open between lines (O_APPEND: each line lands whole)
}

// Close closes the log file (a later Log opens it again).
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// Entry is one line of the audit log.
type Entry struct {
	Time       time.Time `json:"time"`
	Extension  string    `json:"extension,omitempty"`
	Tool       string    `json:"tool"`
	ArgsDigest string    `json:"argsDigest"` // sha256 of the arguments' JSON, first 16 hex digits
	Decision   Decision  `json:"decision"`   // what the rules said
	Answer     string    `json:"answer,omitempty"`
	Outcome    string    `json:"outcome"` // ran (let through; the call's own result is not logged) | refused
	Rule       string    `json:"rule"`
	Mode       Mode      `json:"mode"`
}

// Digest is the arguments' digest as logged.
func Digest(args []byte) string {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:8])
}

// Log appends e; a failure to log is returned for the caller to report, not to stop on.
func (a *Audit) Log(e Entry) error {
	if a == nil || a.File == "" {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f != nil {
		if _, err := a.f.Write(append(line, '\n')); err == nil {
			return nil
		}
		a.f.Close() // written no more: open it again
		a.f = nil
	}
	if err := os.MkdirAll(filepath.Dir(a.File), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(a.File, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	a.f = f
	_, err = f.Write(append(line, '\n'))
	return err
}
