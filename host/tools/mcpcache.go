package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcphost "github.com/gemhost/gem/host/mcp"
	"github.com/gemhost/gem/host/toolchain"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/manifest"
)

// The MCP tool cache lets a session offer an MCP server's tools before the server has
// started (gem -p's first request does not wait for node or uvx to boot): one file per server
// under $GEM_HOME/cache/mcp-tools/<its extension folder's key> (uninstalling removes them), keyed by what decides its list — the extension, the
// server's command line, URL, working folder, filters, the names of its environment and the
// identity (size, modification time) of its command's file. Written after every start and
// list change; a call to a cached tool starts its server and waits for it alone. A list
// that proved stale is replaced the moment the server answers, and the next request carries
// the new one.

// mcpCacheFormat is the cache file's layout.
const mcpCacheFormat = 1

type mcpCache struct {
	Format int         `json:"format"`
	Tools  []*sdk.Tool `json:"tools"`
}

// mcpCacheKey names the cache entry of a server: what it runs and with what.
func mcpCacheKey(extension string, s manifest.MCPServer, env []string, dir string) string {
	var names []string
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	identity := ""
	if path := s.Command; path != "" {
		if !filepath.IsAbs(path) {
			for _, kv := range env {
				if p, ok := strings.CutPrefix(kv, "PATH="); ok {
					if found := toolchain.LookPath(path, p); found != "" {
						path = found
					}
				}
			}
		}
		if st, err := os.Stat(path); err == nil {
			identity = fmt.Sprintf("%s:%d:%d", path, st.Size(), st.ModTime().UnixNano())
		}
	}
	key, _ := json.Marshal([]any{extension, s.Name, s.Command, s.Args, s.URL, s.HTTPURL, s.Cwd, dir, s.IncludeTools, s.ExcludeTools, names, identity})
	return string(key)
}

func readMCPCache(file string) []*sdk.Tool {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var c mcpCache
	if json.Unmarshal(data, &c) != nil || c.Format != mcpCacheFormat || c.Tools == nil {
		return nil
	}
	return c.Tools
}

// saveCache records the running server's list.
func (s *mcpServer) saveCache(log hclog.Logger) {
	if st, _ := s.State(); st != mcphost.Ready {
		return
	}
	list := s.Tools()
	if list == nil {
		list = []*sdk.Tool{}
	}
	data, err := json.Marshal(mcpCache{Format: mcpCacheFormat, Tools: list})
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(s.cacheFile), 0o700); err == nil {
			err = fsx.WriteFileAtomic(s.cacheFile, data, 0o600)
		}
	}
	if err != nil && log != nil {
		log.Warn("writing the mcp tool cache", "server", s.Name, "error", err)
	}
}

// WarmDelay bounds how long Warm's background starts wait for their signal.
const WarmDelay = 300 * time.Millisecond

// Warm starts every MCP server in the background and waits only for those whose tool list
// is not cached (their tools would be missing from a first request); it returns the errors of
// those it waited for. The others' failures show when their tools are called. The
// background starts begin when after closes (the first request is on its way: on a machine
// of two cores, five sandboxes starting at once delay it by tens of milliseconds), at most
// WarmDelay later; nil starts them at once.
func (r *Catalog) Warm(ctx context.Context, after <-chan struct{}) []error {
	var wait []string
	for _, s := range r.servers {
		if s.cached == nil {
			wait = append(wait, s.Name)
			continue
		}
		go func() {
			if after != nil {
				select {
				case <-after:
				case <-time.After(WarmDelay):
				}
			}
			if err := s.Start(context.WithoutCancel(ctx)); err == nil {
				r.index()
			}
		}()
	}
	if len(wait) == 0 {
		r.index()
		return nil
	}
	return r.StartMCP(ctx, wait...)
}
