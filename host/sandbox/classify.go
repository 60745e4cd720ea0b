package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/pathx"
)

// Failure is why a sandboxed program failed, read from its last stderr lines and its policy.
type Failure struct {
	Kind   string // "network", "path", "toolchain", or "" when nothing points at the sandbox
	Detail string // the path denied, the program missing
}

// The patterns are compiled on first use: compiled at start, they cost every program gem
// starts (the helper is gem itself) about 4 ms.
var (
	networkErrors = lazyRegexp(`EAI_AGAIN|ENOTFOUND|ENETUNREACH|getaddrinfo|[Tt]emporary failure in name resolution|[Nn]etwork is unreachable|[Nn]ame or service not known|Could not resolve host|dial tcp[^\n]*: connect: permission denied`)
	deniedPath    = lazyRegexp(`(?:EACCES|EPERM|EROFS|[Pp]ermission denied|[Rr]ead-only file system)[^\n/~]*?['"]?(~?/[^'"\s:,)]+)`)
	missingPath   = lazyRegexp(`(?:ENOENT|[Nn]o such file or directory)[^\n/~]*?['"]?(/[^'"\s:,)]+)`)
	missingTool   = lazyRegexp(`env: ['"]?([A-Za-z0-9_.+-]+)['"]?: No such file or directory|([A-Za-z0-9_.+-]+): (?:command )?not found|spawn ([A-Za-z0-9_.+-]+) ENOENT`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Classify reads a failed program's stderr (its last lines) against its policy.
func Classify(stderr []string, p *Policy) Failure {
	text := strings.Join(stderr, "\n")
	if p != nil && !p.Network && networkErrors().MatchString(text) {
		return Failure{Kind: FailedNetwork}
	}
	if m := deniedPath().FindStringSubmatch(text); m != nil {
		// A path of the project, which the program may read but not change: the workspace
		// capability is what it lacks (unless the path is protected, which nothing grants).
		if p != nil && p.Workspace != "" && pathx.Within(p.Workspace, m[1]) {
			rel, _ := filepath.Rel(p.Workspace, m[1])
			switch {
			case IsProtected(rel):
				return Failure{Kind: FailedProtected, Detail: m[1]}
			case !p.Guard:
				return Failure{Kind: FailedWorkspace, Detail: m[1]}
			}
		}
		return Failure{Kind: FailedPath, Detail: m[1]}
	}
	if m := missingTool().FindStringSubmatch(text); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				return Failure{Kind: FailedToolchain, Detail: g}
			}
		}
	}
	return Failure{}
}

// Hidden reads a "no such file" failure against the host: a path whose folder exists here
// but that p gives the program no access to was hidden by its sandbox's view (another
// extension's folder, a tool's cache), which is FailedPath; anything else is no Failure. It
// looks at the disk, so it runs in gem, never in the helper.
func Hidden(text string, p *Policy) Failure {
	m := missingPath().FindStringSubmatch(text)
	if m == nil || p == nil {
		return Failure{}
	}
	path := filepath.Clean(m[1])
	for _, g := range append(append([]string{}, p.Read...), p.Write...) {
		if pathx.Within(g, path) {
			return Failure{} // it may reach it: really missing
		}
	}
	if p.Workspace != "" && pathx.Within(p.Workspace, path) {
		return Failure{}
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return Failure{}
	}
	return Failure{Kind: FailedPath, Detail: path}
}

// The kinds of Failure.
const (
	FailedNetwork   = "network"   // it tried to reach the network its sandbox does not give it
	FailedPath      = "path"      // its sandbox denied it a path
	FailedWorkspace = "workspace" // it tried to change the project without the capability
	FailedProtected = "protected" // it tried to change a protected name, which nothing grants
	FailedToolchain = "toolchain" // a program it runs is missing or not on its PATH
	FailedConfined  = "confined"  // nothing points anywhere, but it ran without the network
)

// String says what the failure means ("" when unknown), in no front end's terms.
func (f Failure) String() string {
	switch f.Kind {
	case FailedNetwork:
		return "it tried to reach the network, which its sandbox does not give it"
	case FailedPath:
		return fmt.Sprintf("its sandbox denied it %s", f.Detail)
	case FailedProtected:
		return fmt.Sprintf("it tried to change %s, which configures git, an agent or an editor: no program may, whatever it is granted", f.Detail)
	case FailedWorkspace:
		return fmt.Sprintf("it tried to change %s, in your project, which it may read but not change", f.Detail)
	case FailedToolchain:
		return fmt.Sprintf("a program it runs (%s) is missing, or not on the PATH it gets", f.Detail)
	case FailedConfined:
		return "it runs sandboxed, without the network or files outside the project"
	}
	return ""
}

// FailureError is a sandboxed program's failure (Err, with its stderr tail) and what its
// stderr and policy point at, for the front end to say what to grant.
type FailureError struct {
	Extension string
	Failure   Failure
	Err       error
}

// Explained wraps err with what the program's last stderr lines and policy point at.
func Explained(err error, extension string, stderr []string, p *Policy) error {
	f := Classify(stderr, p)
	if f.Kind == "" && p != nil && !p.Network {
		f.Kind = FailedConfined
	}
	if f.Kind == "" {
		return err
	}
	return &FailureError{Extension: extension, Failure: f, Err: err}
}

func (e *FailureError) Error() string { return e.Err.Error() + "\n  (" + e.Failure.String() + ")" }

func (e *FailureError) Unwrap() error { return e.Err }
