package lockfile_test

import (
	"fmt"

	"github.com/gemhost/gem/registry/lockfile"
)

// A lock written on linux/x64 gains darwin/arm64's hashes when the same pin is installed
// there; the files fetched are then checked against it.
func Example() {
	linux := &lockfile.Entry{Source: "https://github.com/acme/hello", Type: "github-release", ReleaseTag: "v1.2.0", Version: "1.2.0",
		Platforms: map[string]*lockfile.Platform{"linux/x64": {H1: "h1:aaa"}}}
	darwin := &lockfile.Entry{Source: "https://github.com/acme/hello", Type: "github-release", ReleaseTag: "v1.2.0", Version: "1.2.0",
		Platforms: map[string]*lockfile.Platform{"darwin/arm64": {H1: "h1:bbb"}}}
	merged, _ := lockfile.Merge("hello", linux, darwin)
	fmt.Println(len(merged.Platforms), "platforms")

	tampered := &lockfile.Entry{Source: "https://github.com/acme/hello", Type: "github-release", ReleaseTag: "v1.2.0", Version: "1.2.0",
		Platforms: map[string]*lockfile.Platform{"linux/x64": {H1: "h1:ccc"}}}
	fmt.Println(lockfile.Check("hello", merged, tampered, "linux/x64", true))
	// Output:
	// 2 platforms
	// hello: platforms.linux/x64.h1 (its files) differs: gem.lock has h1:aaa, the source now gives h1:ccc
}
