package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gemhost/gem/host/commands"
	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/mcpauth"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/mcpregistry"
	"github.com/gemhost/gem/registry/oci"
	"github.com/gemhost/gem/registry/signature"
	"github.com/gemhost/gem/sdk"
)

// usageError is a mistake in how gem was called (exit 2).
type usageError struct {
	msg   string
	flags bool // the command line's flags did not parse: the verb never ran
}

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{msg: fmt.Sprintf(format, args...)} }

// exitError carries an exit code after its message was printed (or with none).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// printError renders err on w, the one place errors meet the user, and returns the exit code.
func printError(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var u usageError
	var x exitError
	switch {
	case errors.As(err, &u):
		fmt.Fprintf(w, "gem: %s\nRun 'gem help' or add --help to the command for usage.\n", termsafe.Text(u.msg))
		return 2
	case errors.As(err, &x):
		if x.msg != "" {
			fmt.Fprintln(w, "gem:", termsafe.Text(x.msg))
		}
		return x.code
	default:
		// Errors carry extensions' and servers' words (a tool's message, stderr lines):
		// through the one sanitiser, as warnings.
		fmt.Fprintln(w, "gem:", termsafe.Text(errorText(err)))
		return 1
	}
}

// failureJSON is a failure as --json prints it on stdout.
type failureJSON struct {
	Error struct {
		Message  string `json:"message"`
		Hint     string `json:"hint,omitempty"`
		ExitCode int    `json:"exitCode"`
	} `json:"error"`
}

// errorJSON is err as --json shows it: {"error": {"message", "hint", "exitCode"}}.
func errorJSON(err error) failureJSON {
	var f failureJSON
	f.Error.Message, f.Error.ExitCode = err.Error(), printError(io.Discard, err)
	var x exitError
	if errors.As(err, &x) && x.code == 130 {
		f.Error.Message = "interrupted"
	}
	var u usageError
	if !errors.As(err, &u) {
		f.Error.Hint = hintFor(err)
	}
	return f
}

// errorText is err's message with its hint, for a JSON field or a warning line.
func errorText(err error) string {
	if hint := hintFor(err); hint != "" {
		return err.Error() + " (" + hint + ")"
	}
	return err.Error()
}

// hintFor is what to do about a library error, in gem's terms (library errors carry none):
// advice's, else the first of hintRules that has one.
func hintFor(err error) string {
	if hint := advice.For(err); hint != "" {
		return hint
	}
	for _, rule := range hintRules {
		if hint := rule(err); hint != "" {
			return hint
		}
	}
	return ""
}

// hintRule is the hint for one kind of error ("" when err is not of that kind).
type hintRule func(err error) string

// when is the rule for errors of type E: hint says what to do about one ("" passes on).
func when[E error](hint func(E) string) hintRule {
	return func(err error) string {
		var e E
		if errors.As(err, &e) {
			return hint(e)
		}
		return ""
	}
}

// say is the rule that gives errors of type E one fixed hint.
func say[E error](hint string) hintRule { return when(func(E) string { return hint }) }

// hintRules are the hints of the library errors, first match first. A hint is one clause
// or a few, without parentheses: it is shown in them, after the error.
var hintRules = []hintRule{
	when(func(e *install.InvalidError) string {
		if e.Forceable {
			return "fix them, gem ext validate shows every problem; or add --force to install it anyway"
		}
		return "gem ext validate shows every problem"
	}),
	say[*install.RefOnLocalError]("drop --ref: a folder or archive installs as it is; check out the version you want first"),
	say[*install.UnknownMarketplaceError]("gem marketplace list shows the known ones; gem marketplace add <owner/repo|url|path> adds one"),
	when(func(e *install.UnknownPluginError) string {
		return fmt.Sprintf("gem marketplace info %s lists its plugins; gem marketplace update %s fetches it again", e.Marketplace, e.Marketplace)
	}),
	when(func(e *install.MarketplaceExistsError) string {
		return fmt.Sprintf("gem marketplace remove %s first, or gem marketplace update %s", e.Name, e.Name)
	}),
	say[*mcpregistry.NotFoundError]("gem mcp search <words> finds a server's exact name and versions"),
	say[*install.BundleHashError]("the bundle or its registry entry was changed or corrupted: tell the server's publisher; nothing was unpacked"),
	say[*mcpregistry.UnsupportedError]("gem mcp search shows how each server runs; add another server by hand to an extension's gemini-extension.json"),
	when(func(e *lockfile.MismatchError) string {
		if e.Locked == "" && strings.HasPrefix(e.Field, "platforms.") {
			return "nothing was changed: gem lock without --locked adds this platform's hashes; commit the lock"
		}
		return "nothing was changed: the source no longer gives what gem.lock pins, a moved tag, a changed file or package; if that is intended, gem ext update " + e.Name + " then gem lock records it"
	}),
	when(func(e *install.NotLockedError) string {
		if e.Elsewhere != "" {
			return fmt.Sprintf("to install it as that lock pins it: gem ext install %s --locked%s", e.Source, scopeFlag(e.Elsewhere, registry.LevelUser))
		}
		if e.Missing {
			return fmt.Sprintf("install it without --locked: gem ext install %s%s, then gem lock%s writes %s", e.Source, scopeFlag(e.Scope, registry.LevelUser), scopeFlag(e.Scope, registry.LevelProject), e.Lock)
		}
		return fmt.Sprintf("install it without --locked: gem ext install %s%s, then gem lock%s records it in %s", e.Source, scopeFlag(e.Scope, registry.LevelUser), scopeFlag(e.Scope, registry.LevelProject), e.Lock)
	}),
	when(notBundledHint),
	say[*install.EmptyLockError]("gem lock --scope user records your installed extensions in the user's lock, gem lock in the project's; or name them: gem ext bundle <name>... -o <file>"),
	when(func(e *ambiguousConsentError) string {
		return "name the one to agree to by its folder: gem ext consent " + e.Among[0].Dir
	}),
	say[*noLockError]("gem lock writes one from what is installed: gem ext install … --scope project, then gem lock"),
	say[*install.BlockedSourceError]("an administrator's settings decide which extensions may be installed; ask them, or install an allowed source"),
	say[*install.SubfolderError]("name a folder of the repository as owner/repo//path/to/extension with @ref after it, or with --path"),
	when(func(e *install.UnsignedError) string {
		if e.NotArchive {
			return "install a signed release, an archive with its Sigstore bundle, instead of the folder or repository"
		}
		return "ask its publisher to sign releases with cosign sign-blob --bundle or GitHub's artifact attestations, or give the bundle with --bundle"
	}),
	say[*signature.BundleError]("do not install it: the archive was changed after it was signed, or the signature is not from a Sigstore gem trusts, see security.sigstoreTrustedRoot; nothing was changed"),
	when(func(e *signature.IdentityError) string {
		return fmt.Sprintf("nothing was changed; if you trust that signer, say so with --cert-identity %q --cert-oidc-issuer %q, or in security.trustedSigners", e.Got.Identity, e.Got.Issuer)
	}),
	say[*signature.RootError]("offline or behind a firewall? set security.sigstoreTrustedRoot to a trusted_root.json, sigstore's or your organisation's"),
	say[*signature.PolicyError]("fix the signer policy: an issuer, and an identity or an identity pattern"),
	when(func(e *commands.HomeWriteError) string {
		return fmt.Sprintf("if it came from gem ext grant: gem ext grant %s --revoke, then grant the folders inside your home it needs; if from its manifest's sandbox.write, the extension asks for too much", e.Extension)
	}),
	when(func(e *commands.LinkedProtectedError) string {
		return fmt.Sprintf("grant a folder that does not hold %s: gem ext grant %s --revoke, then the folders it needs", e.Path, e.Extension)
	}),
	when(func(e *install.LocalSourceError) string {
		if e.Why != "" {
			return "nothing was fetched; install what you trust yourself with gem ext install <source>, or put the extension inside the project"
		}
		return "nothing was changed; if you trust the lock, install that folder yourself with gem ext install <folder>, or put the extension inside the project"
	}),
	say[*install.LockRemovalError]("nothing was written; gem ext sync installs what it locks, or gem lock --prune removes them from it"),
	say[*install.UntrustedLockError]("nothing was fetched; read gem.lock, and if you trust this project: gem trust, then run this again"),
	say[*oci.LayoutError]("gem ext bundle -o file.tar writes a bundle, an OCI image layout with its gem.lock"),
	say[*oci.NotFoundError]("check the tag; gem ext push … oci://registry/repository:tag pushes one"),
	say[*oci.NoPlatformError]("push it again from a folder with this platform's binaries: gem ext push <folder> oci://…"),
	say[*oci.NotExtensionError]("gem ext push writes extensions in gem's format; this artifact was pushed by another tool"),
	say[*lockfile.Error]("fix the file, it is JSON and git diff shows what changed; or write it again with gem lock"),
	when(apiHint),
	when(func(e *tools.UnknownToolError) string {
		return didYouMean(e.Similar, "gem tools list shows the tools of enabled extensions")
	}),
	when(func(e *tools.UnknownServerError) string { return didYouMean(e.Similar, "gem mcp list shows them") }),
	when(func(e *tools.ArgumentsError) string {
		if e.NotJSON {
			return fmt.Sprintf(`quote the JSON for the shell, like '{"key": "value"}'; gem tools schema %s shows what it takes`, e.Tool)
		}
		return fmt.Sprintf("gem tools schema %s shows what it takes", e.Tool)
	}),
	when(func(e *tools.DeniedError) string {
		if e.Rule == "" {
			return "approve with --yes, answer at the prompt, or allow it in a policy file"
		}
		return ""
	}),
	when(func(e *registry.UnconfiguredError) string {
		return fmt.Sprintf("give its address: gem ext config %s %s --value <url>", e.Extension, e.Setting)
	}),
	when(func(e *install.NameClashError) string {
		if e.Qualified != "" {
			return fmt.Sprintf("to have both, install this one as %s: gem ext install %s --qualified; or install again with --force to put it in the other's place", e.Qualified, e.Source)
		}
		return fmt.Sprintf("install again with --force to put it in the other's place; gem ext uninstall %s first to keep neither", e.Name)
	}),
	say[*install.NotQualifiableError]("only a plugin installed as plugin@marketplace has a qualified name: gem marketplace add its marketplace, or drop --qualified"),
	when(func(e *install.AlreadyInstalledError) string {
		if e.Linking {
			return "uninstall it first, or link again with --force"
		}
		return fmt.Sprintf("run gem ext update %s, or install again with --force to replace it", e.Name)
	}),
	say[*install.NotInstalledError]("gem ext list shows them"),
	say[*install.NoSourceError]("reinstall it with gem ext install <source> --force"),
	say[*install.NetworkError]("check the address; if it is right, this machine may be offline or need a proxy: HTTPS_PROXY"),
	say[*plugins.TimeoutError]("raise the limit with --timeout"),
	when(func(e *mcpauth.NeedsSignInError) string { return "sign in with gem mcp auth " + e.Server }),
	when(func(e *mcphost.OAuthFieldError) string {
		return "fix that field of the file, or ask the author of " + e.Extension + " to; then run gem mcp auth " + e.Server + " again"
	}),
	say[mcpauth.StateError]("start again with gem mcp auth <server>; nothing was kept"),
	when(func(e *mcpauth.NoSignInError) string {
		return "gem mcp tools " + e.Server + " lists its tools as they are"
	}),
	func(err error) string {
		if errors.Is(err, install.ErrConsentNeeded) {
			return "run gem ext update <name>"
		}
		return ""
	},
}

// didYouMean puts the name like the one asked for before the hint.
func didYouMean(similar, hint string) string {
	if similar == "" {
		return hint
	}
	return fmt.Sprintf("did you mean %q? %s", similar, hint)
}

// apiHint is what to do about a Gemini API error, by what failed.
func apiHint(e *sdk.APIError) string {
	switch e.Kind {
	case sdk.APIAuth:
		return "check GEMINI_API_KEY: the key was refused"
	case sdk.APIModel:
		return "check the model: --model, or model.name in settings.json"
	case sdk.APIQuota:
		return "rate limited or out of quota: wait and try again"
	case sdk.APIServer:
		return "the API failed: try again"
	case sdk.APINetwork:
		return "this machine may be offline or need a proxy, HTTPS_PROXY; GEM_GEMINI_BASE_URL changes the address"
	}
	return ""
}
