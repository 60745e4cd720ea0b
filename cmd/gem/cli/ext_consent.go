package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

type extConsentOptions struct {
	Target  string   `arg:"<name|folder>" help:"an extension name or folder"`
	Consent bool     `flag:"consent" usage:"agree to the consent text without being asked (for scripts)"`
	Allow   []string `flag:"allow" usage:"grant by name a path its manifest asks for that leads to a secret of your home (~/.ssh, ~/.aws, another extension's folder) or writes what runs code later (~/.bashrc, ~/.local/bin), refused otherwise (repeat the flag)"`
	jsonOutput
}

func extConsentCommand(f *Factory) *cli.Command {
	cmd := verb(f, "consent", "agree to an extension found here (a project extension, or one installed by Gemini CLI)", extConsent,
		"gem ext consent ./.gemini/extensions/review", "gem ext consent review --consent")
	cmd.Description = "Shows what the extension brings and asks you to agree, as install does; gem then runs its\n" +
		"programs with the permissions of the manifest you agreed to. When the manifest changed since,\n" +
		"the difference is shown. A name that several extensions here share means the project's\n" +
		"(the one gem ext list shows); name a folder to agree to another.\n\n" + cmd.Description
	return cmd
}

func extConsent(_ context.Context, s *session, opts extConsentOptions) error {
	x, err := findForConsent(s, opts.Target)
	if err != nil {
		return err
	}
	allow, err := allowed(s, opts.Allow)
	if err != nil {
		return err
	}
	if err := askConsent(s, x, s.consentPrompter(opts.Consent), allow...); err != nil {
		return err
	}
	return render(s, opts.JSON, map[string]any{"name": x.Name, "path": x.Dir, "level": x.Level, "provider": x.Provider.ID, "consent": registry.ConsentGiven}, func() error {
		fmt.Fprintf(s.stdout, "Agreed to extension %q in %s.\n", x.Name, x.Dir)
		if x.Level == registry.LevelProject && !s.env.FolderTrusted(s.env.Cwd) {
			fmt.Fprintf(s.stdout, "This folder is not trusted, so it does not run yet: gem trust\n")
		} else if w := shadowedNow(s, x); w != nil {
			fmt.Fprintf(s.stdout, "It does not run here: %s of that name, in %s, comes first.\n", install.Which(w), w.Dir)
		}
		return nil
	})
}

// shadowedNow is the extension that shadows x's folder once agreed to, or nil.
func shadowedNow(s *session, x *registry.Extension) *registry.Extension {
	for _, y := range registry.Discover(s.env, registry.Providers).All {
		if y.Dir == x.Dir && y.Shadowed {
			return y.ShadowedBy
		}
	}
	return nil
}

// findForConsent finds an extension by folder (any discovered one, blocked or shadowed
// included) or by name (pickForConsent; the pick is said on stderr when there was a choice).
func findForConsent(s *session, arg string) (*registry.Extension, error) {
	d := registry.Discover(s.env, registry.Providers)
	if abs, err := filepath.Abs(arg); err == nil {
		for _, x := range d.All {
			if x.Dir == abs || x.Path == abs {
				return x, nil
			}
		}
	}
	var named []*registry.Extension
	for _, x := range d.All {
		if x.Name == arg {
			named = append(named, x)
		}
	}
	if len(named) == 0 {
		return nil, fmt.Errorf("no extension named or found in %q here; gem ext list --all shows what gem finds", arg)
	}
	x, among := pickForConsent(named)
	if x == nil {
		return chooseForConsent(s, arg, among)
	}
	if len(named) > 1 {
		var others []string
		for _, o := range named {
			if o != x {
				others = append(others, placed(o))
			}
		}
		fmt.Fprintf(s.stderr, "%d extensions are named %q here: this is %s, in %s. To agree to another, name its folder: gem ext consent %s\n",
			len(named), arg, install.Which(x), x.Dir, strings.Join(others, " or "))
	}
	return x, nil
}

// pickForConsent decides which of the extensions of one name (in discovery order) a name
// means to gem ext consent: the project's if any, else the user's; of those, the only one,
// else the one not shadowed (what gem ext list shows). nil when that leaves several: among.
func pickForConsent(named []*registry.Extension) (pick *registry.Extension, among []*registry.Extension) {
	level := registry.LevelUser
	for _, x := range named {
		if x.Level == registry.LevelProject {
			level = registry.LevelProject
		}
	}
	var shown []*registry.Extension
	for _, x := range named {
		if x.Level == level {
			among = append(among, x)
			if !x.Shadowed {
				shown = append(shown, x)
			}
		}
	}
	switch {
	case len(among) == 1:
		return among[0], nil
	case len(shown) == 1:
		return shown[0], nil
	}
	return nil, among
}

// chooseForConsent asks which of among to agree to, on a terminal; off one it fails naming
// them.
func chooseForConsent(s *session, name string, among []*registry.Extension) (*registry.Extension, error) {
	ask := s.stdinPrompter("", "")
	if !ask.CanPrompt() {
		return nil, &ambiguousConsentError{Name: name, Among: among}
	}
	var q strings.Builder
	fmt.Fprintf(&q, "%d extensions are named %q here:\n", len(among), name)
	choices := make([]prompt.Choice, 0, len(among)+1)
	for i, x := range among {
		key := fmt.Sprint(i + 1)
		fmt.Fprintf(&q, "  %s. %s\n", key, placed(x))
		choices = append(choices, prompt.Choice{Key: key, Label: key})
	}
	q.WriteString("Which one do you want to agree to?")
	choices = append(choices, prompt.Choice{Key: "n", Label: "none"})
	i, err := ask.Choose(context.Background(), q.String(), choices, len(choices)-1)
	if err != nil {
		return nil, err
	}
	if i == len(among) {
		return nil, install.ErrDeclined
	}
	return among[i], nil
}

// placed is x's folder and which extension it is: "/p/.gem/extensions/b (a project
// extension of gem)".
func placed(x *registry.Extension) string { return fmt.Sprintf("%s (%s)", x.Dir, install.Which(x)) }

// ambiguousConsentError: gem ext consent NAME off a terminal, when several extensions here
// have that name and none is the one gem ext list shows.
type ambiguousConsentError struct {
	Name  string
	Among []*registry.Extension
}

func (e *ambiguousConsentError) Error() string {
	var each []string
	for _, x := range e.Among {
		each = append(each, placed(x))
	}
	return fmt.Sprintf("%d extensions are named %q here: %s", len(e.Among), e.Name, strings.Join(each, ", "))
}
