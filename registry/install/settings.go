package install

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
	"slices"
	"strconv"
	"strings"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// Settings (manifest `settings`): non-sensitive values live in the extension's .env
// (KEY=value, as Gemini CLI keeps them); sensitive ones never touch a plain file: there is
// no OS keychain on a headless Linux, so they are sealed with AES-256-GCM in
// $GEM_HOME/secrets/<extension>.enc. The key is random, kept in $GEM_HOME/secrets/key
// (0600) and mixed with the machine id, so the files alone are useless elsewhere.

// SettingState is one setting and whether it has a value.
type SettingState struct {
	manifest.Setting
	IsSet bool   `json:"set"`
	Value string `json:"value,omitempty"` // shown only when not sensitive
}

// FindSetting returns the setting of m named by its name (case-insensitive) or envVar.
func FindSetting(m *manifest.Manifest, key string) (*manifest.Setting, error) {
	for i, s := range m.Settings {
		if strings.EqualFold(s.Name, key) || s.EnvVar == key {
			return &m.Settings[i], nil
		}
	}
	var names []string
	for _, s := range m.Settings {
		names = append(names, s.EnvVar)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("extension %q declares no settings", m.Name)
	}
	return nil, fmt.Errorf("extension %q has no setting %q; its settings are %s", m.Name, key, strings.Join(names, ", "))
}

// SettingStates lists x's settings with their state.
func SettingStates(env registry.Env, x *registry.Extension) ([]SettingState, error) {
	plain := registry.ReadDotEnv(filepath.Join(x.Dir, ".env"))
	secrets, err := readSecrets(env, x.Name)
	if err != nil {
		return nil, err
	}
	var out []SettingState
	for _, s := range x.Manifest().Settings {
		st := SettingState{Setting: s}
		if s.Sensitive {
			_, st.IsSet = secrets[s.EnvVar]
		} else {
			st.Value, st.IsSet = plain[s.EnvVar]
		}
		out = append(out, st)
	}
	return out, nil
}

// SetSetting stores (or with unset, removes) the value of one setting.
func SetSetting(env registry.Env, x *registry.Extension, s *manifest.Setting, value string, unset bool) error {
	if s.Sensitive {
		secrets, err := readSecrets(env, x.Name)
		if err != nil {
			return err
		}
		if unset {
			delete(secrets, s.EnvVar)
		} else {
			secrets[s.EnvVar] = value
		}
		// never leave a sensitive value in .env
		if err := editDotEnv(filepath.Join(x.Dir, ".env"), s.EnvVar, "", true); err != nil {
			return err
		}
		return writeSecrets(env, x.Name, secrets)
	}
	if strings.ContainsAny(value, "\n\r") {
		return fmt.Errorf("the value of %s has a line break; settings are one line", s.EnvVar)
	}
	return editDotEnv(filepath.Join(x.Dir, ".env"), s.EnvVar, value, unset)
}

// editDotEnv sets or removes KEY in a .env file, keeping the other lines.
func editDotEnv(path, key, value string, unset bool) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		k, _, ok := strings.Cut(strings.TrimSpace(l), "=")
		if l == "" || (ok && strings.TrimSpace(strings.TrimPrefix(k, "export ")) == key) {
			continue
		}
		lines = append(lines, l)
	}
	if !unset {
		v := value
		if strings.ContainsAny(v, " #\"'\t") {
			v = strconv.Quote(v)
		}
		lines = append(lines, key+"="+v)
	}
	if len(lines) == 0 {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	return registry.WriteFileAtomic(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

func secretsDir(env registry.Env) string { return filepath.Join(env.GemHome, "secrets") }

func secretKey(env registry.Env, create bool) ([]byte, error) {
	path := filepath.Join(secretsDir(env), "key")
	k, err := os.ReadFile(path)
	if os.IsNotExist(err) && create {
		k = make([]byte, 32)
		rand.Read(k)
		if err := os.MkdirAll(secretsDir(env), 0o700); err != nil {
			return nil, err
		}
		if err := registry.WriteFileAtomic(path, k, 0o600); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	machine, _ := os.ReadFile("/etc/machine-id")
	sum := sha256.Sum256(append(append([]byte("gem secrets v1\x00"), k...), machine...))
	return sum[:], nil
}

func readSecrets(env registry.Env, name string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(secretsDir(env), name+".enc"))
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	key, err := secretKey(env, false)
	if err != nil {
		return nil, fmt.Errorf("cannot read the secrets key in %s: %w", secretsDir(env), err)
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

func writeSecrets(env registry.Env, name string, m map[string]string) error {
	path := filepath.Join(secretsDir(env), name+".enc")
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
	return registry.WriteFileAtomic(path, gcm.Seal(nonce, nonce, plain, []byte(name)), 0o600)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// SettingsEnv returns KEY=value for every setting of x that has a value (sensitive ones
// decrypted), for the environment of its subprocesses.
func SettingsEnv(env registry.Env, x *registry.Extension) ([]string, error) {
	plain := registry.ReadDotEnv(filepath.Join(x.Dir, ".env"))
	secrets, err := readSecrets(env, x.Name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range x.Manifest().Settings {
		if v, ok := secrets[s.EnvVar]; ok && s.Sensitive {
			out = append(out, s.EnvVar+"="+v)
		} else if v, ok := plain[s.EnvVar]; ok {
			out = append(out, s.EnvVar+"="+v)
		}
	}
	slices.Sort(out)
	return out, nil
}
