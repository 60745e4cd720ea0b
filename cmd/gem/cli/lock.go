package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

type lockOptions struct {
	Scope string `flag:"scope" usage:"user (the user's extensions, $GEM_HOME/gem.lock) or project (the project's, ./gem.lock)"`
	Prune bool   `flag:"prune" usage:"remove what is not installed even when that is every entry, or the folder is not trusted"`
	jsonOutput
}

func (o *lockOptions) setDefaults() { o.Scope = "project" }

func lockCommand(f *Factory) *cli.Command {
	return verb(f, "lock", "write gem.lock: the source, commit, archive and file hashes of each installed extension, and the packages its MCP servers fetch", lockWrite,
		"gem lock (the project's extensions into ./gem.lock; commit it)", "gem lock --scope user",
		"gem lock --prune (also when none of what ./gem.lock locks is installed here)",
		"gem ext sync (install exactly what gem.lock pins, on another machine)")
}

func lockWrite(ctx context.Context, s *session, o lockOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	rep, err := newInstaller(s, false).WriteLock(ctx, scope, o.Prune)
	if err != nil {
		return err
	}
	s.log.Info("lock written", "path", rep.Path, "added", rep.Added, "changed", rep.Changed, "removed", rep.Removed)
	return render(s, o.JSON, rep, func() error {
		if !rep.Written {
			fmt.Fprintln(s.stdout, nothingToLock(scope, rep))
			return nil
		}
		locked := len(rep.Added) + len(rep.Changed) + len(rep.Unchanged)
		fmt.Fprintf(s.stdout, "Wrote %s: %s locked.\n", rep.Path, plural.Count(locked, "extension"))
		for _, l := range []struct {
			what  string
			names []string
		}{{"added", rep.Added}, {"changed", rep.Changed}, {"removed (no longer installed)", rep.Removed}, {"not locked (linked)", rep.Skipped}} {
			if len(l.names) > 0 {
				fmt.Fprintf(s.stdout, "  %s: %s\n", l.what, strings.Join(l.names, ", "))
			}
		}
		return nil
	})
}

// nothingToLock says why gem lock wrote no lock, and, in a project, how the user's own
// extensions are locked.
func nothingToLock(scope registry.Level, rep *install.LockReport) string {
	what := "Nothing to lock: no extension is installed for the user"
	if scope == registry.LevelProject {
		what = "Nothing to lock: no extension is installed in this project"
	}
	if len(rep.Skipped) > 0 {
		what += " but links, which are not locked"
	}
	msg := what + "; " + rep.Path + " was not written."
	if scope == registry.LevelProject {
		msg += "\nYour own extensions are locked with: gem lock --scope user"
	}
	return msg
}

type extSyncOptions struct {
	Scope   string `flag:"scope" usage:"project (./gem.lock into ./.gemini/extensions, plugins into ./.gem/extensions) or user ($GEM_HOME/gem.lock)"`
	Locked  bool   `flag:"locked" usage:"fail if gem.lock lacks this platform's hashes or a payload (CI: the lock must already say everything)"`
	Prune   bool   `flag:"prune" usage:"uninstall the scope's extensions gem.lock does not name"`
	Jobs    int    `flag:"jobs" usage:"sources fetched at once"`
	Consent bool   `flag:"consent" usage:"agree to fetching what gem.lock names, and to the consent texts, without being asked (for scripts)"`
	jsonOutput
}

func (o *extSyncOptions) setDefaults() { o.Scope, o.Jobs = "project", 4 }

func extSyncCommand(f *Factory) *cli.Command {
	cmd := verb(f, "sync", "install exactly what gem.lock pins: the project's declared extension set, byte for byte", extSync,
		"gem trust && gem ext sync (after cloning a project with a gem.lock, and reading it)", "gem ext sync --locked --consent (CI)", "gem ext sync --prune --scope user")
	cmd.Description = "Nothing is fetched before you agree: a project's gem.lock only in a folder you trusted\n" +
		"(gem trust), and only once you said yes to the sources it names (--consent says yes). A\n" +
		"project's lock may name remote sources and folders inside the project, nothing else.\n\n" + cmd.Description
	return cmd
}

func extSync(ctx context.Context, s *session, o extSyncOptions) error {
	scope, err := scopeLevel(o.Scope)
	if err != nil {
		return err
	}
	in := newInstaller(s, o.Consent)
	lock, err := in.ReadLock(scope)
	if errors.Is(err, os.ErrNotExist) {
		return &noLockError{path: in.LockPath(scope)}
	}
	if err != nil {
		return err
	}
	results, err := in.Sync(ctx, lock, install.SyncOptions{Scope: scope, Strict: o.Locked, Prune: o.Prune, Jobs: o.Jobs})
	if err != nil {
		s.log.Error("sync failed", "lock", in.LockPath(scope), "error", err)
		return err
	}
	return renderSynced(s, o.JSON, results)
}

// renderSynced reports what a sync (or a bundle's install) did, one line per extension.
func renderSynced(s *session, asJSON bool, results []*install.Result) error {
	if results == nil {
		results = []*install.Result{}
	}
	return render(s, asJSON, results, func() error {
		for _, r := range results {
			switch r.Status {
			case install.StatusNotLocked:
				fmt.Fprintf(s.stdout, "%s %s: installed but not in gem.lock (gem ext sync --prune removes it; gem lock adds it)\n", r.Name, r.Version)
			case install.StatusPruned:
				fmt.Fprintf(s.stdout, "%s %s: uninstalled (not in gem.lock)\n", r.Name, r.Version)
			default:
				fmt.Fprintf(s.stdout, "%s %s: %s\n", r.Name, r.Version, r.Status)
			}
		}
		return nil
	})
}

// noLockError: gem ext sync without a gem.lock.
type noLockError struct{ path string }

func (e *noLockError) Error() string { return fmt.Sprintf("there is no %s", e.path) }

// installBundle installs every extension of a bundle gem ext bundle wrote, from the bundle
// alone (gem ext install x.tar).
func installBundle(ctx context.Context, s *session, o extInstallOptions, scope registry.Level) error {
	if o.Ref != "" || o.Path != "" || o.Locked {
		return usagef("a bundle installs what its own gem.lock pins: drop --ref, --path and --locked")
	}
	results, err := newInstaller(s, o.Consent).InstallBundle(ctx, o.Source, install.SyncOptions{Scope: scope, Jobs: 4})
	if err != nil {
		s.log.Error("bundle install failed", "bundle", o.Source, "error", err)
		return err
	}
	return renderSynced(s, o.JSON, results)
}

type extBundleOptions struct {
	Names  []string `arg:"[name]..."`
	Output string   `flag:"output,o" usage:"the bundle to write: a .tar, or a folder (an OCI image layout either way)"`
	Scope  string   `flag:"scope" usage:"only this gem.lock: project (./gem.lock) or user ($GEM_HOME/gem.lock) (default: a name is looked up in the project's, then the user's, then as installed)"`
	// Consent: without names, the project's gem.lock says what to fetch, as for gem ext sync.
	Consent bool `flag:"consent" usage:"agree to fetching what the project's gem.lock names without being asked (for scripts; without names)"`
	jsonOutput
}

func extBundleCommand(f *Factory) *cli.Command {
	return verb(f, "bundle", "write what gem.lock pins into one file, to install on a machine without access to the sources (or to serve as a mirror)", extBundle,
		"gem ext bundle -o tools.tar (every extension of ./gem.lock, else of the user's gem.lock, fetched and checked against it; ./gem.lock's sources once you agree, or with --consent)",
		"gem ext bundle formatter linter -o two.tar (each as the project's or the user's gem.lock pins it, else as installed)",
		"gem ext bundle -o user.tar --scope user",
		"gem ext install tools.tar --consent (on the machine without access)",
		"GEM_MIRROR=tools.tar gem ext sync (the bundle as a mirror of a project's lock)")
}

func extBundle(ctx context.Context, s *session, o extBundleOptions) error {
	if o.Output == "" {
		return usagef("say where to write the bundle with -o (a .tar, or a folder)")
	}
	var scope registry.Level
	if o.Scope != "" {
		var err error
		if scope, err = scopeLevel(o.Scope); err != nil {
			return err
		}
	}
	in := newInstaller(s, o.Consent)
	lock, err := in.BundleLock(ctx, o.Names, scope, o.Output)
	if err != nil {
		return err
	}
	rep, err := in.Bundle(ctx, lock, o.Output)
	if err != nil {
		return err
	}
	s.log.Info("bundle written", "path", rep.Path, "extensions", rep.Extensions)
	return render(s, o.JSON, rep, func() error {
		fmt.Fprintf(s.stdout, "Wrote %s for %s: %s.\n", rep.Path, rep.Platform, strings.Join(rep.Extensions, ", "))
		if len(rep.Payloads) > 0 {
			fmt.Fprintf(s.stdout, "With what their MCP servers run: %s (each with its dependencies).\n", strings.Join(rep.Payloads, ", "))
		}
		for _, p := range rep.NotCarried {
			s.warn("%s is not in the bundle: the server fetches it when it starts (only npm packages are carried)", p)
		}
		_, err := fmt.Fprintf(s.stdout, "Install it with: gem ext install %s\n", rep.Path)
		return err
	})
}

// scopeFlag is " --scope <scope>", or nothing when scope is the command's default.
func scopeFlag(scope, def registry.Level) string {
	if scope == "" || scope == def {
		return ""
	}
	return " --scope " + string(scope)
}

// notBundledHint is the command that bundles an extension gem ext bundle could not find.
func notBundledHint(e *install.NotBundledError) string {
	again := fmt.Sprintf("gem ext bundle %s -o %s", e.Name, e.Output)
	switch {
	case e.Elsewhere != "":
		return fmt.Sprintf("%s records it: %s --scope %s, or without --scope", e.ElsewherePath, again, e.Elsewhere)
	case e.Linked != "":
		return fmt.Sprintf("a linked folder has no pin: install it with gem ext install %s, then %s; or gem ext pack %s writes an archive of it", e.Linked, again, e.Linked)
	case e.Scope != "" && e.Installed == e.Scope:
		return fmt.Sprintf("gem lock%s records it in %s; or without --scope, %s bundles it as installed", scopeFlag(e.Scope, registry.LevelProject), e.Locks[0], again)
	case e.Scope != "" && e.Installed != "":
		return fmt.Sprintf("it is installed for the %s: %s without --scope bundles it as installed", e.Installed, again)
	}
	return fmt.Sprintf("gem ext list shows what is installed; install it with gem ext install <source>, then %s", again)
}
