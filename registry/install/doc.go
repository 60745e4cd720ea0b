// Package install owns changing what is installed: fetching a source (local folder, git,
// GitHub release, archive) into a staging folder, validating it, asking consent, and
// putting it in place atomically with Gemini CLI's metadata and enablement; update with
// rollback, uninstall, link, enable/disable, settings, and verification against recorded
// hashes. It is separate from registry so the light `gem` front does not link semver.
//
// Where an extension comes from is a Source (sources.go): Sources resolves an install
// argument, or the install metadata an installed extension records, to one, and that is the
// only place that asks what kind a source is. Fetcher is gem's (local folder, archive, git,
// GitHub release); tests drive Install, Update and Rollback through a fake one.
//
// Layout and choices (Gemini CLI's on-disk layout, and gem's choices where it is silent):
//   - Where an extension goes depends on its format (registry.Format.InstallsInto): a Gemini
//     extension into Gemini CLI's root (~/.gemini/extensions, a project's .gemini/extensions),
//     which Gemini CLI loads too; a Claude Code or Antigravity plugin into gem's own
//     ($GEM_HOME/extensions, a project's .gem/extensions), never Gemini CLI's, where Gemini
//     CLI would warn "Configuration file not found" at every command. Every fetch is staged
//     beside Gemini CLI's root, then moved beside its format's (copied across filesystems).
//     A plugin an older gem put in ~/.gemini/extensions is still found, listed, updated and
//     uninstalled where it is; installing it again with --force moves it to gem's root.
//   - A name clash: installing an extension whose name one of the same level already has,
//     in its root or in gem's other, is refused: from the same source an *AlreadyInstalledError
//     (update it), from another a *NameClashError naming both. A marketplace's plugin may then
//     be installed under its qualified name, plugin@marketplace (Options.Qualified: a folder
//     of that name, which discovery gives that name), beside the other; --force replaces the
//     other (in gem's other root, it is uninstalled, its data and settings kept for the name).
//   - A plugin whose manifest names no version gets its marketplace entry's, else its
//     commit's first 12 hex digits (claude.Version), recorded in its install metadata's
//     "version" (gem's roots only), else registry.Unversioned.
//   - Staging happens in <root>/../.gem-staging/<random> (beside the extensions root, so the
//     final rename stays on one filesystem, but outside it, so discovery never sees a
//     half-made extension). Anything left there is stale once the lock is held and is
//     removed on the next run.
//   - Update and --force swap the staged folder and the installed one with one
//     renameat2(RENAME_EXCHANGE) on Linux: at every instant one complete version is in
//     place. Elsewhere the swap is three renames and a crash between them can leave the
//     installed copy under <root>/<name>.gem-swap (not yet repaired automatically).
//   - The previous version of an updated extension is kept in $GEM_HOME/backups/<name>
//     (one generation) with its receipt, for rollback (`gem ext update --rollback <name>`).
//   - Each extension folder has one receipt, $GEM_HOME/receipts/<key>.json
//     (registry.Receipt): the source, the version, the manifest and consent text agreed to,
//     what its programs were granted, and the file hashes of the installed tree
//     (`gem ext verify`). A change writes the new receipt as pending before the rename that
//     commits it; see receipts.go for the transaction and how the next run settles it.
//   - Uninstall removes everything the extension owns outside its folder, listed in one table
//     (owned.go): its receipt, tool caches and the questions asked about it and the grant
//     bound to it (keyed by its folder: always), and its data, overlays, sealed settings,
//     backup and enablement rules (keyed by its name: only when no extension of that name
//     remains at another level). --keep-data keeps the data parts. Its temporary folder
//     (/tmp/gem-<uid>/<name>) is not removed: it is shared by every $GEM_HOME of the user.
//   - One lock, $GEM_HOME/state.lock (flock), serialises gem processes that change state;
//     taking it settles what a killed gem left.
//   - Every install, update and sync pins what it fetched (pin.go, in the receipt): the commit,
//     the archive's sha256 and URL, the h1 of the files for this platform, and the payloads
//     of the extension's npx MCP servers (Installer.Payloads). gem lock writes them to a
//     scope's gem.lock (WriteLock; registry/lockfile owns the format); an install that follows
//     a lock (Options.Locked, Strict for --locked) fetches at the lock's commit or tag and
//     fails closed on any difference before consent is asked. Sync fetches a lock's
//     extensions side by side under the one state lock (each in its own staging folder; stale
//     ones are cleaned once before) and places them only when all matched.
//   - A lock's sources are someone else's list (locksource.go): nothing it names is fetched
//     before the user agreed, since the fetch alone tells whoever serves them the user's
//     address and that they use the project. Sync asks first, listing the sources (one
//     question, then each extension's consent once fetched; --consent answers both, and with
//     nobody to ask nothing is fetched); a fetch the user named needs no question (gem ext
//     install <source>, install <name> --locked, gem ext bundle, a bundle's own lock). A
//     project's lock is fetched only in a trusted folder (UntrustedLockError), and names only
//     remote sources (http(s) archives; git over https, http, ssh, git or host:path) or folders,
//     archives and repositories inside the project, links resolved (LocalSourceError): never
//     another path of the machine, whatever the spelling or scheme, and never the user's own
//     folders (~/.gemini, $GEM_HOME), whose extensions keep tokens in their .env.
//   - A monorepo's subfolder (repo//path@ref, Options.Path) is a partial sparse clone of which
//     only that folder is installed; its source records repo//path. A URL's password is used
//     for the clone and stripped from the clone's remote and every record. SourcePolicy
//     (Gemini CLI's security.allowedExtensions and security.blockGitExtensions) is checked on
//     what every fetch says it is.
//   - Signatures (signing.go; registry/signature verifies): an archive's Sigstore bundle is
//     the file or URL beside it named <archive>.sigstore.json, .sigstore or .bundle; a GitHub
//     release asset's is a release asset of those names, else GitHub's attestations of its
//     sha256 (the API `gh attestation verify` reads); --bundle gives one by hand. Git
//     sources, folders and GitHub's source tarballs carry none. The signer must match, most
//     specific first: the command line's (--cert-identity…), the lock's, the settings'
//     security.trustedSigners for the source, the installed version's (an update: another
//     signer, or none, is shown in the consent's diff and asked), a GitHub release's own
//     repository's workflows; with no policy the signer is shown at consent (trust on first
//     use). A signature that does not verify always fails (one that cannot be checked, the
//     trusted root out of reach, fails only where a signature is required, and is said in the
//     consent otherwise); a missing one fails when a policy
//     other than the installed version's applies or security.requireSignatures is set (which
//     also refuses folders, git sources and links). The signer is pinned in the receipt and
//     gem.lock, and named on its own consent line so an update compares it.
//   - Mirrors and bundles (mirror.go): a mirror (an OCI image layout folder or .tar, or an
//     oci:// repository; GEM_MIRROR, settings' extensions.mirrors with include/exclude globs
//     on the source) holds locked extensions tagged by the hash of their files for a platform
//     (oci.MirrorTag of the lock's h1), so only an install that follows a lock (sync, --locked,
//     a bundle) uses one: the first mirror that has it, else the origin; a mirror that answers
//     with something else (a changed layer, other files) fails, never falls back. What comes
//     from a mirror is recorded as from its origin. Bundle (gem ext bundle) fetches a lock's
//     extensions from their origins as sync does and writes them to a layout with the lock:
//     an archive kept as published (its sha256 and signature still verify), a git checkout
//     packed without .git (so a bundled git extension updates only by reinstalling).
//     Which entries (BundleLock): a named extension is taken from the project's gem.lock,
//     else the user's, else pinned as it is installed (what gem lock would record; the
//     bundle's own lock records it, and no lock of the user's is written: bundling reads
//     the project, never changes it); no name bundles the project's lock if it locks
//     anything, else the user's (the project's only once the user agreed to the fetch, as
//     sync asks); --scope looks in that lock alone. A user who installed an
//     extension and ran gem lock (which writes the project's lock by default) still gets
//     the extension bundled; errors name every lock looked in and the command that fixes it.
//   - Payloads in bundles and mirrors (payloads.go; Installer.Carrier, the engine's
//     host/toolchain/payload): a bundle also carries what the lock pins for each MCP server's
//     launcher, tagged by the pin (an npm package with its whole dependency tree, as npm
//     resolves it at bundle time; each tarball checked against its integrity), and the
//     bundle's lock pins each one's whole tree (lockfile.Payload.Tree). An install from a
//     mirror that carries a payload whose tree the lock pins takes it as the lock pins it (not
//     asked of the registry) and installs it after consent, before the extension is put in
//     place: one that fails (a tarball changed, another tree, a top package other than the
//     pin) leaves the extension as it was. A lock without the tree (gem lock before any
//     bundle) takes no payload from a mirror, which could otherwise choose the dependencies. PyPI payloads are not carried: uv keeps what it fetched by index URL, so a bundle
//     would have to serve an index at every start; a bundle names them and the server
//     fetches them when it starts. Installed payloads stay in $GEM_HOME/payloads after an
//     uninstall (shared by extensions that pin the same package; content-addressed).
//   - GEM_TEST_CRASH_AT=<step> makes gem kill itself with SIGKILL at that step; tests use
//     it to prove that no step leaves the extension missing or half-written.
package install
