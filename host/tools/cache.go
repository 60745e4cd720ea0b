package tools

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/registry"
)

// The tool cache lets `gem tools list` and a session's catalog know a plugin's tools without
// starting it: one file per plugin binary under $GEM_HOME/cache/tools, keyed by the binary's
// path (under the extension's folder's, so uninstalling removes them) and valid while its size and modification time are those recorded. Written on every
// start of the plugin, so a changed binary refreshes it.
type toolCache struct {
	Format  int    `json:"format"` // cacheFormat; any other is not read
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Tools   []Spec `json:"tools"`
}

// cacheFormat is the cache file's layout: 2 holds Specs (kinds by name).
const cacheFormat = 2

// readToolCache returns the cached tools of the binary, or nil when there are none or the
// binary changed.
func readToolCache(env registry.Env, dir, bin string) []Spec {
	st, err := os.Stat(bin)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(env.ToolCacheFile(dir, bin))
	if err != nil {
		return nil
	}
	var c toolCache
	if json.Unmarshal(data, &c) != nil || c.Format != cacheFormat || c.Path != bin || c.Size != st.Size() || c.ModTime != st.ModTime().UnixNano() || c.Tools == nil {
		return nil
	}
	return c.Tools
}

// lastToolNames are the tools the binary at bin reported when it last started, whether or
// not it changed since (nil when it never did): what a plugin that no longer loads used to
// bring, to name it in an error.
func lastToolNames(env registry.Env, dir, bin string) []string {
	data, err := os.ReadFile(env.ToolCacheFile(dir, bin))
	if err != nil {
		return nil
	}
	var c toolCache
	if json.Unmarshal(data, &c) != nil || c.Path != bin {
		return nil
	}
	var names []string
	for _, s := range c.Tools {
		names = append(names, s.Name)
	}
	return names
}

// writeToolCache records the tools a started plugin reported.
func writeToolCache(env registry.Env, dir, bin string, specs []Spec) error {
	st, err := os.Stat(bin)
	if err != nil {
		return err
	}
	c := toolCache{Format: cacheFormat, Path: bin, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Tools: []Spec{}}
	for _, s := range specs {
		if !json.Valid(s.InputSchema) {
			s.InputSchema = json.RawMessage("null")
		}
		c.Tools = append(c.Tools, s)
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	path := env.ToolCacheFile(dir, bin)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, data, 0o600)
}
