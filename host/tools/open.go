package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/policy"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// CatalogConfig is what opening the tool catalog of a session takes: every front (the CLI's
// verbs, gem -p, the shell, gem mcp serve, the SDK, gem acp) opens it this way.
type CatalogConfig struct {
	Env       registry.Env
	Discovery *registry.Discovery
	Settings  *settings.Settings // nil: none
	Environ   []string           // the programs' environment (nil: none)
	// ApprovalMode is the policy's mode: default, auto_edit, yolo or plan ("": default).
	ApprovalMode string
	Services     *Services
	CallTimeout  time.Duration
	ReadSecrets  registry.SecretReader
	Logger       hclog.Logger
	// CoreWorkspace, for the model side, adds the core file tools confined to it.
	CoreWorkspace string
	// Buffers gives the core tools a file's text as an editor has it (Options.Buffers).
	Buffers func(path string) (string, bool)
	// Warn hears what was skipped while loading (a policy file's problem, a plugin that did
	// not start); nil: not told.
	Warn func(error)
	// AskWorkspace is asked about a program with a shell-like tool that may not change the
	// project (Options.AskWorkspace); nil: nobody is asked.
	AskWorkspace func(WorkspaceNeed) bool
	// Launcher is the session's (host/launch), which prepares and starts its programs; nil:
	// the catalog makes one (Options.Launcher).
	Launcher *launch.Launcher
}

// ApprovalModeError is an approval mode gem does not know, or one the settings disable.
type ApprovalModeError struct {
	Mode string
	Err  error
}

func (e *ApprovalModeError) Error() string { return e.Err.Error() }
func (e *ApprovalModeError) Unwrap() error { return e.Err }

// OpenCatalog loads the tools of the enabled extensions (and the core tools with
// CoreWorkspace) under the session's policy.
func OpenCatalog(ctx context.Context, c CatalogConfig) (*Catalog, error) {
	warn := c.Warn
	if warn == nil {
		warn = func(error) {}
	}
	if c.Launcher == nil {
		c.Launcher = launch.New(launch.Options{Env: c.Env, Environ: c.Environ, ReadSecrets: c.ReadSecrets})
	}
	engine, err := loadPolicy(c.Env, c.Launcher.Workspace(), c.Discovery, c.Settings, c.ApprovalMode, warn)
	if err != nil {
		return nil, err
	}
	sets := c.Settings
	if sets == nil {
		sets = &settings.Settings{}
	}
	opts := Options{ReadSecrets: c.ReadSecrets, Logger: c.Logger, Services: c.Services, Policy: engine,
		Audit: &policy.Audit{File: c.Env.AuditLog()}, CallTimeout: c.CallTimeout, Environ: c.Environ, Settings: sets, CoreWorkspace: c.CoreWorkspace, Buffers: c.Buffers, AskWorkspace: c.AskWorkspace, Launcher: c.Launcher}
	if allow := c.Env.Getenv("GEM_WEB_FETCH_ALLOW"); allow != "" && c.CoreWorkspace != "" {
		if opts.WebFetchAllow, err = ParseAllow(allow); err != nil {
			warn(fmt.Errorf("%w (fix it; no private address is allowed meanwhile)", err))
		}
	}
	reg, errs := Load(ctx, c.Env, c.Discovery, opts)
	for _, e := range errs {
		warn(e)
	}
	return reg, nil
}

// ApprovalMode is the policy's mode an approval mode names ("": the settings' general.defaultApprovalMode, else default), under the
// settings' rule: never yolo where security.disableYoloMode is set (an untrusted folder's
// yolo acts as default: the policy engine's rule). The one check of a mode, for
// --approval-mode, the SDK's Options.ApprovalMode and Agent.SetApprovalMode, and gem acp's
// modes; a mode refused is an *ApprovalModeError.
func ApprovalMode(approvalMode string, sets *settings.Settings) (policy.Mode, error) {
	if approvalMode == "" && sets != nil {
		approvalMode = sets.ApprovalMode // general.defaultApprovalMode: the flag wins
	}
	if approvalMode == "" {
		return policy.ModeDefault, nil
	}
	mode, err := policy.ParseMode(approvalMode)
	if err != nil {
		return "", &ApprovalModeError{Mode: approvalMode, Err: err}
	}
	if mode == policy.ModeYolo && sets != nil && sets.NoYolo {
		return "", &ApprovalModeError{Mode: approvalMode, Err: fmt.Errorf("yolo is disabled by security.disableYoloMode in %s: use default or auto_edit", sets.Origin["security.disableYoloMode"])}
	}
	return mode, nil
}

// Unattended is the rule of every front for running the model's calls unasked (yolo,
// --yes, an ACP client's yolo mode): only where the workspace (the session launcher's: the
// project's git root, real path) is a trusted folder (Gemini CLI's trustedFolders.json, gem
// trust) — elsewhere, a cloned repository say, the project's files could lead the model to
// anything. The policy engine asks as in default mode where it is not; fronts say so in
// their own words.
func Unattended(env registry.Env, workspace string) bool { return env.FolderTrusted(workspace) }

// loadPolicy builds the policy engine of a session: the user's, the workspace's and the
// enabled extensions' policy files, in the approval mode (yolo only in a trusted folder,
// and never when the settings disable it).
func loadPolicy(env registry.Env, root string, d *registry.Discovery, sets *settings.Settings, approvalMode string, warn func(error)) (*policy.Engine, error) {
	if sets == nil {
		sets = &settings.Settings{}
	}
	mode, err := ApprovalMode(approvalMode, sets)
	if err != nil {
		return nil, err
	}
	src := policy.Sources{
		UserFile:            env.UserPolicies(),
		WorkspaceFile:       paths.Workspace(root).GemPolicies(),
		GeminiUserDir:       env.GeminiPoliciesDir(),
		GeminiWorkspaceFile: paths.Workspace(root).GeminiPolicies(),
		Extensions:          map[string]string{},
	}
	src.Exclusions = map[string][]string{"settings": sets.ExcludeTools}
	src.Allowed, src.AllowedTier = sets.AllowedTools, policy.TierUser
	if sets.FromWorkspace("tools.allowed") {
		src.AllowedTier = policy.TierWorkspace
	}
	for _, x := range d.Effective() {
		if x.Active() {
			src.Extensions[x.Name] = x.Path
			src.Exclusions[x.Name] = x.Manifest().ExcludeTools
		}
	}
	trusted := Unattended(env, root) // root: the workspace, whose policy files are read
	if mode == policy.ModeYolo && !trusted {
		warn(fmt.Errorf("--approval-mode yolo applies only in a trusted folder (Gemini CLI's trustedFolders.json); %s is not, so gem asks as in default mode", root))
	}
	engine, warnings, err := policy.Load(src, mode, trusted)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	for _, w := range warnings {
		warn(errors.New("policy: " + w))
	}
	return engine, nil
}
