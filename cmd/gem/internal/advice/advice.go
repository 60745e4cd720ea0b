// Package advice says what to do about gem's typed library errors, in the command line's
// terms (verbs and flags). Libraries (host, registry, manifest) say what is wrong and never
// how to fix it with a gem command; the light front and gem-engine render every error
// through Text, and gem mcp serve or the batch mode give the bare error instead. It links
// only what the light front links (registry, host/commands, host/sandbox).
package advice

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/registry"
	"github.com/kballard/go-shellquote"
)

// Text is err's message followed by what to do, when gem knows.
func Text(err error) string {
	if hint := For(err); hint != "" {
		return err.Error() + " (" + hint + ")"
	}
	return err.Error()
}

// For is what to do about err ("" when gem has nothing to add).
func For(err error) string {
	var (
		blocked  *commands.BlockedError
		disabled *commands.DisabledError
		missing  *commands.MissingNeedsError
		tampered *commands.TamperedError
		failure  *sandbox.FailureError
		notFound *registry.NotFoundError
		secret   *registry.SecretRootError
		changed  *registry.RootChangedError
	)
	switch {
	case errors.As(err, &blocked):
		return Block(blocked.Extension)
	case errors.As(err, &disabled):
		return "run gem ext enable " + disabled.Extension
	case errors.As(err, &missing):
		return fmt.Sprintf("agree to it with gem ext consent %s, or grant it: gem ext grant %s %s",
			missing.Extension, missing.Extension, GrantFlags(missing.Missing, missing.Home))
	case errors.As(err, &tampered):
		return "gem ext verify lists what changed, and reinstalling restores it"
	case errors.As(err, &failure):
		return sandboxFix(failure)
	case errors.As(err, &secret) && secret.Start:
		return fmt.Sprintf("if you trust it with that, grant it by name: gem ext grant %s %s %s", secret.Extension, grantFlag(secret.Root.Field), secret.Root.Real)
	case errors.As(err, &secret):
		return fmt.Sprintf("nothing was changed; if you trust it with that, grant it by name: add --allow %s", secret.Root.Real)
	case errors.As(err, &changed) && strings.HasPrefix(changed.Now.Field, "grant."):
		return fmt.Sprintf("if you changed it yourself, grant it again: gem ext grant %s %s %s; else something replaced it behind gem's back", changed.Extension, grantFlag(changed.Now.Field), changed.Now.Asked)
	case errors.As(err, &changed):
		return fmt.Sprintf("if you changed it yourself, agree to what it is now: gem ext consent %s; else something replaced it behind gem's back", changed.Extension)
	case errors.As(err, &notFound) && notFound.Similar != "":
		return fmt.Sprintf("did you mean %q? gem ext list --all shows what gem finds", notFound.Similar)
	case errors.As(err, &notFound):
		return "gem ext list --all shows what gem finds"
	case errors.Is(err, commands.ErrUsage):
		return "usage: gem run [--yes] <command> [args...]"
	}
	return ""
}

// Block is what to do about an extension gem skipped ("" when it is not blocked).
func Block(x *registry.Extension) string {
	switch x.Blocked {
	case registry.BlockUntrusted:
		return "gem trust trusts this folder"
	case registry.BlockUnconsented:
		return "agree to it with gem ext consent " + x.Dir
	case registry.BlockChanged:
		return "gem ext consent " + x.Dir + " shows the difference"
	case registry.BlockSettings:
		return "the settings decide, an administrator's system file or yours: gem settings shows where it is set"
	}
	return ""
}

// Explain is a blocked extension's reason and what to do about it.
func Explain(x *registry.Extension) string {
	if hint := Block(x); hint != "" {
		return x.Explain() + " (" + hint + ")"
	}
	return x.Explain()
}

// GrantFlags renders g as gem ext grant's flags (folders under home as ~/…, quoted for a
// shell when they need it).
func GrantFlags(g registry.Grant, home string) string {
	var parts []string
	if g.Network {
		parts = append(parts, "--network")
	}
	if g.Workspace {
		parts = append(parts, "--workspace")
	}
	folder := func(p string) string {
		t := registry.Tilde(home, p)
		if rest, ok := strings.CutPrefix(t, "~/"); ok {
			return "~/" + shellquote.Join(rest)
		}
		return shellquote.Join(t)
	}
	for _, r := range g.Read {
		parts = append(parts, "--read "+folder(r))
	}
	for _, w := range g.Write {
		parts = append(parts, "--write "+folder(w))
	}
	return strings.Join(parts, " ")
}

func sandboxFix(e *sandbox.FailureError) string {
	x := e.Extension
	switch e.Failure.Kind {
	case sandbox.FailedNetwork:
		return fmt.Sprintf("gem ext grant %s --network, or gem ext consent %s", x, x)
	case sandbox.FailedPath:
		return fmt.Sprintf("if it needs that: gem ext grant %s --read or --write the folder", x)
	case sandbox.FailedWorkspace:
		return fmt.Sprintf("if it should change your project: gem ext grant %s --workspace", x)
	case sandbox.FailedToolchain:
		return fmt.Sprintf("install it, or run gem ext consent %s after installing it", x)
	case sandbox.FailedConfined:
		return fmt.Sprintf("if it needs them: gem ext grant %s --network --write <folder>", x)
	}
	return ""
}

// grantFlag is the gem ext grant flag of a sandbox field: --read or --write.
func grantFlag(field string) string {
	if strings.HasSuffix(field, ".write") {
		return "--write"
	}
	return "--read"
}
