// Package buildinfo holds gem's version, set at link time by the Makefile
// (-ldflags "-X github.com/gemhost/gem/internal/buildinfo.Version=…").
package buildinfo

// Version is gem's version; "dev" for a build without -ldflags.
var Version = "dev"
