package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/toolchain/payload"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/buildinfo"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
	"github.com/gemhost/gem/registry/lockfile"
	"github.com/gemhost/gem/registry/mcpregistry"
	"github.com/gemhost/gem/registry/signature"
)

// newFetcher is gem's sources: folders, archives, git, GitHub and the known marketplaces.
func newFetcher(s *session) *install.Fetcher {
	f := &install.Fetcher{
		GitHubAPI: s.env.Getenv("GEM_GITHUB_API_URL"),
		Token:     s.env.Getenv("GITHUB_TOKEN"),
		Getenv:    s.env.Getenv,
		Home:      s.env.Home,
		Environ:   s.environ,
		Progress:  s.io.Progress(),
	}
	f.Marketplaces = &install.Marketplaces{Paths: s.env.Layout, Fetcher: f}
	f.MCPRegistry = &mcpregistry.Client{BaseURL: s.env.Getenv("GEM_MCP_REGISTRY_URL")}
	return f
}

func newInstaller(s *session, consent bool) *install.Installer {
	var policy *install.SourcePolicy
	if sets := s.settings(); len(sets.AllowedExtensions) > 0 || sets.BlockGitExtensions {
		origin := sets.Origin["security.allowedExtensions"]
		if sets.BlockGitExtensions {
			origin = sets.Origin["security.blockGitExtensions"]
		}
		policy = &install.SourcePolicy{Allowed: sets.AllowedExtensions, BlockGit: sets.BlockGitExtensions, Origin: origin}
	}
	sets := s.settings()
	signatures := &install.Signatures{
		Require:       sets.RequireSignatures,
		RequireOrigin: sets.Origin["security.requireSignatures"],
		Load: func() (*signature.Verifier, error) {
			return signature.Load(sets.SigstoreTrustedRoot, s.env.SigstoreCacheDir())
		},
	}
	for _, t := range sets.TrustedSigners {
		signatures.Signers = append(signatures.Signers, install.TrustedSigner{Source: t.Source, Policy: signature.Policy{
			Issuer: t.Issuer, Identity: t.Identity, IdentityRegexp: t.IdentityRegexp, Origin: "security.trustedSigners in " + t.Origin,
		}})
	}
	var mirrors []install.Mirror
	if m := s.env.Getenv("GEM_MIRROR"); m != "" {
		if !strings.Contains(m, "://") {
			m, _ = filepath.Abs(m)
		}
		mirrors = append(mirrors, install.Mirror{Location: m, Origin: "GEM_MIRROR"})
	}
	for _, m := range sets.Mirrors {
		mirrors = append(mirrors, install.Mirror{Location: m.Location, Include: m.Include, Exclude: m.Exclude, Origin: "extensions.mirrors in " + m.Origin})
	}
	return &install.Installer{
		Policy:     policy,
		Signatures: signatures,
		Mirrors:    mirrors,
		Env:        s.env,
		Prompt:     s.consentPrompter(consent),
		GemVersion: buildinfo.Version,
		Out:        s.stderr,
		Needs:      func(x *registry.Extension) registry.Grant { return commands.Needs(s.env, x) },
		Check:      func(x *registry.Extension) manifest.Problems { return binaryProblems(s, x) },
		Sources:    newFetcher(s),
		Payloads: func(ctx context.Context, x *registry.Extension, locked *lockfile.Entry, held []lockfile.Payload) ([]lockfile.Payload, error) {
			return payload.Payloads(ctx, s.environ, x, locked, held, func(msg string) { s.warn("%s", msg) })
		},
		Carrier: payload.Carrier{Environ: s.environ, Root: s.env.PayloadRoot()},
		CrashAt: s.env.Getenv("GEM_TEST_CRASH_AT"),
	}
}

// signerFlags say who must have signed what is installed (gh attestation verify's names).
type signerFlags struct {
	CertIdentity      string `flag:"cert-identity" usage:"require a Sigstore signature whose certificate names exactly this identity (a workflow URI, an e-mail)"`
	CertIdentityRegex string `flag:"cert-identity-regex" usage:"require a Sigstore signature whose identity matches this regular expression"`
	CertOIDCIssuer    string `flag:"cert-oidc-issuer" usage:"the identity's OIDC issuer (default GitHub Actions', https://token.actions.githubusercontent.com)"`
	Bundle            string `flag:"bundle" usage:"a Sigstore bundle file to verify the archive with, instead of the one published beside it"`
}

// policy is the signer policy the flags give (nil: none).
func (f signerFlags) policy() (*signature.Policy, error) {
	if f.CertIdentity == "" && f.CertIdentityRegex == "" {
		if f.CertOIDCIssuer != "" {
			return nil, usagef("--cert-oidc-issuer needs --cert-identity or --cert-identity-regex")
		}
		return nil, nil
	}
	p := &signature.Policy{Issuer: f.CertOIDCIssuer, Identity: f.CertIdentity, IdentityRegexp: f.CertIdentityRegex, Origin: "the command line"}
	if p.Issuer == "" {
		p.Issuer = signature.GitHubActionsIssuer
	}
	if err := p.Check(); err != nil {
		return nil, usagef("%v", err)
	}
	return p, nil
}

func scopeLevel(scope string) (registry.Level, error) {
	switch scope {
	case "", "user":
		return registry.LevelUser, nil
	case "project":
		return registry.LevelProject, nil
	default:
		return "", usagef("--scope %q: use user or project", scope)
	}
}

type extInstallOptions struct {
	Source       string `arg:"<source>" help:"a source"`
	SkipSettings bool   `flag:"skip-settings" usage:"do not ask for the extension's settings now (gem ext config sets them later)"`
	Ref          string `flag:"ref" usage:"git branch, tag or commit; GitHub release tag"`
	AutoUpdate   bool   `flag:"auto-update" usage:"record that this extension updates automatically"`
	PreRelease   bool   `flag:"pre-release" usage:"allow GitHub pre-releases"`
	Prefetch     bool   `flag:"prefetch" usage:"start its npx/uvx servers now, so they download what they run before the first request (asked on a terminal)"`
	Locked       bool   `flag:"locked" usage:"install exactly what the scope's gem.lock pins for this source (the user's; ./gem.lock with --scope project), failing on any difference"`
	Path         string `flag:"path" usage:"a subfolder of the git repository to install (a monorepo; also owner/repo//path@ref)"`
	Qualified    bool   `flag:"qualified" usage:"install a marketplace's plugin as plugin@marketplace, beside an installed extension of its name"`
	signerFlags
	placement
	jsonOutput
}

func extInstallCommand(f *Factory) *cli.Command {
	return verb(f, "install", "install an extension from a folder, git URL, GitHub owner/repo, archive or plugin@marketplace", extInstall,
		"gem ext install https://github.com/owner/repo", "gem ext install owner/repo --ref v1.2.0", "gem ext install ./my-ext.tar.gz --consent",
		"gem ext install formatter@acme-tools (a plugin of a marketplace: gem marketplace add)",
		"gem ext install formatter@other-tools --qualified (beside another formatter: named formatter@other-tools)",
		"gem ext install ./my-ext --consent --prefetch", "gem ext install owner/repo --locked (as the user's gem.lock pins it)",
		"gem ext install owner/repo --locked --scope project (as ./gem.lock pins it)",
		"gem ext install acme/extensions//tools/lint@v2 (one folder of a monorepo)",
		"gem ext install owner/repo --cert-identity-regex '^https://github.com/owner/repo/' (its release must be signed by the repository's workflows)")
}

func extInstall(ctx context.Context, s *session, o extInstallOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	signer, err := o.signerFlags.policy()
	if err != nil {
		return err
	}
	if strings.HasSuffix(o.Source, ".tar") {
		if fi, err := os.Stat(o.Source); err == nil && !fi.IsDir() {
			return installBundle(ctx, s, o, scope)
		}
	}
	allow, err := allowed(s, o.Allow)
	if err != nil {
		return err
	}
	res, err := newInstaller(s, o.Consent).Install(ctx, o.Source, install.Options{
		Ref: o.Ref, Scope: scope, AutoUpdate: o.AutoUpdate, PreRelease: o.PreRelease, Force: o.Force, Strict: o.Locked, Path: o.Path,
		Signer: signer, Bundle: o.Bundle, Qualified: o.Qualified, Allow: allow,
	})
	if err != nil {
		s.log.Error("install failed", "source", install.WithoutPassword(o.Source), "error", err)
		return err
	}
	return installed(ctx, s, res, o)
}

// installed reports an install, asks the extension's settings and prefetches its servers
// (gem ext install, gem mcp install).
func installed(ctx context.Context, s *session, res *install.Result, o extInstallOptions) error {
	s.log.Info("installed", "name", res.Name, "version", res.Version, "source", res.Install.Source)
	for _, p := range res.Problems {
		p.Severity = manifest.Warning // an error that did not stop the install: --force
		s.problem(p)
	}
	err := render(s, o.JSON, res, func() error {
		_, err := fmt.Fprintf(s.stdout, "Extension %q %s installed in %s (%s).\n", res.Name, termsafe.Text(res.Version), res.Path, effectHere(s, res.Path))
		return err
	})
	if err == nil && !o.JSON {
		askSettings(s, res.Name, o.SkipSettings)
	}
	if err == nil {
		err = prefetch(ctx, s, res.Name, o.Prefetch)
	}
	return err
}

// prefetch starts the just-installed extension's servers whose launcher downloads what it
// runs (npx, uvx …): with --prefetch, or when the user agrees on a terminal; without a
// terminal it only says how. The download then happens now, with progress, and the first
// request does not wait for it. A server that fails is an error: the install stays.
func prefetch(ctx context.Context, s *session, name string, yes bool) error {
	reg, err := s.openTools(ctx, &tools.Services{Waiting: s.io.Progress(), Logger: s.log}, callFlags{})
	if err != nil {
		return err
	}
	defer reg.Close()
	fetching := reg.Fetching(name)
	if len(fetching) == 0 {
		return nil
	}
	if !yes {
		if !s.io.IsStdinTTY() {
			fmt.Fprintf(s.stderr, "%s's servers %s download what they run at their first start: gem ext install --prefetch fetches it at install\n", name, termsafe.Text(strings.Join(fetching, ", ")))
			return nil
		}
		if ok, err := s.askYesNo(fmt.Sprintf("%s's servers %s download what they run at their first start. Fetch it now?", name, termsafe.Text(strings.Join(fetching, ", "))), true, "--prefetch"); err != nil || !ok {
			return err
		}
	}
	started, errs := reg.Prefetch(ctx, name)
	if len(errs) > 0 {
		for _, e := range errs {
			s.warn("%s", errorText(e))
		}
		return exitError{code: 1, msg: fmt.Sprintf("%s is installed, but %d of its %d servers did not start (gem mcp list shows why)", name, len(errs), len(started))}
	}
	fmt.Fprintf(s.stderr, "Fetched what %s's servers %s run: they are ready.\n", name, termsafe.Text(strings.Join(started, ", ")))
	return nil
}

// effectHere says whether the extension just placed in dir is in effect in this folder: a
// user extension of the same name wins over a project one, a project extension of an
// untrusted folder waits for trust, a disable rule may apply.
func effectHere(s *session, dir string) string {
	d := registry.Discover(s.env, registry.Providers)
	for _, x := range d.All {
		if x.Dir != dir {
			continue
		}
		switch {
		case x.Shadowed && x.ShadowedBy != nil:
			return fmt.Sprintf("not in effect here: %s %s in %s takes precedence", x.ShadowedBy.Level, x.ShadowedBy.Name, registry.Tilde(s.env.Home, x.ShadowedBy.Dir))
		case x.Blocked != registry.BlockNone:
			return "not in effect here: " + advice.Explain(x)
		case !x.Enabled:
			return "disabled here by " + x.EnabledBy
		}
		return "enabled"
	}
	return "enabled"
}

type extUninstallOptions struct {
	Targets  []string `arg:"[name|source]..."`
	All      bool     `flag:"all" usage:"remove every installed extension (asked on a terminal; --yes elsewhere)"`
	KeepData bool     `flag:"keep-data" usage:"keep the extensions' data folders ($GEM_HOME/data/<name>)"`
	Yes      bool     `flag:"yes,y" usage:"do not ask before removing every extension"`
	jsonOutput
}

func extUninstallCommand(f *Factory) *cli.Command {
	return verb(f, "uninstall", "remove extensions by name or by the source they were installed from, with their data folders and the previous version an update kept", extUninstall,
		"gem ext uninstall hello", "gem ext uninstall hello --keep-data", "gem ext uninstall --all --yes")
}

func extUninstall(_ context.Context, s *session, o extUninstallOptions) error {
	if len(o.Targets) == 0 && !o.All {
		return usagef("uninstall needs extension names or sources, or --all")
	}
	in := newInstaller(s, false)
	if o.All {
		o.Targets = in.All()
		if len(o.Targets) > 0 && !o.Yes {
			if !s.io.IsStdinTTY() {
				return usagef("uninstall --all removes %s, %s: add --yes to confirm", plural.Count(len(o.Targets), "extension"), strings.Join(o.Targets, ", "))
			}
			what := "and their data"
			if o.KeepData {
				what = "(their data kept)"
			}
			ok, err := s.askYesNo(fmt.Sprintf("Remove all %d extensions (%s) %s?", len(o.Targets), strings.Join(o.Targets, ", "), what), false, "--yes")
			if err != nil {
				return err
			}
			if !ok {
				return errors.New("cancelled: nothing was removed")
			}
		}
	}
	removed, err := in.Uninstall(o.Targets, install.UninstallOptions{KeepData: o.KeepData})
	if o.JSON && (len(removed) > 0 || err == nil) {
		if jerr := printJSON(s, orEmpty(removed)); jerr != nil {
			return jerr
		}
		return err
	}
	for _, r := range removed {
		fmt.Fprintf(s.stdout, "Extension %q uninstalled (%s scope: %s).\n", r.Name, r.Scope, registry.Tilde(s.env.Home, r.Dir))
		for _, d := range r.Deleted {
			fmt.Fprintf(s.stdout, "  removed %s\n", registry.Tilde(s.env.Home, d))
		}
		for _, k := range r.Kept {
			fmt.Fprintf(s.stdout, "  kept %s (--keep-data)\n", registry.Tilde(s.env.Home, k))
		}
	}
	return err
}

type enableOptions struct {
	Name   string `arg:"<name>" help:"an extension name"`
	Scope  string `flag:"scope" usage:"user or workspace"`
	Enable bool
	jsonOutput
}

func extEnableCommand(f *Factory, enable bool) *cli.Command {
	name, usage := "enable", "enable an extension (without --scope: everywhere, removing disables that apply here)"
	if !enable {
		name, usage = "disable", "disable an extension (default scope: user)"
	}
	run := func(ctx context.Context, s *session, o enableOptions) error {
		o.Enable = enable
		return extEnable(ctx, s, o)
	}
	return verb(f, name, usage, run, "gem ext "+name+" hello", "gem ext "+name+" hello --scope workspace")
}

func extEnable(_ context.Context, s *session, o enableOptions) error {
	if o.Scope != "" && o.Scope != "user" && o.Scope != "workspace" {
		return usagef("--scope %q: use user or workspace", o.Scope)
	}
	where, err := newInstaller(s, false).SetEnabled(o.Name, o.Scope, o.Enable)
	if err != nil {
		return err
	}
	verb := "enabled"
	if !o.Enable {
		verb = "disabled"
	}
	return render(s, o.JSON, map[string]any{"name": o.Name, "enabled": o.Enable, "where": where}, func() error {
		_, err := fmt.Fprintf(s.stdout, "Extension %q %s %s.\n", o.Name, verb, where)
		return err
	})
}

type extLinkOptions struct {
	Path string `arg:"<path>" help:"the extension folder"`
	placement
	jsonOutput
}

func extLinkCommand(f *Factory) *cli.Command {
	return verb(f, "link", "install a folder by reference: changes in the folder take effect at once", extLink,
		"gem ext link ./my-ext", "gem ext link ./my-ext --scope project --consent")
}

func extLink(_ context.Context, s *session, o extLinkOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	allow, err := allowed(s, o.Allow)
	if err != nil {
		return err
	}
	res, err := newInstaller(s, o.Consent).Link(o.Path, install.Options{Scope: scope, Force: o.Force, Allow: allow})
	if err != nil {
		return err
	}
	return render(s, o.JSON, res, func() error {
		_, err := fmt.Fprintf(s.stdout, "Extension %q linked to %s.\n", res.Name, res.Path)
		return err
	})
}

type extVerifyOptions struct {
	Name string `arg:"<name>" help:"an extension name"`
	jsonOutput
}

func extVerifyCommand(f *Factory) *cli.Command {
	return verb(f, "verify", "check that an installed extension's files still match the hashes recorded at install", extVerify,
		"gem ext verify hello", "gem ext verify hello --json")
}

func extVerify(_ context.Context, s *session, o extVerifyOptions) error {
	changed, missing, added, err := install.Verify(s.env, o.Name)
	if err != nil {
		return err
	}
	ok := len(changed)+len(missing)+len(added) == 0
	doc := map[string]any{"name": o.Name, "ok": ok, "changed": orEmpty(changed), "missing": orEmpty(missing), "added": orEmpty(added)}
	err = render(s, o.JSON, doc, func() error {
		for _, group := range []struct {
			label string
			files []string
		}{{"changed:", changed}, {"missing:", missing}, {"added:  ", added}} {
			for _, f := range group.files {
				fmt.Fprintln(s.stdout, group.label, f)
			}
		}
		if ok {
			fmt.Fprintf(s.stdout, "Extension %q matches its install record.\n", o.Name)
		}
		return nil
	})
	if err == nil && !ok {
		return exitError{code: 1, msg: fmt.Sprintf("extension %q differs from what was installed; reinstall it (gem ext install <source> --force) if you did not change it yourself", o.Name)}
	}
	return err
}
