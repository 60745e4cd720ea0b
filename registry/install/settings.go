package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
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
	sealed, err := secrets.Read(env, x.Name)
	if err != nil {
		return nil, err
	}
	var out []SettingState
	for _, s := range x.Manifest().Settings {
		st := SettingState{Setting: s}
		if s.Sensitive {
			_, st.IsSet = sealed[s.EnvVar]
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
		sealed, err := secrets.Read(env, x.Name)
		if err != nil {
			return err
		}
		if unset {
			delete(sealed, s.EnvVar)
		} else {
			sealed[s.EnvVar] = value
		}
		// never leave a sensitive value in .env
		if err := editDotEnv(filepath.Join(x.Dir, ".env"), s.EnvVar, "", true); err != nil {
			return err
		}
		return secrets.Write(env, x.Name, sealed)
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
	return fsx.WriteFileAtomic(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}
