// Package secrets owns what gem keeps sealed: sensitive extension settings and the OAuth
// tokens of remote MCP servers, with AES-256-GCM in $GEM_HOME/secrets (no OS keychain on a
// headless Linux). The key is random, in $GEM_HOME/secrets/key (0600), mixed with the machine
// id, so the files alone are useless elsewhere; each file is sealed with what it is for (its
// extension's name, and a label), so one file copied over another does not open. Only
// gem-engine links it; the light front hands commands whose extension has secrets to the
// engine.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/registry"
)

func secretKey(env registry.Env, create bool) ([]byte, error) {
	path := filepath.Join(env.SecretsDir(), "key")
	k, err := os.ReadFile(path)
	if os.IsNotExist(err) && create {
		k = make([]byte, 32)
		rand.Read(k)
		if err := os.MkdirAll(env.SecretsDir(), 0o700); err != nil {
			return nil, err
		}
		if err := fsx.WriteFileAtomic(path, k, 0o600); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	machine, _ := os.ReadFile("/etc/machine-id")
	sum := sha256.Sum256(append(append([]byte("gem secrets v1\x00"), k...), machine...))
	return sum[:], nil
}

// ErrDamaged is a sealed file that does not open: damaged, or copied from another machine or
// from another file.
var ErrDamaged = errors.New("cannot decrypt (damaged, or copied from another machine)")

// Open returns the contents of the sealed file path, sealed with aad; nil when there is none.
func Open(env registry.Env, path, aad string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	key, err := secretKey(env, false)
	if err != nil {
		return nil, fmt.Errorf("cannot read the secrets key in %s: %w", env.SecretsDir(), err)
	}
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	if len(data) < gcm.NonceSize() {
		return nil, ErrDamaged
	}
	plain, err := gcm.Open(nil, data[:gcm.NonceSize()], data[gcm.NonceSize():], []byte(aad))
	if err != nil {
		return nil, ErrDamaged
	}
	return plain, nil
}

// Seal writes plain sealed with aad to path (0600, atomically); nil plain removes the file.
func Seal(env registry.Env, path, aad string, plain []byte) error {
	if plain == nil {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	key, err := secretKey(env, true)
	if err != nil {
		return err
	}
	gcm, err := newGCM(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	return fsx.WriteFileAtomic(path, gcm.Seal(nonce, nonce, plain, []byte(aad)), 0o600)
}

// Read returns the sensitive settings of extension name.
func Read(env registry.Env, name string) (map[string]string, error) {
	if !registry.PlainName(name) {
		return nil, fmt.Errorf("no secrets for %q: not a plain extension name", name)
	}
	plain, err := Open(env, env.SecretsFile(name), name)
	if errors.Is(err, ErrDamaged) {
		return nil, fmt.Errorf("cannot decrypt the secrets of %s: the file is damaged, or was copied from another machine: set its sensitive settings again", name)
	}
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if plain == nil {
		return m, nil
	}
	return m, json.Unmarshal(plain, &m)
}

// Write stores the sensitive settings of extension name.
func Write(env registry.Env, name string, m map[string]string) error {
	if !registry.PlainName(name) {
		return fmt.Errorf("no secrets for %q: not a plain extension name", name)
	}
	var plain []byte
	if len(m) > 0 {
		plain, _ = json.Marshal(m)
	}
	return Seal(env, env.SecretsFile(name), name, plain)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
