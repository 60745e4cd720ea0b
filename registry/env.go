// Package registry owns where extensions live and what state they are in: the providers and
// their roots, discovery with priority and shadowing, Gemini CLI's
// enablement rules and install metadata, binary resolution, and the
// install store.
//
// Choices where the specs are silent:
//   - A root folder that is the same folder as an earlier root (cwd == $HOME makes
//     <cwd>/.gemini/extensions the user root) is scanned once, at its first place.
//   - A linked extension whose source has no manifest is skipped with a warning (a plain
//     missing manifest is skipped silently, as the spec says).
//   - Each provider keeps its own enablement file: Gemini CLI's
//     ~/.gemini/extensions/extension-enablement.json for `gemini`, $GEM_HOME/extension-enablement.json
//     for `native`, in the same format.
//
// Trust (trust.go, consent.go), decided after discovery and enablement:
//   - Shadowing follows the discovery order (providers by priority, each in its scan
//     order) for every mix of providers and levels, with trust on top: a project extension
//     takes part only in a trusted folder, agreed to as it is, with a plain name; otherwise it
//     shadows nothing (a cloned repository must not take an installed extension's place, its
//     secrets or its grants). So in a trusted folder a .gem/extensions one you agreed to
//     shadows your ~/.gem/extensions and ~/.gemini/extensions ones of that name (the seed
//     rule), and never receives their grants or sealed secrets. A project extension shadowed
//     by a user one is marked Conflict. One pure function decides (shadow, shadow.go).
//   - Folder trust is Gemini CLI's ~/.gemini/trustedFolders.json; the longest matching rule
//     decides; a missing or corrupt file trusts nothing. The folder is the current directory.
//     Both are compared as the folders they really are (links resolved; the current directory
//     enters resolved, paths.NewLayout): a link inside a trusted project to an untrusted clone
//     is the clone, untrusted; a rule written through a link covers the folder it leads to;
//     of two rules for one folder, DO_NOT_TRUST wins. gem trust records the real folder.
//   - Consent is kept in the extension folder's receipt ($GEM_HOME/receipts, keyed by the
//     folder; receipt.go), holding its
//     source and the manifest's exact bytes (a byte comparison, not a hash, so the light front
//     needs no crypto). A project extension runs only when its folder is trusted and its
//     record matches (Blocked says why not). A user extension without a record (installed by
//     Gemini CLI, or placed by hand) runs with the default sandbox only; one whose manifest
//     changed runs with the permissions of the manifest agreed to (PermissionManifest).
//   - Names that are not plain folder names are blocked on every load (PlainName).
//   - The paths a manifest's sandbox.read and sandbox.write ask for are resolved before
//     consent (variables, "..", links; roots.go) and shown by the real path they grant. One
//     that is, is in or holds a secret of the home (~/.ssh, ~/.gnupg, ~/.aws, credential
//     files, ~/.gemini, gem's home, another extension's folder) is refused at install, link,
//     update and consent unless the user names it (--allow PATH; gem ext grant NAME --read
//     PATH for an installed extension). The consent records each path's real path and file
//     identity; a start that finds another real path or another file there is refused until
//     the user agrees again (gem ext consent). A path that did not exist at consent is
//     recorded by its real path alone: a start takes what is there when it is reached by that
//     path and is no secret. A path under ${workspacePath} follows the project: its kind only
//     is checked.
//   - The folders of gem ext grant NAME --read/--write are recorded the same way when granted
//     (their real path and identity, or absent: grantroots.go) and checked at each start; the
//     identity goes to the sandbox helper as a manifest's does. A grant recorded by an older
//     gem, without them, gets them at its first use (the next start records what is there
//     then, trust on first use, kept in grants.json): it keeps working, and a later swap is
//     refused. Granting a folder again records it anew.
package registry

import (
	"github.com/gemhost/gem/internal/config"
	"github.com/gemhost/gem/internal/paths"
)

// Env is where gem looks: the user's home, gem's home, the home that holds .gemini, and the
// current directory. Tests build one by hand; EnvFromOS reads the process's.
type Env struct {
	paths.Layout // every path gem reads or writes, by name
	Getenv       func(string) string
	Engine       Engine
}

// Engine is what only gem-engine links (crypto, binary formats): the light front leaves it
// zero and hands to the engine what needs it. It travels in Env, never in a global.
type Engine struct {
	HashFile       func(path string) (string, error) // a file's SHA-256 in hex
	DescribeBinary func(path string) string          // the platform a binary was built for
}

// EnvFromOS returns the environment of this process.
func EnvFromOS() (Env, error) {
	home, cwd, err := config.Dirs()
	if err != nil {
		return Env{}, err
	}
	return NewEnv(home, cwd, config.Getenv), nil
}

// NewEnv fills GemHome and GeminiHome from getenv (GEM_HOME, GEMINI_CLI_HOME).
func NewEnv(home, cwd string, getenv func(string) string) Env {
	return Env{Layout: paths.NewLayout(home, cwd, getenv), Getenv: getenv}
}
