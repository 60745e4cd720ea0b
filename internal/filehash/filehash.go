// Package filehash computes files' SHA-256 digests (receipts, locks, binaries' pins). It is a
// leaf apart from internal/fsx so the light front, which links fsx, does not link crypto.
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// SHA256 returns the SHA-256 of the file at path, in hex.
func SHA256(path string) (string, error) {
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
