package pluginsdk

import "embed"

// Source is this SDK's own source. `gem ext new <path> plugin` copies it into the new
// project (third_party/pluginsdk, wired with a replace directive) so the template builds
// out of the box before pluginsdk is published on a module proxy.
//
//go:embed go.mod go.sum *.go proto/*.go proto/*.proto proto/VERSIONING.md pluginhost/*.go plugintest/plugintest.go
var Source embed.FS
