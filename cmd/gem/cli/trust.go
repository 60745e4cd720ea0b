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
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

type trustOptions struct {
	Folder string `arg:"[folder]" help:"one folder"`
	Parent bool   `flag:"parent" usage:"trust the folder's parent and everything below it"`
	Revoke bool   `flag:"revoke" usage:"stop trusting the folder"`
	List   bool   `flag:"list" usage:"list the trust rules"`
	jsonOutput
}

func trustCommand(f *Factory) *cli.Command {
	cmd := verb(f, "trust", "trust a folder: its project extensions, policies and commands may run (shared with Gemini CLI)", trust,
		"gem trust                 # trust the current folder",
		"gem trust --parent        # trust the current folder's parent and all below it",
		"gem trust --revoke        # stop trusting the current folder",
		"gem trust --list          # list the trust rules")
	cmd.Description = "In a folder you have not trusted, gem loads no project extensions (.gem/extensions,\n" +
		".gemini/extensions), no allow rules of .gem/policies.toml and no project prompt commands\n" +
		"that run shell commands. Trust is kept in ~/.gemini/trustedFolders.json, as Gemini CLI keeps it.\n\n" + cmd.Description
	return cmd
}

func trust(_ context.Context, s *session, o trustOptions) error {
	if o.List {
		return listTrust(s, o.JSON)
	}
	return setTrust(s, o)
}

func listTrust(s *session, asJSON bool) error {
	rules, err := registry.TrustRules(s.env)
	if err != nil {
		return err
	}
	return render(s, asJSON, rules, func() error {
		if len(rules) == 0 {
			fmt.Fprintln(s.stdout, "No trusted folders. Trust the current one with: gem trust")
		}
		for _, rule := range rules {
			fmt.Fprintf(s.stdout, "%s\t%s\n", rule.Level, rule.Path)
		}
		return nil
	})
}

func setTrust(s *session, opts trustOptions) error {
	dir := s.env.Cwd
	if opts.Folder != "" {
		abs, err := filepath.Abs(s.env.ExpandHome(opts.Folder))
		if err != nil {
			return err
		}
		dir = pathx.Real(abs) // trust is kept and decided by the folder a link leads to
	}
	if !opts.Revoke {
		if err := isFolder(dir); err != nil {
			return err
		}
		target := dir
		if opts.Parent {
			target = filepath.Dir(dir)
		}
		if reason := commands.TooWide(s.env, target); reason != "" {
			return &tooWideTrustError{Folder: target, Reason: reason}
		}
	}
	var err error
	switch {
	case opts.Revoke:
		err = registry.SetFolderTrust(s.env, dir, "")
		if err == nil && s.env.FolderTrusted(dir) { // still trusted through a parent's rule
			err = registry.SetFolderTrust(s.env, dir, registry.DoNotTrust)
		}
	case opts.Parent:
		err = registry.SetFolderTrust(s.env, dir, registry.TrustParent)
	default:
		err = registry.SetFolderTrust(s.env, dir, registry.TrustFolder)
	}
	if err != nil {
		return err
	}
	trusted, rule := s.env.FolderTrust(dir)
	return render(s, opts.JSON, map[string]any{"folder": dir, "trusted": trusted, "rule": rule}, func() error {
		if trusted {
			fmt.Fprintf(s.stdout, "%s is trusted (%s %s)\n", dir, rule.Level, rule.Path)
		} else {
			fmt.Fprintf(s.stdout, "%s is not trusted\n", dir)
		}
		return nil
	})
}

// isFolder says why dir cannot be trusted when it is not an existing folder (a typo would
// otherwise add a rule that trusts nothing, or a folder made later).
func isFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot trust %s: there is no such folder; check the path", dir)
	case err != nil:
		return fmt.Errorf("cannot trust %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot trust %s: it is a file; give the project's folder", dir)
	}
	return nil
}

// tooWideTrustError: trusting the root, the home folder or a folder that holds them would let
// every project below run its extensions, hooks and policies.
type tooWideTrustError struct{ Folder, Reason string }

func (e *tooWideTrustError) Error() string {
	return fmt.Sprintf("gem does not trust %s: it %s, and trusting it would trust every project below it; trust a project folder instead (gem trust in the project)", e.Folder, e.Reason)
}

// askConsent shows x's consent text (with the difference from what was agreed before) and
// records the agreement.
func askConsent(s *session, x *registry.Extension, ask prompt.Prompter, allow ...string) error {
	if x.Blocked == registry.BlockBadName {
		return errors.New(advice.Explain(x))
	}
	needs := commands.Needs(s.env, x)
	needs.Roots = registry.ManifestRoots(s.env, x, "", "")
	if err := registry.Admit(s.env, x.Name, &needs, x.Dir, x, allow); err != nil {
		return err
	}
	text := install.InPlaceConsentText(x, s.env, needs)
	if state, _ := x.Consented(s.env); state == registry.ConsentChanged {
		text += "Its manifest changed since you agreed to it:\n"
		if rec, err := registry.ReadReceipt(s.env, x.Dir); err == nil && rec != nil {
			current, _ := os.ReadFile(x.ManifestPath)
			added, removed := install.ManifestDiff(rec.Manifest, string(current))
			for _, l := range removed {
				text += "  - " + termsafe.Show(l, "") + "\n"
			}
			for _, l := range added {
				text += "  + " + termsafe.Show(l, "") + "\n"
			}
		}
	}
	if err := askConsentText(ask, text); err != nil {
		return err
	}
	return registry.RecordConsent(s.env, x, needs)
}

// discover finds the extensions of this folder for a verb that runs their programs, and
// says once, on stderr, what it skipped and how to allow it. On a terminal it asks: whether
// to trust an untrusted folder that has something to skip (the first time only), and
// whether to agree to each project extension not agreed to yet.
// warnDiscovery says d's warnings (an unreadable manifest or enablement file), each once per
// invocation, and returns d.
func (s *session) warnDiscovery(d *registry.Discovery) *registry.Discovery {
	for _, w := range d.Warnings {
		if !s.warned[w] {
			if s.warned == nil {
				s.warned = map[string]bool{}
			}
			s.warned[w] = true
			s.warn("%s", w)
		}
	}
	return d
}

func (s *session) discover() *registry.Discovery {
	d := s.warnDiscovery(registry.Discover(s.env, registry.Providers))
	if !s.noticed && s.io.Interactive() && s.askFirstUse(d) {
		d = registry.Discover(s.env, registry.Providers)
	}
	skipped := d.Skipped()
	if len(skipped) == 0 || s.noticed {
		s.noticed = true
		return d
	}
	s.noticed = true
	interactive := s.io.Interactive()
	var untrusted []string
	for _, x := range skipped {
		if x.Blocked == registry.BlockUntrusted {
			untrusted = append(untrusted, x.Name)
		}
	}
	if len(untrusted) > 0 && interactive && s.firstAsk(s.env.Cwd) {
		q := fmt.Sprintf("This folder (%s) is not trusted. Trusting it lets its project extensions (%s),\nits policies and its prompt commands run.\nTrust this folder?", s.env.Cwd, strings.Join(untrusted, ", "))
		choices := []prompt.Choice{{Key: "t", Label: "trust", Also: []string{"y", "yes"}}, {Key: "n", Label: "not now"}}
		if i, _ := s.stdinPrompter("", "").Choose(context.Background(), q, choices, 1); i == 0 {
			if err := registry.SetFolderTrust(s.env, s.env.Cwd, registry.TrustFolder); err != nil {
				s.warn("%s", errorText(err))
			}
			d = registry.Discover(s.env, registry.Providers)
			skipped = d.Skipped()
			untrusted = nil
		}
	}
	if interactive {
		asked := false
		for _, x := range skipped {
			if x.Blocked == registry.BlockUnconsented || x.Blocked == registry.BlockChanged {
				asked = true
				if err := askConsent(s, x, s.consentPrompter(false)); err != nil {
					s.warn("%s", errorText(err))
				}
			}
		}
		if asked {
			d = registry.Discover(s.env, registry.Providers)
			skipped = d.Skipped()
		}
	}
	if len(untrusted) > 0 {
		s.warn("this folder is not trusted, so its project extensions (%s), the allow rules of its .gem/policies.toml and its prompt commands that run shell commands are skipped; gem trust trusts it", strings.Join(untrusted, ", "))
	}
	for _, x := range skipped {
		if x.Blocked != registry.BlockUntrusted {
			s.warn("%s", advice.Explain(x))
		}
	}
	return d
}

// firstAsk reports whether gem has not asked about trusting dir before, and remembers that
// it now has ($GEM_HOME/trust-asked, one folder a line).
func (s *session) firstAsk(dir string) bool { return registry.FirstAsk(s.env.TrustAskedFile(), dir) }

// askWorkspace asks, on a terminal and once per program of an extension (the question is
// remembered in $GEM_HOME/workspace-asked, whatever the answer, by the extension's identity), whether a user extension's
// program with a shell-like tool may change files in the project (tools.WorkspaceNeed). Yes
// is recorded as the user's grant, bound to the extension, as gem ext grant --workspace
// would; it reports whether it was.
func (s *session) askWorkspace(n tools.WorkspaceNeed) bool {
	x := n.Extension
	if !registry.FirstWorkspaceAsk(s.env, x, n.Program) {
		return false
	}
	// Every name in it is the extension's or its server's: the whole text is sanitised.
	q := termsafe.Text(fmt.Sprintf("%s runs commands (its %s has the tool %s), but it may not change files in your project,\nso a command that writes there (a build, npm install) fails. Let %s's programs change files in\nyour projects and commit to git? (git's config and hooks, agent and editor settings stay closed; gem ext grant %s --revoke takes it back)",
		x.Name, n.Program, n.Tool, x.Name, x.Name))
	choices := []prompt.Choice{{Key: "y", Label: "allow", Also: []string{"yes"}}, {Key: "n", Label: "not now", Also: []string{"no"}}}
	if i, _ := s.ttyPrompter("", "").Choose(context.Background(), q, choices, 1); i != 0 {
		s.warn("%s may not change your project; to allow it later: gem ext grant %s --workspace", x.Name, x.Name)
		return false
	}
	g, _, err := registry.GrantFor(s.env, x)
	if err != nil {
		s.warn("%s", errorText(err))
		return false
	}
	g.Workspace, g.For = true, registry.TargetOf(x)
	if err := registry.SetGrant(s.env, x.Name, g); err != nil {
		s.warn("%s", errorText(err))
		return false
	}
	return true
}

// askFirstUse asks, on a terminal, about each enabled user extension never agreed to in gem
// (installed by Gemini CLI) whose programs need something (a launcher's network or caches,
// a toolchain): once, since the answer yes is recorded (a no is asked again next time). It
// reports whether it recorded anything.
func (s *session) askFirstUse(d *registry.Discovery) bool {
	asked := false
	for _, x := range d.Effective() {
		if !x.Active() || x.Level != registry.LevelUser {
			continue
		}
		if state, _ := x.Consented(s.env); state != registry.ConsentNone {
			continue
		}
		if n := commands.Needs(s.env, x); !n.Network && !n.Workspace && len(n.Read) == 0 && len(n.Write) == 0 {
			continue
		}
		if err := askConsent(s, x, s.consentPrompter(false)); err != nil {
			s.warn("%s", errorText(err))
			continue
		}
		asked = true
	}
	return asked
}
