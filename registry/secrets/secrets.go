// Package secrets owns sensitive extension settings: sealed with AES-256-GCM in
// $GEM_HOME/secrets/<extension>.enc (no OS keychain on a headless Linux). The key is random,
// in $GEM_HOME/secrets/key (0600), mixed with the machine id, so the files alone are useless
// elsewhere. Only gem-engine links it; the light front hands commands whose extension has
// secrets to the engine.
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

// Read returns the sensitive settings of extension name.
func Read(env registry.Env, name string) (map[string]string, error) {
	if !registry.PlainName(name) {
		return nil, fmt.Errorf("no secrets for %q: not a plain extension name", name)
	}
	data, err := os.ReadFile(env.SecretsFile(name))
	if os.IsNotExist(err) {
		return map[string]string{}, nil
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
		return nil, errors.New("the secrets file of " + name + " is damaged: set its sensitive settings again")
	}
	plain, err := gcm.Open(nil, data[:gcm.NonceSize()], data[gcm.NonceSize():], []byte(name))
	if err != nil {
		return nil, fmt.Errorf("cannot decrypt the secrets of %s (copied from another machine?): set its sensitive settings again", name)
	}
	m := map[string]string{}
	return m, json.Unmarshal(plain, &m)
}

// Write stores the sensitive settings of extension name.
func Write(env registry.Env, name string, m map[string]string) error {
	if !registry.PlainName(name) {
		return fmt.Errorf("no secrets for %q: not a plain extension name", name)
	}
	path := env.SecretsFile(name)
	if len(m) == 0 {
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
	plain, _ := json.Marshal(m)
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	return fsx.WriteFileAtomic(path, gcm.Seal(nonce, nonce, plain, []byte(name)), 0o600)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
