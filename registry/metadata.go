package registry

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/gemhost/gem/manifest"
)

// InstallMetadataFile is Gemini CLI's install record inside an installed extension folder.
const InstallMetadataFile = ".gemini-extension-install.json"

// InstallMetadata is the content of .gemini-extension-install.json, in Gemini CLI's format
// (2-space JSON, absent fields omitted).
type InstallMetadata struct {
	Source          string `json:"source"`
	Type            string `json:"type"` // local, git, link, github-release
	ReleaseTag      string `json:"releaseTag,omitempty"`
	Ref             string `json:"ref,omitempty"`
	AutoUpdate      *bool  `json:"autoUpdate,omitempty"`
	AllowPreRelease *bool  `json:"allowPreRelease,omitempty"`
	// Version is gem's: the version it gave a plugin whose manifest names none (its
	// marketplace entry's, else its commit's; Format.VersionOptional). Written only then, and
	// only in gem's own roots, which Gemini CLI does not read.
	Version string `json:"version,omitempty"`
}

// ReadInstallMetadata reads dir's install metadata. A missing file is (nil, nil); invalid
// JSON is a *manifest.SyntaxError.
func ReadInstallMetadata(dir string) (*InstallMetadata, error) {
	data, err := os.ReadFile(filepath.Join(dir, InstallMetadataFile))
	return decodeInstallMetadata(data, err)
}

func readInstallMetadata(h *dirHandle, rel string) (*InstallMetadata, error) {
	return decodeInstallMetadata(h.readSmall(rel))
}

func decodeInstallMetadata(data []byte, err error) (*InstallMetadata, error) {
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var m InstallMetadata
	if err := json.Unmarshal(data, &m); err != nil {
		if _, _, perr := manifest.Parse(data); perr != nil {
			return nil, perr
		}
		return nil, err
	}
	return &m, nil
}
