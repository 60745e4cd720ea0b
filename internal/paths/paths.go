// Package paths owns every path gem reads or writes: its own home ($GEM_HOME, default
// ~/.gem), the files it shares with Gemini CLI (~/.gemini), and a workspace's .gem/ and
// .gemini/ folders. Code asks for a location by name (Layout's and Workspace's methods);
// nothing else joins these names. It is a leaf: it imports only internal/fsx and internal/pathx.
//
// $GEM_HOME:
//
//	extensions/            gem's native user extensions (the native provider's user root)
//	extension-enablement.json
//	receipts/<key>.json    per extension folder: what the user agreed to, its source and
//	                       file hashes (ReceiptFile); <key>.pending.json while it changes
//	grants.json            the user's grants (GrantsFile)
//	backups/<name>/        the version an update replaced (BackupDir), with its receipt
//	                       beside it (BackupReceiptFile)
//	secrets/               sealed sensitive settings (SecretsDir)
//	data/<name>/           each extension's own data folder (DataDir)
//	data/<name>/output/    what its programs keep for the model to read (OutputDir)
//	overlays/<name>/       what its servers and plugins wrote into its folder (OverlayDir)
//	run/                   plugin socket folders (RunDir)
//	mcp-serve/<port>.token gem mcp serve --http's bearer tokens (ServeTokenDir)
//	cache/discovery/       the discovery index (IndexFile)
//	cache/consent-writes   what every consent record lets programs write (ConsentWritesFile)
//	cache/tools/<key>/     plugins' tool lists, per extension folder (ToolCacheFile)
//	cache/mcp-tools/<key>/ MCP servers' tool lists, per extension folder (MCPToolCacheFile)
//	cache/binhash/<key>/   verified binaries by file identity, per extension folder (BinHashFile)
//	cache/gitconfig/<key>  what the user's git says of a workspace for the git capability,
//	                       by its config files' identity (GitConfigFile)
//	logs/gem.log           gem's log (LogDir)
//	audit.log              every policy decision (AuditLog)
//	policies.toml          the user's policy rules (UserPolicies)
//	settings.json          gem's own user settings (SettingsFile)
//	sessions/              saved model sessions (SessionsDir)
//	plans/                 plan-mode turns' plans, <session>.md (PlansDir)
//	history/<key>/         a workspace's checkpoints (CheckpointDir): git/ the shadow
//	                       repository of its files, checkpoints/<id>.json each checkpoint
//	history                the shell's history (HistoryFile)
//	trust-asked            folders gem asked about trusting (TrustAskedFile)
//	workspace-asked        programs gem asked about changing the project (WorkspaceAskedFile)
//	state.lock             the lock of lifecycle changes (LockFile)
//	gem.lock               the user's extension lock: sources, pins, hashes (ExtensionLock)
//
// ~/.gemini (shared with Gemini CLI, in its formats): extensions/, settings.json,
// trustedFolders.json, policies/*.toml, skills/, agents/, GEMINI.md.
//
// What is an extension's is named by a method taking its name or its folder (dir), and is
// removed with it: registry/install's table of what an extension owns names each such
// location, and its test checks that every Layout method that names one is in it.
//
// A workspace: gem.lock (the project's extension lock, ExtensionLock), .gem/policies.toml, .gemini/{extensions,settings.json,policies.toml,skills,
// agents}.
package paths

import (
	"path/filepath"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/pathx"
)

// Layout is where gem looks: the user's home, gem's home, the home that holds .gemini, and
// the current directory.
type Layout struct {
	Home       string // $HOME
	GemHome    string // $GEM_HOME, else ~/.gem
	GeminiHome string // $GEMINI_CLI_HOME, else $HOME: the folder that holds .gemini
	Cwd        string // the current directory, its links resolved (pathx.Real)
}

// NewLayout is the layout of home and cwd: GemHome is $GEM_HOME, else ~/.gem; GeminiHome
// is $GEMINI_CLI_HOME, else home (relative values are taken from cwd). getenv may be nil.
//
// This is where the current directory enters gem, so it is resolved here, once: $PWD's
// spelling (a link inside a trusted project to an untrusted clone) must not decide trust,
// policy tiers, project extensions or settings, and Gemini CLI's process.cwd() is the real
// folder too.
func NewLayout(home, cwd string, getenv func(string) string) Layout {
	cwd = pathx.Real(cwd)
	l := Layout{Home: home, Cwd: cwd, GemHome: filepath.Join(home, ".gem"), GeminiHome: home}
	if getenv != nil {
		if g := getenv("GEM_HOME"); g != "" {
			l.GemHome = absFrom(cwd, g)
		}
		if g := getenv("GEMINI_CLI_HOME"); g != "" {
			l.GeminiHome = absFrom(cwd, g)
		}
	}
	return l
}

func absFrom(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// LogDir is where gem writes its logs.
func (e Layout) LogDir() string { return filepath.Join(e.GemHome, "logs") }

// GrantsFile is $GEM_HOME/grants.json: extension name → grant.
func (e Layout) GrantsFile() string { return filepath.Join(e.GemHome, "grants.json") }

// ReceiptDir holds the receipts.
func (e Layout) ReceiptDir() string { return filepath.Join(e.GemHome, "receipts") }

// ReceiptFile is the receipt of the extension in folder dir.
func (e Layout) ReceiptFile(dir string) string {
	return filepath.Join(e.ReceiptDir(), fsx.PathKey(filepath.Clean(dir))+".json")
}

// PendingReceiptSuffix ends the name of a pending receipt.
const PendingReceiptSuffix = ".pending.json"

// PendingReceiptFile is the receipt of folder dir while a change of it is under way.
func (e Layout) PendingReceiptFile(dir string) string {
	return filepath.Join(e.ReceiptDir(), fsx.PathKey(filepath.Clean(dir))+PendingReceiptSuffix)
}

// LegacyConsentFile and LegacyRecordFile are where gem kept consent and install records
// before receipts (read, then removed).
func (e Layout) LegacyConsentFile(dir string) string {
	return filepath.Join(e.GemHome, "consent", fsx.PathKey(filepath.Clean(dir))+".json")
}

// LegacyRecordFile: see LegacyConsentFile.
func (e Layout) LegacyRecordFile(name string) string {
	return filepath.Join(e.GemHome, "records", name+".json")
}

// BackupDir keeps the version of name that an update replaced.
func (e Layout) BackupDir(name string) string { return filepath.Join(e.GemHome, "backups", name) }

// BackupReceiptFile is the receipt of the version BackupDir keeps.
func (e Layout) BackupReceiptFile(name string) string { return e.BackupDir(name) + ".receipt.json" }

// SecretsDir is where sensitive settings are kept, sealed (registry/secrets).
func (e Layout) SecretsDir() string { return filepath.Join(e.GemHome, "secrets") }

// SecretsFile holds extension name's sensitive settings, sealed.
func (e Layout) SecretsFile(name string) string { return filepath.Join(e.SecretsDir(), name+".enc") }

// MCPTokensFile holds the OAuth tokens of extension name's remote MCP servers, sealed
// (host/mcpauth).
func (e Layout) MCPTokensFile(name string) string {
	return filepath.Join(e.SecretsDir(), "mcp-oauth", name+".enc")
}

// OutputFolder is the folder in an extension's data folder where its programs keep what the
// model may read later (GEM_EXTENSION_OUTPUT): core read tools read it, nothing else of the
// data folder.
const OutputFolder = "output"

// OutputDir is extension name's output folder (GEM_EXTENSION_OUTPUT).
func (e Layout) OutputDir(name string) string { return filepath.Join(e.DataDir(name), OutputFolder) }

// DataDir is extension name's own data folder (GEM_EXTENSION_DATA).
func (e Layout) DataDir(name string) string { return filepath.Join(e.DataRoot(), name) }

// OverlayDir keeps what extension name's servers and plugins wrote into its folder
// (sandbox.OverlayDirs): part of its data.
func (e Layout) OverlayDir(name string) string { return filepath.Join(e.GemHome, "overlays", name) }

// PayloadRoot holds MCP servers' payloads installed from bundles and mirrors (npm packages
// with their dependency trees, host/toolchain/payload), by what the lock pins: read-only to
// every program, shared by the extensions that pin the same package.
func (e Layout) PayloadRoot() string { return filepath.Join(e.GemHome, "payloads") }

// DataRoot holds every extension's data folder.
func (e Layout) DataRoot() string { return filepath.Join(e.GemHome, "data") }

// RunDir holds the plugins' socket folders.
func (e Layout) RunDir() string { return filepath.Join(e.GemHome, "run") }

// ServeTokenDir holds gem mcp serve --http's bearer tokens.
func (e Layout) ServeTokenDir() string { return filepath.Join(e.GemHome, "mcp-serve") }

// IndexFile is the discovery index of a root folder.
func (e Layout) IndexFile(root string) string {
	return filepath.Join(e.GemHome, "cache", "discovery", fsx.PathKey(root))
}

// ConsentWritesFile is the index of what every extension's consent record lets its programs
// write (registry.ReadWriteRoots).
func (e Layout) ConsentWritesFile() string {
	return filepath.Join(e.GemHome, "cache", "consent-writes")
}

// ToolCacheDir holds the cached tool lists of the plugins of the extension in folder dir:
// uninstalling it removes them.
func (e Layout) ToolCacheDir(dir string) string {
	return filepath.Join(e.GemHome, "cache", "tools", fsx.PathKey(filepath.Clean(dir)))
}

// ToolCacheFile is the cached tool list of a plugin binary of the extension in folder dir.
func (e Layout) ToolCacheFile(dir, bin string) string {
	return filepath.Join(e.ToolCacheDir(dir), fsx.PathKey(bin)+".json")
}

// MCPToolCacheDir holds the cached tool lists of the MCP servers of the extension in folder
// dir: uninstalling it removes them.
func (e Layout) MCPToolCacheDir(dir string) string {
	return filepath.Join(e.GemHome, "cache", "mcp-tools", fsx.PathKey(filepath.Clean(dir)))
}

// MCPToolCacheFile is the cached tool list of an MCP server of the extension in folder dir,
// by a key of what decides it (host/tools: its command line, environment names, filters and
// binary).
func (e Layout) MCPToolCacheFile(dir, key string) string {
	return filepath.Join(e.MCPToolCacheDir(dir), fsx.PathKey(key)+".json")
}

// SigstoreCacheDir caches Sigstore's public-good trusted root, fetched through its TUF
// repository (registry/signature).
func (e Layout) SigstoreCacheDir() string { return filepath.Join(e.GemHome, "cache", "sigstore") }

// BinHashDir holds the verification records of the binaries of the extension in folder dir.
func (e Layout) BinHashDir(dir string) string {
	return filepath.Join(e.GemHome, "cache", "binhash", fsx.PathKey(filepath.Clean(dir)))
}

// BinHashFile records that a binary of the extension in folder dir was verified, by its file
// identity.
func (e Layout) BinHashFile(dir, bin string) string {
	return filepath.Join(e.BinHashDir(dir), fsx.PathKey(bin))
}

// GitConfigFile keeps what the user's git config says of the workspace root for the git
// capability (host/commands' gitcache.go).
func (e Layout) GitConfigFile(root string) string {
	return filepath.Join(e.GemHome, "cache", "gitconfig", fsx.PathKey(filepath.Clean(root)))
}

// AuditLog is the log of policy decisions.
func (e Layout) AuditLog() string { return filepath.Join(e.GemHome, "audit.log") }

// UserPolicies is the user's policy file.
func (e Layout) UserPolicies() string { return filepath.Join(e.GemHome, "policies.toml") }

// SettingsFile is gem's own user settings file.
func (e Layout) SettingsFile() string { return filepath.Join(e.GemHome, "settings.json") }

// PlansDir holds the plans of plan-mode turns, one file per session.
func (e Layout) PlansDir() string { return filepath.Join(e.GemHome, "plans") }

// CheckpointDir holds the checkpoints of workspace dir (host/checkpoint): a shadow git
// repository of its files and, beside it, each checkpoint's conversation and tool call.
func (e Layout) CheckpointDir(dir string) string {
	return filepath.Join(e.GemHome, "history", fsx.PathKey(filepath.Clean(dir)))
}

// SessionsDir holds saved model sessions.
func (e Layout) SessionsDir() string { return filepath.Join(e.GemHome, "sessions") }

// HistoryFile is the interactive shell's history.
func (e Layout) HistoryFile() string { return filepath.Join(e.GemHome, "history") }

// TrustAskedFile lists the folders gem asked about trusting.
func (e Layout) TrustAskedFile() string { return filepath.Join(e.GemHome, "trust-asked") }

// WorkspaceAskedFile lists the programs (extension, folder, program) gem asked whether they
// may change the project.
func (e Layout) WorkspaceAskedFile() string { return filepath.Join(e.GemHome, "workspace-asked") }

// MarketplacesFile records the Claude Code marketplaces gem knows (gem marketplace add).
func (e Layout) MarketplacesFile() string { return filepath.Join(e.GemHome, "marketplaces.json") }

// MarketplacesDir holds each known marketplace's fetched copy, one folder per name.
func (e Layout) MarketplacesDir() string { return filepath.Join(e.GemHome, "marketplaces") }

// LockFile serialises lifecycle changes between gem processes.
func (e Layout) LockFile() string { return filepath.Join(e.GemHome, "state.lock") }

// ExtensionLock is the user's gem.lock: what the user's extensions are pinned to.
func (e Layout) ExtensionLock() string { return filepath.Join(e.GemHome, "gem.lock") }

// GeminiDir is ~/.gemini, Gemini CLI's user folder.
func (e Layout) GeminiDir() string { return filepath.Join(e.GeminiHome, ".gemini") }

// GeminiExtensionsDir is ~/.gemini/extensions.
func (e Layout) GeminiExtensionsDir() string { return filepath.Join(e.GeminiDir(), "extensions") }

// SystemSettingsFile is Gemini CLI's system settings file, an administrator's:
// GEMINI_CLI_SYSTEM_SETTINGS_PATH, else /etc/gemini-cli/settings.json.
func SystemSettingsFile(getenv func(string) string) string {
	if getenv != nil {
		if p := getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
			return p
		}
	}
	return "/etc/gemini-cli/settings.json"
}

// SettingsFile is one settings file and its scope: user, gem, workspace or system.
type SettingsFile struct{ Scope, Path string }

// SettingsFiles are the settings files in precedence order (last wins): Gemini CLI's user
// file, gem's, the workspace's (read only when it is trusted), the administrator's system
// file.
func (e Layout) SettingsFiles(workspace string, getenv func(string) string) []SettingsFile {
	return []SettingsFile{
		{Scope: "user", Path: e.GeminiSettingsFile()},
		{Scope: "gem", Path: e.SettingsFile()},
		{Scope: "workspace", Path: Workspace(workspace).GeminiSettingsFile()},
		{Scope: "system", Path: SystemSettingsFile(getenv)},
	}
}

// GeminiSettingsFile is ~/.gemini/settings.json.
func (e Layout) GeminiSettingsFile() string { return filepath.Join(e.GeminiDir(), "settings.json") }

// TrustedFoldersFile is Gemini CLI's trust file, shared with it: ~/.gemini/trustedFolders.json.
func (e Layout) TrustedFoldersFile() string {
	return filepath.Join(e.GeminiDir(), "trustedFolders.json")
}

// GeminiPoliciesDir holds the user's Gemini CLI policy files (*.toml).
func (e Layout) GeminiPoliciesDir() string { return filepath.Join(e.GeminiDir(), "policies") }

// GeminiSkillsDir holds the user's skills (<name>/SKILL.md).
func (e Layout) GeminiSkillsDir() string { return filepath.Join(e.GeminiDir(), "skills") }

// GeminiAgentsDir holds the user's subagents (*.md).
func (e Layout) GeminiAgentsDir() string { return filepath.Join(e.GeminiDir(), "agents") }

// GeminiMemoryFile is ~/.gemini/GEMINI.md (save_memory's file, read by every session).
func (e Layout) GeminiMemoryFile() string { return filepath.Join(e.GeminiDir(), "GEMINI.md") }

// Workspace is a project folder (its root: host/commands.Workspace finds it).
type Workspace string

// GemPolicies is the workspace's .gem/policies.toml.
func (w Workspace) GemPolicies() string { return filepath.Join(string(w), ".gem", "policies.toml") }

// ExtensionLock is the project's gem.lock (beside .gemini and .gem, committed by teams): the
// project's extensions, pinned.
func (w Workspace) ExtensionLock() string { return filepath.Join(string(w), "gem.lock") }

// GeminiDir is the workspace's .gemini folder.
func (w Workspace) GeminiDir() string { return filepath.Join(string(w), ".gemini") }

// GeminiExtensionsDir is the workspace's .gemini/extensions (project scope installs).
func (w Workspace) GeminiExtensionsDir() string { return filepath.Join(w.GeminiDir(), "extensions") }

// GeminiSettingsFile is the workspace's .gemini/settings.json.
func (w Workspace) GeminiSettingsFile() string { return filepath.Join(w.GeminiDir(), "settings.json") }

// GeminiPolicies is the workspace's .gemini/policies.toml.
func (w Workspace) GeminiPolicies() string { return filepath.Join(w.GeminiDir(), "policies.toml") }

// GeminiSkillsDir is the workspace's .gemini/skills.
func (w Workspace) GeminiSkillsDir() string { return filepath.Join(w.GeminiDir(), "skills") }

// GeminiAgentsDir is the workspace's .gemini/agents.
func (w Workspace) GeminiAgentsDir() string { return filepath.Join(w.GeminiDir(), "agents") }
