package registry

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HasSecrets reports whether extension name has sealed sensitive settings.
func HasSecrets(env Env, name string) bool {
	_, err := os.Stat(env.SecretsFile(name))
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

// RecordedHash returns the SHA-256 that gem recorded at install for the file rel of x (its
// receipt's file hashes).
func RecordedHash(env Env, x *Extension, rel string) (string, bool) {
	if x.Level != LevelUser || !PlainName(x.Name) {
		return "", false
	}
	r, err := ReadReceipt(env, x.Dir)
	if err != nil || r == nil {
		return "", false
	}
	sum, ok := r.Files[filepath.ToSlash(rel)]
	return sum, ok && !strings.HasPrefix(sum, "link:")
}
