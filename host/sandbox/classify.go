package sandbox

import (
	"fmt"
	"regexp"
	"strings"
)

// Failure is why a sandboxed program failed, read from its last stderr lines and its policy.
type Failure struct {
	Kind   string // "network", "path", "toolchain", or "" when nothing points at the sandbox
	Detail string // the path denied, the program missing
}

var (
	networkErrors = regexp.MustCompile(`EAI_AGAIN|ENOTFOUND|ENETUNREACH|getaddrinfo|[Tt]emporary failure in name resolution|[Nn]etwork is unreachable|[Nn]ame or service not known|Could not resolve host|dial tcp[^\n]*: connect: permission denied`)
	deniedPath    = regexp.MustCompile(`(?:EACCES|EPERM|EROFS|[Pp]ermission denied|[Rr]ead-only file system)[^\n/~]*?['"]?(~?/[^'"\s:,)]+)`)
	missingTool   = regexp.MustCompile(`env: ['"]?([A-Za-z0-9_.+-]+)['"]?: No such file or directory|([A-Za-z0-9_.+-]+): (?:command )?not found|spawn ([A-Za-z0-9_.+-]+) ENOENT`)
)

// Classify reads a failed program's stderr (its last lines) against its policy.
func Classify(stderr []string, p *Policy) Failure {
	text := strings.Join(stderr, "\n")
	if p != nil && !p.Network && networkErrors.MatchString(text) {
		return Failure{Kind: "network"}
	}
	if m := deniedPath.FindStringSubmatch(text); m != nil {
		return Failure{Kind: "path", Detail: m[1]}
	}
	if m := missingTool.FindStringSubmatch(text); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				return Failure{Kind: "toolchain", Detail: g}
			}
		}
	}
	return Failure{}
}

// Explain says what the failure means for extension ext and what to do ("" when unknown).
func (f Failure) Explain(ext string) string {
	switch f.Kind {
	case "network":
		return fmt.Sprintf("it tried to reach the network, which its sandbox does not give it: gem ext grant %s --network (or gem ext consent %s)", ext, ext)
	case "path":
		return fmt.Sprintf("its sandbox denied it %s: if it needs that, gem ext grant %s --read or --write the folder", f.Detail, ext)
	case "toolchain":
		return fmt.Sprintf("a program it runs (%s) is missing, or not on the PATH it gets: install it, or run gem ext consent %s after installing it", f.Detail, ext)
	}
	return ""
}
