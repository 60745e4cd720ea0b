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
