package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

func trustCommand() *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "trust a folder: its project extensions, policies and commands may run (shared with Gemini CLI)",
		ArgsUsage: "[folder]",
		Description: "In a folder you have not trusted, gem loads no project extensions (.gem/extensions,\n" +
			".gemini/extensions), no allow rules of .gem/policies.toml and no project prompt commands\n" +
			"that run shell commands. Trust is kept in ~/.gemini/trustedFolders.json, as Gemini CLI keeps it.\n\n" +
			"EXAMPLES\n" +
			"  gem trust                 # trust the current folder\n" +
			"  gem trust --parent        # trust the current folder's parent and all below it\n" +
			"  gem trust --revoke        # stop trusting the current folder\n" +
			"  gem trust --list          # list the trust rules",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "parent", Usage: "trust the folder's parent and everything below it"},
			&cli.BoolFlag{Name: "revoke", Usage: "stop trusting the folder"},
			&cli.BoolFlag{Name: "list", Usage: "list the trust rules"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("gem trust takes at most one folder (got %d arguments)", c.NArg())
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			if c.Bool("list") {
				rules, err := registry.TrustRules(r.env)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return printJSON(r, rules)
				}
				if len(rules) == 0 {
					fmt.Fprintln(r.stdout, "No trusted folders. Trust the current one with: gem trust")
				}
				for _, rule := range rules {
					fmt.Fprintf(r.stdout, "%s\t%s\n", rule.Level, rule.Path)
				}
				return nil
			}
			dir := r.env.Cwd
			if c.NArg() == 1 {
				if dir, err = filepath.Abs(r.env.ExpandHome(c.Args().First())); err != nil {
					return err
				}
			}
			switch {
			case c.Bool("revoke"):
				if err := registry.SetFolderTrust(r.env, dir, ""); err != nil {
					return err
				}
				if r.env.FolderTrusted(dir) { // still trusted through a parent's rule
					if err := registry.SetFolderTrust(r.env, dir, registry.DoNotTrust); err != nil {
						return err
					}
				}
			case c.Bool("parent"):
				err = registry.SetFolderTrust(r.env, dir, registry.TrustParent)
			default:
				err = registry.SetFolderTrust(r.env, dir, registry.TrustFolder)
			}
			if err != nil {
				return err
			}
			trusted, rule := r.env.FolderTrust(dir)
			if c.Bool("json") {
				return printJSON(r, map[string]any{"folder": dir, "trusted": trusted, "rule": rule})
			}
			if trusted {
				fmt.Fprintf(r.stdout, "%s is trusted (%s %s)\n", dir, rule.Level, rule.Path)
			} else {
				fmt.Fprintf(r.stdout, "%s is not trusted\n", dir)
			}
			return nil
		},
	}
}

func extConsentCommand() *cli.Command {
	return &cli.Command{
		Name:      "consent",
		Usage:     "agree to an extension found here (a project extension, or one installed by Gemini CLI)",
		ArgsUsage: "<name|folder>",
		Description: "Shows what the extension brings and asks you to agree, as install does; gem then runs its\n" +
			"programs with the permissions of the manifest you agreed to. When the manifest changed since,\n" +
			"the difference is shown.\n\n" +
			"EXAMPLES\n" +
			"  gem ext consent ./.gemini/extensions/review\n" +
			"  gem ext consent review --consent",
		Flags: []cli.Flag{consentFlag, &cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "an extension name or folder"); err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			x, err := findForConsent(r, c.Args().First())
			if err != nil {
				return err
			}
			if err := askConsent(r, x, consentAsker(r, c.Bool("consent"))); err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(r, map[string]any{"name": x.Name, "path": x.Dir, "consent": registry.ConsentGiven})
			}
			fmt.Fprintf(r.stdout, "Agreed to extension %q in %s.\n", x.Name, x.Dir)
			if x.Level == registry.LevelProject && !r.env.FolderTrusted(r.env.Cwd) {
				fmt.Fprintf(r.stdout, "This folder is not trusted, so it does not run yet: gem trust\n")
			}
			return nil
		},
	}
}

// findForConsent finds an extension by folder (any discovered one, blocked or shadowed
// included) or by name.
func findForConsent(r *runtime, arg string) (*registry.Extension, error) {
	d := registry.Discover(r.env, registry.Providers)
	if abs, err := filepath.Abs(arg); err == nil {
		for _, x := range d.All {
			if x.Dir == abs || x.Path == abs {
				return x, nil
			}
		}
	}
	for _, x := range d.All {
		if x.Name == arg && !x.Shadowed {
			return x, nil
		}
	}
	return nil, fmt.Errorf("no extension named or found in %q here; gem ext list --all shows what gem finds", arg)
}

// askConsent shows x's consent text (with the difference from what was agreed before) and
// records the agreement.
func askConsent(r *runtime, x *registry.Extension, ask install.Asker) error {
	if x.Blocked == registry.BlockBadName {
		return fmt.Errorf("%s", x.Explain())
	}
	needs := commands.Needs(r.env, x)
	text := install.ConsentText(x, "Running", x.Dir, x.Dir, r.env, needs)
	if state, _ := x.Consented(r.env); state == registry.ConsentChanged {
		text += "Its manifest changed since you agreed to it:\n"
		if rec, err := registry.ReadConsent(r.env, x); err == nil && rec != nil {
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
	ok, err := ask(text)
	if err != nil {
		return err
	}
	if !ok {
		return install.ErrDeclined
	}
	return registry.RecordConsent(r.env, x, needs)
}

// discover finds the extensions of this folder for a verb that runs their programs, and
// says once, on stderr, what it skipped and how to allow it. On a terminal it asks: whether
// to trust an untrusted folder that has something to skip (the first time only), and
// whether to agree to each project extension not agreed to yet.
func (r *runtime) discover() *registry.Discovery {
	d := registry.Discover(r.env, registry.Providers)
	if !r.noticed && isTerminal(os.Stdin) && isTerminal(os.Stderr) && r.askFirstUse(d) {
		d = registry.Discover(r.env, registry.Providers)
	}
	skipped := d.Skipped()
	if len(skipped) == 0 || r.noticed {
		r.noticed = true
		return d
	}
	r.noticed = true
	interactive := isTerminal(os.Stdin) && isTerminal(os.Stderr)
	var untrusted []string
	for _, x := range skipped {
		if x.Blocked == registry.BlockUntrusted {
			untrusted = append(untrusted, x.Name)
		}
	}
	if len(untrusted) > 0 && interactive && r.firstAsk(r.env.Cwd) {
		fmt.Fprintf(r.stderr, "This folder (%s) is not trusted. Trusting it lets its project extensions (%s),\nits policies and its prompt commands run.\n", r.env.Cwd, strings.Join(untrusted, ", "))
		fmt.Fprint(r.stderr, "Trust this folder? [t]rust, [N]ot now: ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a == "t" || a == "trust" || a == "y" || a == "yes" {
			if err := registry.SetFolderTrust(r.env, r.env.Cwd, registry.TrustFolder); err != nil {
				r.warn("%v", err)
			}
			d = registry.Discover(r.env, registry.Providers)
			skipped = d.Skipped()
			untrusted = nil
		}
	}
	if interactive {
		asked := false
		for _, x := range skipped {
			if x.Blocked == registry.BlockUnconsented || x.Blocked == registry.BlockChanged {
				asked = true
				if err := askConsent(r, x, consentAsker(r, false)); err != nil {
					r.warn("%v", err)
				}
			}
		}
		if asked {
			d = registry.Discover(r.env, registry.Providers)
			skipped = d.Skipped()
		}
	}
	if len(untrusted) > 0 {
		r.warn("this folder is not trusted, so its project extensions (%s), the allow rules of its .gem/policies.toml and its prompt commands that run shell commands are skipped; gem trust trusts it", strings.Join(untrusted, ", "))
	}
	for _, x := range skipped {
		if x.Blocked != registry.BlockUntrusted {
			r.warn("%s", x.Explain())
		}
	}
	return d
}

// firstAsk reports whether gem has not asked about trusting dir before, and remembers that
// it now has ($GEM_HOME/trust-asked, one folder a line).
func (r *runtime) firstAsk(dir string) bool {
	file := r.env.TrustAskedFile()
	data, _ := os.ReadFile(file)
	if slices.Contains(strings.Split(string(data), "\n"), dir) {
		return false
	}
	if os.MkdirAll(r.env.GemHome, 0o700) == nil {
		if f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			fmt.Fprintln(f, dir)
			f.Close()
		}
	}
	return true
}

// askFirstUse asks, on a terminal, about each enabled user extension never agreed to in gem
// (installed by Gemini CLI) whose programs need something (a launcher's network or caches,
// a toolchain): once, since the answer yes is recorded (a no is asked again next time). It
// reports whether it recorded anything.
func (r *runtime) askFirstUse(d *registry.Discovery) bool {
	asked := false
	for _, x := range d.Effective() {
		if !x.Active() || x.Level != registry.LevelUser {
			continue
		}
		if state, _ := x.Consented(r.env); state != registry.ConsentNone {
			continue
		}
		if n := commands.Needs(r.env, x); !n.Network && len(n.Read) == 0 && len(n.Write) == 0 {
			continue
		}
		if err := askConsent(r, x, consentAsker(r, false)); err != nil {
			r.warn("%v", err)
			continue
		}
		asked = true
	}
	return asked
}
