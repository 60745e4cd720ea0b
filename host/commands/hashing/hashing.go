// Package hashing computes SHA-256 digests of command binaries for gem-engine; it is kept
// apart from host/commands so the light front does not link crypto.
package hashing

import "github.com/gemhost/gem/internal/filehash"

// SHA256File returns the SHA-256 of a file in hex (commands.HashFile in gem-engine).
func SHA256File(path string) (string, error) { return filehash.SHA256(path) }
