package registry

import "path/filepath"

// The layout of $GEM_HOME (default ~/.gem), in one place: every file and folder gem keeps
// there has one method here, and code asks for the location by name.
//
//	extensions/            gem's native user extensions (the native provider's user root)
//	extension-enablement.json
//	receipts/<key>.json    per extension folder: what the user agreed to, its source and
//	                       file hashes (ReceiptFile); <key>.pending.json while it changes
//	grants.json            the user's grants (GrantsFile)
//	backups/<name>/        the version an update replaced (BackupDir), with its receipt
//	secrets/               sealed sensitive settings (SecretsDir)
//	data/<name>/           each extension's own data folder (DataDir)
//	data/<name>/output/    what its programs keep for the model to read (OutputDir)
//	overlays/<name>/       what its servers and plugins wrote into its folder (OverlayDir)
//	run/                   plugin socket folders (RunDir)
//	mcp-serve/<port>.token gem mcp serve --http's bearer tokens (ServeTokenDir)
//	cache/discovery/       the discovery index (IndexFile)
//	cache/tools/           plugins' tool lists (ToolCacheFile)
//	cache/mcp-tools/       MCP servers' tool lists (MCPToolCacheFile)
//	cache/binhash/         verified binaries by file identity (BinHashFile)
//	logs/gem.log           gem's log (LogDir)
//	audit.log              every policy decision (AuditLog)
//	policies.toml          the user's policy rules (UserPolicies)
//	settings.json          gem's own user settings (SettingsFile)
//	sessions/              saved model sessions (SessionsDir)
//	plans/                 plan-mode turns' plans, <session>.md (PlansDir)
//	history                the shell's history (HistoryFile)
//	trust-asked            folders gem asked about trusting (TrustAskedFile)
//	state.lock             the lock of lifecycle changes (LockFile)

// LogDir is where gem writes its logs.
func (e Env) LogDir() string { return filepath.Join(e.GemHome, "logs") }

// GrantsFile is $GEM_HOME/grants.json: extension name → Grant.
func (e Env) GrantsFile() string { return filepath.Join(e.GemHome, "grants.json") }

// ReceiptDir holds the receipts (Receipt).
func (e Env) ReceiptDir() string { return filepath.Join(e.GemHome, "receipts") }

// ReceiptFile is the receipt of the extension in folder dir.
func (e Env) ReceiptFile(dir string) string {
	return filepath.Join(e.ReceiptDir(), PathKey(filepath.Clean(dir))+".json")
}

const pendingSuffix = ".pending.json"

// PendingReceiptFile is the receipt of folder dir while a change of it is under way.
func (e Env) PendingReceiptFile(dir string) string {
	return filepath.Join(e.ReceiptDir(), PathKey(filepath.Clean(dir))+pendingSuffix)
}

// The places of the records gem kept before receipts (read, then removed).
func (e Env) legacyConsentFile(dir string) string {
	return filepath.Join(e.GemHome, "consent", PathKey(filepath.Clean(dir))+".json")
}
func (e Env) legacyRecordFile(name string) string {
	return filepath.Join(e.GemHome, "records", name+".json")
}

// BackupDir keeps the version of name that an update replaced.
func (e Env) BackupDir(name string) string { return filepath.Join(e.GemHome, "backups", name) }

// SecretsDir is where sensitive settings are kept, sealed (registry/secrets).
func (e Env) SecretsDir() string { return filepath.Join(e.GemHome, "secrets") }

// OutputFolder is the folder in an extension's data folder where its programs keep what the
// model may read later (GEM_EXTENSION_OUTPUT): core read tools read it, nothing else of the
// data folder.
const OutputFolder = "output"

// OutputDir is extension name's output folder (GEM_EXTENSION_OUTPUT).
func (e Env) OutputDir(name string) string { return filepath.Join(e.DataDir(name), OutputFolder) }

// DataDir is extension name's own data folder (GEM_EXTENSION_DATA).
func (e Env) DataDir(name string) string { return filepath.Join(e.DataRoot(), name) }

// OverlayDir keeps what extension name's servers and plugins wrote into its folder
// (sandbox.OverlayDirs): part of its data.
func (e Env) OverlayDir(name string) string { return filepath.Join(e.GemHome, "overlays", name) }

// DataRoot holds every extension's data folder.
func (e Env) DataRoot() string { return filepath.Join(e.GemHome, "data") }

// RunDir holds the plugins' socket folders.
func (e Env) RunDir() string { return filepath.Join(e.GemHome, "run") }

// ServeTokenDir holds gem mcp serve --http's bearer tokens.
func (e Env) ServeTokenDir() string { return filepath.Join(e.GemHome, "mcp-serve") }

// IndexFile is the discovery index of a root folder.
func (e Env) IndexFile(root string) string {
	return filepath.Join(e.GemHome, "cache", "discovery", PathKey(root))
}

// ToolCacheFile is the cached tool list of a plugin binary.
func (e Env) ToolCacheFile(bin string) string {
	return filepath.Join(e.GemHome, "cache", "tools", PathKey(bin)+".json")
}

// MCPToolCacheFile is the cached tool list of an MCP server, by a key of what decides it
// (host/tools: its command line, environment names, filters and binary).
func (e Env) MCPToolCacheFile(key string) string {
	return filepath.Join(e.GemHome, "cache", "mcp-tools", PathKey(key)+".json")
}

// BinHashFile records that a binary was verified, by its file identity.
func (e Env) BinHashFile(bin string) string {
	return filepath.Join(e.GemHome, "cache", "binhash", PathKey(bin))
}

// AuditLog is the log of policy decisions.
func (e Env) AuditLog() string { return filepath.Join(e.GemHome, "audit.log") }

// UserPolicies is the user's policy file.
func (e Env) UserPolicies() string { return filepath.Join(e.GemHome, "policies.toml") }

// SettingsFile is gem's own user settings file.
func (e Env) SettingsFile() string { return filepath.Join(e.GemHome, "settings.json") }

// PlansDir holds the plans of plan-mode turns, one file per session.
func (e Env) PlansDir() string { return filepath.Join(e.GemHome, "plans") }

// SessionsDir holds saved model sessions.
func (e Env) SessionsDir() string { return filepath.Join(e.GemHome, "sessions") }

// HistoryFile is the interactive shell's history.
func (e Env) HistoryFile() string { return filepath.Join(e.GemHome, "history") }

// TrustAskedFile lists the folders gem asked about trusting.
func (e Env) TrustAskedFile() string { return filepath.Join(e.GemHome, "trust-asked") }

// LockFile serialises lifecycle changes between gem processes.
func (e Env) LockFile() string { return filepath.Join(e.GemHome, "state.lock") }
