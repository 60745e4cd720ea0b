package manifest

import "strings"

// secretWords are parts of variable names that suggest a secret (spec/sandbox.md).
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL", "CREDS", "PRIVATE", "CERT"}

// LooksSecret reports whether an environment variable or header name suggests a secret.
func LooksSecret(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// Mask returns value, or a mask when name looks secret.
func Mask(name, value string) string {
	if value != "" && LooksSecret(name) {
		return "****"
	}
	return value
}
