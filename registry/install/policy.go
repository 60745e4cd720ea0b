package install

import (
	"fmt"
	"net/url"
	"regexp"
)

// SourcePolicy is what an administrator allows to be installed (Gemini CLI's settings
// security.allowedExtensions and security.blockGitExtensions): checked on what every source
// fetched says it is, before anything of it is checked or placed, for install, update and sync.
type SourcePolicy struct {
	Allowed  []string // regular expressions; when any, the source must match one
	BlockGit bool     // no git or GitHub source (a git clone, a GitHub release, a subfolder)
	Origin   string   // the settings file that set them (for the error)
}

// BlockedSourceError is a source the settings do not allow.
type BlockedSourceError struct {
	Source, Setting, Origin string
}

func (e *BlockedSourceError) Error() string {
	return fmt.Sprintf("%s is not allowed by %s (%s)", e.Source, e.Setting, e.Origin)
}

// check refuses meta's source when the policy does not allow it.
func (p *SourcePolicy) check(source, typ string) error {
	if p == nil {
		return nil
	}
	if p.BlockGit && (typ == "git" || typ == "github-release") {
		return &BlockedSourceError{Source: source, Setting: "security.blockGitExtensions", Origin: p.Origin}
	}
	if len(p.Allowed) == 0 {
		return nil
	}
	for _, pat := range p.Allowed {
		if re, err := regexp.Compile(pat); err == nil && re.MatchString(source) {
			return nil
		}
	}
	return &BlockedSourceError{Source: source, Setting: "security.allowedExtensions", Origin: p.Origin}
}

// withoutPassword is a URL without the password it carries (https://user:token@host/…): what
// gem records and what the clone's remote keeps, so a token given once is never stored.
func withoutPassword(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.User == nil {
		return u
	}
	if _, has := parsed.User.Password(); !has {
		return u
	}
	parsed.User = url.User(parsed.User.Username())
	return parsed.String()
}
