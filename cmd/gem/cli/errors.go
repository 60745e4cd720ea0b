package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/host/commands"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/host/plugins"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/mcpregistry"
	"github.com/gemhost/gem/registry/oci"
	"github.com/gemhost/gem/registry/signature"
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
		fmt.Fprintf(w, "gem: %s\nRun 'gem help' or add --help to the command for usage.\n", u.msg)
		return 2
	case errors.As(err, &x):
		if x.msg != "" {
			fmt.Fprintln(w, "gem:", x.msg)
		}
		return x.code
	default:
		fmt.Fprintln(w, "gem:", errorText(err))
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

// hintFor is what to do about a library error, in gem's terms (library errors carry none).
func hintFor(err error) string {
	if hint := advice.For(err); hint != "" {
		return hint
	}
	var (
		already       *install.AlreadyInstalledError
		nameClash     *install.NameClashError
		unconfigured  *registry.UnconfiguredError
		notQualified  *install.NotQualifiableError
		notInstalled  *install.NotInstalledError
		noSource      *install.NoSourceError
		timeout       *plugins.TimeoutError
		network       *install.NetworkError
		unknownTool   *tools.UnknownToolError
		unknownServer *tools.UnknownServerError
		badArgs       *tools.ArgumentsError
		denied        *tools.DeniedError
		api           *agent.APIError
		invalid       *install.InvalidError
		refOnLocal    *install.RefOnLocalError
		noMarket      *install.UnknownMarketplaceError
		noPlugin      *install.UnknownPluginError
		marketExists  *install.MarketplaceExistsError
		noServer      *mcpregistry.NotFoundError
		badBundle     *install.BundleHashError
		unsupported   *mcpregistry.UnsupportedError
		mismatch      *lockfile.MismatchError
		notLocked     *install.NotLockedError
		notBundled    *install.NotBundledError
		emptyLock     *install.EmptyLockError
		noLock        *noLockError
		ambiguous     *ambiguousConsentError
		badLock       *lockfile.Error
		blocked       *install.BlockedSourceError
		badSubfolder  *install.SubfolderError
		unsigned      *install.UnsignedError
		badSignature  *signature.BundleError
		wrongSigner   *signature.IdentityError
		badRoot       *signature.RootError
		badPolicy     *signature.PolicyError
		localOutside  *install.LocalSourceError
		untrustedLock *install.UntrustedLockError
		homeWrite     *commands.HomeWriteError
		linkedProt    *commands.LinkedProtectedError
		notLayout     *oci.LayoutError
		noOCI         *oci.NotFoundError
		noPlatform    *oci.NoPlatformError
		notExtension  *oci.NotExtensionError
	)
	switch {
	case errors.As(err, &invalid) && invalid.Forceable:
		return "fix them (gem ext validate shows every problem), or add --force to install it anyway"
	case errors.As(err, &invalid):
		return "gem ext validate shows every problem"
	case errors.As(err, &refOnLocal):
		return "drop --ref: a folder or archive installs as it is (check out the version you want first)"
	case errors.As(err, &noMarket):
		return "gem marketplace list shows the known ones; gem marketplace add <owner/repo|url|path> adds one"
	case errors.As(err, &noPlugin):
		return fmt.Sprintf("gem marketplace info %s lists its plugins; gem marketplace update %s fetches it again", noPlugin.Marketplace, noPlugin.Marketplace)
	case errors.As(err, &marketExists):
		return fmt.Sprintf("gem marketplace remove %s first, or gem marketplace update %s", marketExists.Name, marketExists.Name)
	case errors.As(err, &noServer):
		return "gem mcp search <words> finds a server's exact name and versions"
	case errors.As(err, &badBundle):
		return "the bundle or its registry entry was changed or corrupted: tell the server's publisher; nothing was unpacked"
	case errors.As(err, &unsupported):
		return "gem mcp search shows how each server runs; add another server by hand to an extension's gemini-extension.json"
	case errors.As(err, &mismatch) && mismatch.Locked == "" && strings.HasPrefix(mismatch.Field, "platforms."):
		return "nothing was changed: gem lock (without --locked) adds this platform's hashes; commit the lock"
	case errors.As(err, &mismatch):
		return "nothing was changed: the source no longer gives what gem.lock pins (a moved tag, a changed file or package); if that is intended, gem ext update " + mismatch.Name + " then gem lock records it"
	case errors.As(err, &notLocked):
		return fmt.Sprintf("install it without --locked (gem ext install %s%s), then gem lock%s records it in %s", notLocked.Source, scopeFlag(notLocked.Scope, registry.LevelUser), scopeFlag(notLocked.Scope, registry.LevelProject), notLocked.Lock)
	case errors.As(err, &notBundled):
		return notBundledHint(notBundled)
	case errors.As(err, &emptyLock):
		return "gem lock --scope user records your installed extensions in the user's lock (gem lock, the project's), or name them: gem ext bundle <name>... -o <file>"
	case errors.As(err, &ambiguous):
		return fmt.Sprintf("name the one to agree to by its folder: gem ext consent %s", ambiguous.Among[0].Dir)
	case errors.As(err, &noLock):
		return "gem lock writes one from what is installed (gem ext install … --scope project, then gem lock)"
	case errors.As(err, &blocked):
		return "an administrator's settings decide which extensions may be installed; ask them, or install an allowed source"
	case errors.As(err, &badSubfolder):
		return "name a folder of the repository as owner/repo//path/to/extension (@ref after it), or with --path"
	case errors.As(err, &unsigned) && unsigned.NotArchive:
		return "install a signed release (an archive with its Sigstore bundle) instead of the folder or repository"
	case errors.As(err, &unsigned):
		return "ask its publisher to sign releases (cosign sign-blob --bundle, or GitHub's artifact attestations), or give the bundle with --bundle"
	case errors.As(err, &badSignature):
		return "do not install it: the archive was changed after it was signed, or the signature is not from a Sigstore gem trusts (security.sigstoreTrustedRoot); nothing was changed"
	case errors.As(err, &wrongSigner):
		return fmt.Sprintf("nothing was changed; if you trust that signer, say so with --cert-identity %q --cert-oidc-issuer %q, or in security.trustedSigners", wrongSigner.Got.Identity, wrongSigner.Got.Issuer)
	case errors.As(err, &badRoot):
		return "offline or behind a firewall? set security.sigstoreTrustedRoot to a trusted_root.json (sigstore's, or your organisation's)"
	case errors.As(err, &badPolicy):
		return "fix the signer policy: an issuer, and an identity or an identity pattern"
	case errors.As(err, &homeWrite):
		return fmt.Sprintf("if it came from gem ext grant: gem ext grant %s --revoke, then grant the folders inside your home it needs; if from its manifest's sandbox.write, the extension asks for too much", homeWrite.Extension)
	case errors.As(err, &linkedProt):
		return fmt.Sprintf("grant a folder that does not hold %s (gem ext grant %s --revoke, then the folders it needs)", linkedProt.Path, linkedProt.Extension)
	case errors.As(err, &localOutside) && localOutside.Why != "":
		return "nothing was fetched; install what you trust yourself (gem ext install <source>), or put the extension inside the project"
	case errors.As(err, &localOutside):
		return "nothing was changed; if you trust the lock, install that folder yourself (gem ext install <folder>), or put the extension inside the project"
	case errors.As(err, &untrustedLock):
		return "nothing was fetched; read gem.lock, and if you trust this project: gem trust, then run this again"
	case errors.As(err, &notLayout):
		return "gem ext bundle -o file.tar writes a bundle (an OCI image layout with its gem.lock)"
	case errors.As(err, &noOCI):
		return "check the tag (gem ext push … oci://registry/repository:tag pushes one)"
	case errors.As(err, &noPlatform):
		return "push it again from a folder with this platform's binaries (gem ext push <folder> oci://…)"
	case errors.As(err, &notExtension):
		return "gem ext push writes extensions in gem's format; this artifact was pushed by another tool"
	case errors.As(err, &badLock):
		return "fix the file (it is JSON; git diff shows what changed) or write it again with gem lock"
	case errors.As(err, &api):
		return apiHint(api)
	case errors.As(err, &unknownTool) && unknownTool.Similar != "":
		return fmt.Sprintf("did you mean %q? gem tools list shows the tools of enabled extensions", unknownTool.Similar)
	case errors.As(err, &unknownTool):
		return "gem tools list shows the tools of enabled extensions"
	case errors.As(err, &unknownServer) && unknownServer.Similar != "":
		return fmt.Sprintf("did you mean %q? gem mcp list shows them", unknownServer.Similar)
	case errors.As(err, &unknownServer):
		return "gem mcp list shows them"
	case errors.As(err, &badArgs) && badArgs.NotJSON:
		return fmt.Sprintf(`quote the JSON for the shell, like '{"key": "value"}'; gem tools schema %s shows what it takes`, badArgs.Tool)
	case errors.As(err, &badArgs):
		return fmt.Sprintf("gem tools schema %s shows what it takes", badArgs.Tool)
	case errors.As(err, &denied) && denied.Rule == "":
		return "approve with --yes, answer at the prompt, or allow it in a policy file"
	case errors.As(err, &unconfigured):
		return fmt.Sprintf("give its address: gem ext config %s %s --value <url>", unconfigured.Extension, unconfigured.Setting)
	case errors.As(err, &nameClash) && nameClash.Qualified != "":
		return fmt.Sprintf("to have both, install this one as %s: gem ext install %s --qualified; or install again with --force to put it in the other's place", nameClash.Qualified, nameClash.Source)
	case errors.As(err, &nameClash):
		return fmt.Sprintf("install again with --force to put it in the other's place (gem ext uninstall %s first to keep neither)", nameClash.Name)
	case errors.As(err, &notQualified):
		return "only a plugin installed as plugin@marketplace has a qualified name: gem marketplace add its marketplace, or drop --qualified"
	case errors.As(err, &already) && already.Linking:
		return "uninstall it first, or link again with --force"
	case errors.As(err, &already):
		return fmt.Sprintf("run gem ext update %s, or install again with --force to replace it", already.Name)
	case errors.As(err, &notInstalled):
		return "gem ext list shows them"
	case errors.As(err, &noSource):
		return "reinstall it with gem ext install <source> --force"
	case errors.As(err, &network):
		return "check the address; if it is right, this machine may be offline or need a proxy (HTTPS_PROXY)"
	case errors.As(err, &timeout):
		return "raise the limit with --timeout"
	case errors.Is(err, install.ErrConsentNeeded):
		return "run gem ext update <name>"
	}
	return ""
}

// apiHint is what to do about a Gemini API error, by what failed.
func apiHint(e *agent.APIError) string {
	switch e.Kind {
	case agent.APIAuth:
		return "check GEMINI_API_KEY: the key was refused"
	case agent.APIModel:
		return "check the model: --model, or model.name in settings.json"
	case agent.APIQuota:
		return "rate limited or out of quota: wait and try again"
	case agent.APIServer:
		return "the API failed: try again"
	case agent.APINetwork:
		return "this machine may be offline or need a proxy (HTTPS_PROXY); GEM_GEMINI_BASE_URL changes the address"
	}
	return ""
}
