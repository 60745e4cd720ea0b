package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tailscale/hujson"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/registry"
)

// UserFile is the user's settings file gem writes to (Gemini CLI's: both tools read it).
func UserFile(env registry.Env) string {
	return env.GeminiSettingsFile()
}

// SetList sets the list at key ("skills.disabled": an object path of two names) in the
// settings file at path, keeping its comments, order and formatting (hujson patches); the
// file and the object are made when missing. The file is replaced atomically.
func SetList(path, object, key string, values []string) error {
	data, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte("{}\n")
	case err != nil:
		return err
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v): fix it first", path, err)
	}
	if values == nil {
		values = []string{}
	}
	list, _ := json.Marshal(values)
	var probe map[string]json.RawMessage
	std := v.Clone()
	std.Standardize()
	if err := json.Unmarshal(std.Pack(), &probe); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var patch string
	if raw, ok := probe[object]; !ok || string(raw) == "null" {
		obj, _ := json.Marshal(map[string]json.RawMessage{key: list})
		patch = fmt.Sprintf(`[{"op":"add","path":"/%s","value":%s}]`, object, obj)
	} else {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) != nil {
			return fmt.Errorf("%s: %s must be an object: fix it first", path, object)
		}
		patch = fmt.Sprintf(`[{"op":"add","path":"/%s/%s","value":%s}]`, object, key, list)
	}
	if err := v.Patch([]byte(patch)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	v.Format()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, v.Pack(), mode)
}
