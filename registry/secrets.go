package registry

import (
	"os"
	"path/filepath"
	"slices"
)

// SecretsDir is where sensitive settings are kept (see registry/secrets).
func SecretsDir(env Env) string { return filepath.Join(env.GemHome, "secrets") }

// HasSecrets reports whether extension name has sealed sensitive settings.
func HasSecrets(env Env, name string) bool {
	_, err := os.Stat(filepath.Join(SecretsDir(env), name+".enc"))
	return err == nil
}

// SecretReader returns an extension's sensitive settings (registry/secrets.Read).
type SecretReader func(env Env, name string) (map[string]string, error)

// SettingsEnv returns KEY=value for every setting of x that has a value (sensitive ones
// decrypted), for the environment of its subprocesses.
func SettingsEnv(env Env, x *Extension, readSecrets SecretReader) ([]string, error) {
	plain := ReadDotEnv(filepath.Join(x.Dir, ".env"))
	var secrets map[string]string
	if readSecrets != nil && x.Level == LevelUser { // sealed by name: never for a project extension
		var err error
		if secrets, err = readSecrets(env, x.Name); err != nil {
			return nil, err
		}
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
