//go:build !linux

package sandbox

// Rebase has nothing to do where there are no overlays (they are Linux's).
func (o Overlay) Rebase() error { return nil }
