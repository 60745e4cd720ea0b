package tools

import (
	"encoding/json"
	"os"
	"path/filepath"

	pb "github.com/gemhost/gem/pluginsdk/proto"
	"github.com/gemhost/gem/registry"
)

// The tool cache lets `gem tools list` and a session's registry know a plugin's tools without
// starting it: one file per plugin binary under $GEM_HOME/cache/tools, keyed by the binary's
// path and valid while its size and modification time are those recorded. Written on every
// start of the plugin, so a changed binary refreshes it.
type toolCache struct {
	Path    string       `json:"path"`
	Size    int64        `json:"size"`
	ModTime int64        `json:"mtime_ns"`
	Tools   []cachedSpec `json:"tools"`
}

type cachedSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Kind        int32           `json:"kind"`
	Streams     bool            `json:"streams,omitempty"`
}

func toolCachePath(env registry.Env, bin string) string {
	return env.ToolCacheFile(bin)
}

// readToolCache returns the cached tools of the binary, or nil when there are none or the
// binary changed.
func readToolCache(env registry.Env, bin string) []*pb.ToolSpec {
	st, err := os.Stat(bin)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(toolCachePath(env, bin))
	if err != nil {
		return nil
	}
	var c toolCache
	if json.Unmarshal(data, &c) != nil || c.Path != bin || c.Size != st.Size() || c.ModTime != st.ModTime().UnixNano() {
		return nil
	}
	specs := make([]*pb.ToolSpec, 0, len(c.Tools))
	for _, t := range c.Tools {
		specs = append(specs, &pb.ToolSpec{Name: t.Name, Description: t.Description, InputSchemaJson: string(t.Schema), Kind: pb.Kind(t.Kind), Streams: t.Streams})
	}
	return specs
}

// writeToolCache records the tools a started plugin reported.
func writeToolCache(env registry.Env, bin string, specs []*pb.ToolSpec) error {
	st, err := os.Stat(bin)
	if err != nil {
		return err
	}
	c := toolCache{Path: bin, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Tools: []cachedSpec{}}
	for _, s := range specs {
		schema := json.RawMessage(s.InputSchemaJson)
		if !json.Valid(schema) {
			schema = json.RawMessage("null")
		}
		c.Tools = append(c.Tools, cachedSpec{Name: s.Name, Description: s.Description, Schema: schema, Kind: int32(s.Kind), Streams: s.Streams})
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	path := toolCachePath(env, bin)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return registry.WriteFileAtomic(path, data, 0o600)
}
