// Package hashing computes SHA-256 digests of command binaries for gem-engine; it is kept
// apart from host/commands so the light front does not link crypto.
package hashing

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// SHA256File returns the SHA-256 of a file in hex (commands.HashFile in gem-engine).
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
