package install

import "fmt"

// AlreadyInstalledError: an extension of that name is installed where this one would go.
type AlreadyInstalledError struct {
	Name, Path string
	Linking    bool // gem ext link (else install)
}

func (e *AlreadyInstalledError) Error() string {
	return fmt.Sprintf("extension %q is already installed at %s", e.Name, e.Path)
}

// NameClashError: an extension of that name, from another source, is installed where this
// one would go (Path) or at the same level in gem's other root. Source is where this one
// comes from, InstalledSource where the installed one came from ("" when unknown: placed by
// hand, or by Gemini CLI). Qualified is the name this one may be installed under beside it
// (plugin@marketplace, Options.Qualified), "" when it comes from no marketplace.
type NameClashError struct {
	Name, Path, InstalledSource string
	Source, Qualified           string
}

func (e *NameClashError) Error() string {
	from := "installed by hand or by Gemini CLI"
	if e.InstalledSource != "" {
		from = "from " + e.InstalledSource
	}
	return fmt.Sprintf("extension %q from %s has the name of the one at %s (%s)", e.Name, e.Source, e.Path, from)
}

// NotQualifiableError: Options.Qualified for an extension that comes from no marketplace.
type NotQualifiableError struct{ Name, Source string }

func (e *NotQualifiableError) Error() string {
	return fmt.Sprintf("extension %q from %s comes from no marketplace, so it has no plugin@marketplace name", e.Name, e.Source)
}

// InvalidError: the extension does not pass validate's checks. Forceable: the errors are
// about running it here (a binary for another platform, an MCP command that is not there),
// not about its manifest, so --force may install it anyway.
type InvalidError struct {
	Name      string
	Problems  string // the errors, one per line
	Forceable bool
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("extension %q is not valid:\n%s", e.Name, e.Problems)
}

// RefOnLocalError: --ref names a version of a git repository or a release; a local folder
// or archive has only the one it holds.
type RefOnLocalError struct{ Source, Ref string }

func (e *RefOnLocalError) Error() string {
	return fmt.Sprintf("--ref %s: %s is a local folder or archive, which has no refs", e.Ref, e.Source)
}

// NotInstalledError: no installed extension has that name or was installed from that source.
type NotInstalledError struct{ Target string }

func (e *NotInstalledError) Error() string {
	return fmt.Sprintf("no installed extension named or installed from %q", e.Target)
}

// NoSourceError: an extension without install metadata, so gem does not know where it came from.
type NoSourceError struct{ Name, File string }

func (e *NoSourceError) Error() string {
	return fmt.Sprintf("extension %q has no install metadata (%s), so gem does not know its source", e.Name, e.File)
}

// UnknownMarketplaceError is a marketplace name gem does not know.
type UnknownMarketplaceError struct{ Name string }

func (e *UnknownMarketplaceError) Error() string {
	return fmt.Sprintf("no marketplace %q is known", e.Name)
}

// UnknownPluginError is a plugin a marketplace does not list.
type UnknownPluginError struct{ Plugin, Marketplace string }

func (e *UnknownPluginError) Error() string {
	return fmt.Sprintf("marketplace %q lists no plugin %q", e.Marketplace, e.Plugin)
}

// MarketplaceExistsError is a marketplace added under a name another source already has.
type MarketplaceExistsError struct{ Name, Source string }

func (e *MarketplaceExistsError) Error() string {
	return fmt.Sprintf("a marketplace named %q is already added from %s", e.Name, e.Source)
}
