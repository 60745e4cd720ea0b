package install

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// WithoutPassword is a URL without the password it carries (https://user:token@host/…): what
// gem records and what the clone's remote keeps, so a token given once is never stored.
func WithoutPassword(u string) string {
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

// gitEnviron is git's environment: the user's (their credential helpers, proxy, insteadOf
// rules apply), and with GITHUB_TOKEN an Authorization header for https://github.com/ only,
// given as configuration through the environment (GIT_CONFIG_COUNT), so it is never written
// to a clone's .git/config or any file.
func (f *Fetcher) gitEnviron() []string {
	env := slices.Clip(f.Environ)
	if f.Token == "" {
		return env
	}
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	auth := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+f.Token))
	i := strconv.Itoa(n)
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(n+1),
		"GIT_CONFIG_KEY_"+i+"=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_"+i+"="+auth)
}

// redactPassword keeps the password source carries (https://user:token@host/…) out of err's
// text, whatever printed it (git's messages, gem's own); err's type is kept.
func redactPassword(err error, source string) error {
	parsed, perr := url.Parse(source)
	if err == nil || perr != nil || parsed.User == nil {
		return err
	}
	pw, has := parsed.User.Password()
	if !has || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return &renamedError{msg: strings.ReplaceAll(err.Error(), pw, "***"), err: err}
}
