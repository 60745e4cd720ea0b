package registry

import (
	"encoding/json"
	"os"

	"github.com/tailscale/hujson"
)

// blocksGit reports whether the settings set security.blockGitExtensions, which in Gemini
// CLI blocks extensions from git and GitHub from being installed (registry/install) and
// loaded (here): discovery then blocks those installed so (BlockSettings). Only this key is
// read, from the files registry/settings merges in its order (the user's, gem's, a trusted
// workspace's, the system file; the last that sets it wins), so the light front applies it
// too at the cost of reading them.
func (e Env) blocksGit() bool {
	block := false
	for _, f := range e.SettingsFiles(e.Cwd, e.Getenv) {
		if f.Scope == "workspace" && !e.FolderTrusted(e.Cwd) {
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			continue
		}
		std, err := hujson.Standardize(data)
		if err != nil {
			continue
		}
		var s struct {
			Security struct {
				BlockGitExtensions *bool `json:"blockGitExtensions"`
			} `json:"security"`
		}
		if json.Unmarshal(std, &s) == nil && s.Security.BlockGitExtensions != nil {
			block = *s.Security.BlockGitExtensions
		}
	}
	return block
}

// installedFromGit reports whether x was installed from a git repository or a GitHub release.
func (x *Extension) installedFromGit() bool {
	m := x.Install()
	return m != nil && (m.Type == "git" || m.Type == "github-release")
}
